#!/usr/bin/env python3
"""How the link scales with the number of modules: issue 28's targets, in one run.

The problem: a per-module or per-name cost that is invisible at 200 modules (bench/run.py) dominates at
thousands, and a pass that grows faster than its input turns a big link into a slow one. This script
measures both shapes the issue names, each against a floor taken in the same run:

  program  `gen_program.py --modules N` (the bench's generated program: 20 device functions and 3
           kernels per module, weak templates, .common, aliases, every tenth module with -G), assembled
           with `ptxlink-as FILES --output-dir`, then `ptxlink -arch sm_80 OBJS -o out.fatbin` against
           `cat OBJS > /dev/null`: CPU ratio to cat, peak RSS against the size of the objects, and the
           growth of the link's CPU from the first count to the last (linear is count_last/count_first).
           With --phases, one more link with `--time FILE` gives each pass's milliseconds per count.
  tiny     N one-function PTX modules (each calls the previous one's function: one relocation each),
           `ptxlink -r @RSP -o out.o` (the inputs through a response file): peak RSS against 2x the input
           + 100 MB, and bytes per module.

Every process runs under bench/measure.c (its own CPU time and peak RSS). Rounds are interleaved: each
round runs every size (cat, then each build's link), the builds' order alternating from round to round,
and figures are medians: on a shared machine only ratios taken in the same minute mean anything, the
growth from one size to another included. --before-bin DIR adds a second build's tools (their own
objects, assembled by their own ptxlink-as, since the object format may differ) to every round.

Usage: bench/scale_bench.py [--build-dir build] [--before-bin DIR] [--counts 1000,3000] [--tiny 100000]
                            [--rounds 3] [--phases] [--work bench/work-scale] [--json FILE]
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys

from run import build_launcher  # bench/run.py, beside this script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = 1e6


def run_measured(launcher, work, argv, stdout=subprocess.DEVNULL):
    """(cpu seconds, peak RSS bytes) of one command; exits with its stderr if it fails."""
    out = os.path.join(work, "measure.out")
    proc = subprocess.run([launcher, out] + argv, stdout=stdout, stderr=subprocess.PIPE)
    with open(out) as f:
        cpu_us, rss_kb, status = (int(x) for x in f.read().split())
    if status != 0 or proc.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (status, " ".join(argv[:4]) + " ...", proc.stderr.decode()[-2000:]))
    return cpu_us / 1e6, rss_kb * 1024


def tool_id(path):
    """A short hash of a binary: objects are kept per ptxlink-as that made them."""
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()[:12]


def program_inputs(work, count, as_tool):
    """The count-module program's objects as made by as_tool (generated and assembled once)."""
    ptx_dir = os.path.join(work, "program%d" % count, "ptx")
    if not os.path.exists(os.path.join(ptx_dir, "done")):
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_program.py"), ptx_dir,
                        "--modules", str(count)], check=True, stdout=subprocess.DEVNULL)
        open(os.path.join(ptx_dir, "done"), "w").close()
    ptx = sorted(os.path.join(ptx_dir, f) for f in os.listdir(ptx_dir) if f.endswith(".ptx"))
    obj_dir = os.path.join(work, "program%d" % count, "objs-" + tool_id(as_tool))
    if not os.path.exists(os.path.join(obj_dir, "done")):
        os.makedirs(obj_dir, exist_ok=True)
        rsp = os.path.join(obj_dir, "inputs.rsp")
        with open(rsp, "w") as f:
            f.write("\n".join(ptx) + "\n")
        subprocess.run([as_tool, "@" + rsp, "--output-dir", obj_dir], check=True)
        open(os.path.join(obj_dir, "done"), "w").close()
        # Written back before any round, so that the kernel's writeback of 261 MB of new objects (it
        # starts 30 s after the writes) does not fall into the rounds of one build and not the other's.
        os.sync()
    return [os.path.join(obj_dir, os.path.basename(p)[:-4] + ".o") for p in ptx]


def tiny_inputs(work, count):
    """count one-function PTX modules and a response file naming them; (rsp path, total bytes)."""
    d = os.path.join(work, "tiny%d" % count)
    rsp = os.path.join(d, "inputs.rsp")
    if not os.path.exists(os.path.join(d, "done")):
        os.makedirs(d, exist_ok=True)
        names = []
        for i in range(count):
            p = os.path.join(d, "t%06d.ptx" % i)
            with open(p, "w") as f:
                f.write(".version 8.0\n.target sm_80\n.address_size 64\n")
                if i:
                    f.write(".extern .func t%d();\n.visible .func t%d(){call t%d;ret;}\n" % (i - 1, i, i - 1))
                else:
                    f.write(".visible .func t0(){ret;}\n")
            names.append(p)
        with open(rsp, "w") as f:
            f.write("\n".join(names) + "\n")
        open(os.path.join(d, "done"), "w").close()
        os.sync()  # as for the program's objects
    with open(rsp) as f:
        size = sum(os.path.getsize(p) for p in f.read().split())
    return rsp, size


def median(xs):
    return statistics.median(xs) if xs else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--before-bin", help="a second build's bin folder, measured in the same rounds")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work-scale"))
    ap.add_argument("--counts", default="1000,3000", help="program sizes in modules ('' for none)")
    ap.add_argument("--tiny", type=int, default=100000, help="tiny modules for the -r link (0: none)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--phases", action="store_true", help="per-pass times (--time) of the after build")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    launcher = build_launcher(args.work)
    if not launcher:
        sys.exit("bench/measure.c could not be compiled")
    builds = [("after", os.path.join(args.build_dir, "bin"))]
    if args.before_bin:
        builds.insert(0, ("before", args.before_bin))
    results = {"builds": {name: b for name, b in builds}, "program": {}, "tiny": {}}
    out_dir = os.path.join(args.work, "out")
    os.makedirs(out_dir, exist_ok=True)

    counts = [int(c) for c in args.counts.split(",") if c]
    inputs = {count: {name: program_inputs(args.work, count, os.path.join(b, "ptxlink-as")) for name, b in builds}
              for count in counts}
    # Every size in every round, and the builds in turn first and last: the growth compares the sizes, so
    # they are sampled over the same minutes (the machine's speed drifts from one minute to the next), and
    # a link never always follows the same one (whose freed memory it reuses warm).
    samples = {count: {"cat": []} for count in counts}
    rss = {count: {} for count in counts}
    for round_no in range(args.rounds):
        for count in counts:
            objs = inputs[count]
            samples[count]["cat"].append(run_measured(launcher, args.work, ["cat"] + objs[builds[-1][0]])[0])
            for name, b in (builds if round_no % 2 == 0 else builds[::-1]):
                cpu, peak = run_measured(launcher, args.work, [os.path.join(b, "ptxlink"), "-arch", "sm_80"] +
                                         objs[name] + ["-o", os.path.join(out_dir, "p%d-%s.fatbin" % (count, name))])
                samples[count].setdefault(name, []).append(cpu)
                rss[count][name] = max(rss[count].get(name, 0), peak)
    for count in counts:
        objs = inputs[count]
        obj_mb = sum(os.path.getsize(o) for o in objs[builds[-1][0]]) / MB
        r = {"modules": count, "objects_mb": obj_mb, "cat_cpu_s": median(samples[count]["cat"])}
        for name, _ in builds:
            cpu = samples[count][name]
            r[name] = {"cpu_s": median(cpu), "samples": cpu, "cpu_vs_cat": median(cpu) / r["cat_cpu_s"],
                       "peak_mb": rss[count][name] / MB, "peak_vs_objects": rss[count][name] / MB / obj_mb}
        if args.phases:
            times = os.path.join(args.work, "time%d.csv" % count)
            if os.path.exists(times):
                os.remove(times)  # --time appends
            run_measured(launcher, args.work, [os.path.join(builds[-1][1], "ptxlink"), "-arch", "sm_80"] +
                         objs[builds[-1][0]] + ["-o", os.path.join(out_dir, "phases.fatbin"), "--time", times])
            phases = {}
            with open(times) as f:
                for row in f.read().splitlines()[1:]:
                    cells = row.rsplit(",", 2)
                    if len(cells) == 3:
                        phases[cells[0]] = phases.get(cells[0], 0.0) + float(cells[2])
            r["phases_ms"] = phases
        results["program"][count] = r
        print("program, %d modules, %.1f MB of objects: cat %.3f s" % (count, obj_mb, r["cat_cpu_s"]))
        for name, _ in builds:
            x = r[name]
            print("  %-6s link CPU %.3f s = %.2fx cat (target <= 2.5x); peak %.1f MB = %.2fx the objects "
                  "(target <= 1.2x)" % (name, x["cpu_s"], x["cpu_vs_cat"], x["peak_mb"], x["peak_vs_objects"]))
    if len(counts) >= 2:
        a, b = results["program"][counts[0]], results["program"][counts[-1]]
        for name, _ in builds:
            g = b[name]["cpu_s"] / a[name]["cpu_s"]
            results["program"]["growth_" + name] = g
            print("  %-6s growth %d -> %d modules: %.2fx (linear %.2fx, target <= 3.2x)" % (
                name, counts[0], counts[-1], g, counts[-1] / counts[0]))
        if args.phases:
            pa, pb = a.get("phases_ms", {}), b.get("phases_ms", {})
            print("  phases (after build), ms at %d and %d modules, growth:" % (counts[0], counts[-1]))
            for k in pb:
                if k in pa and pa[k] > 0:
                    print("    %-40s %9.1f %9.1f  %.2fx" % (k, pa[k], pb[k], pb[k] / pa[k]))

    if args.tiny:
        rsp, size = tiny_inputs(args.work, args.tiny)
        limit = 2 * size + 100 * MB
        for name, b in builds:
            peaks, cpus = [], []
            for _ in range(max(1, args.rounds - 1)):
                cpu, peak = run_measured(launcher, args.work, [os.path.join(b, "ptxlink"), "-r", "-arch", "sm_80",
                                                                "@" + rsp, "-o", os.path.join(out_dir, "tiny.o")])
                peaks.append(peak)
                cpus.append(cpu)
            peak = max(peaks)
            results["tiny"][name] = {"modules": args.tiny, "input_mb": size / MB, "peak_mb": peak / MB,
                                     "limit_mb": limit / MB, "bytes_per_module": peak / args.tiny,
                                     "cpu_s": median(cpus)}
            print("tiny, %d modules, %.1f MB of PTX, ptxlink -r (%s): peak %.1f MB (%.0f bytes per module), "
                  "limit %.1f MB: %s; CPU %.2f s" % (args.tiny, size / MB, name, peak / MB, peak / args.tiny,
                                                    limit / MB, "met" if peak <= limit else "NOT met", median(cpus)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
