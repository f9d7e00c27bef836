#!/usr/bin/env python3
"""Peak memory per function: ptxlink-as and ptxlink on modules of very many trivial functions.

The problem: a per-function cost that is invisible on real modules (a few thousand functions) becomes
the whole footprint on a hostile or generated one. Issue 15's review measured 10^6 trivial functions
(about 22 MB of PTX) at 1.08 GB in ptxlink-as and 839 MB in ptxlink; the target is at most twice the
input plus 100 MB for both tools. This script generates such modules at two sizes (the slope between
them is the cost per function), runs each tool under bench/measure.c (the child's own peak RSS, not
Python's), and prints MB, the ratio to the input size and whether the target holds.

Inputs (generated into --work, not committed):
  flat:  `.visible .func fN(){ret;}`, one per line (10^6 of them: 27 MB)
  chain: the same, but each function calls the previous one (a relocation per function)
  kept:  chain plus a kernel that calls the last function, so that the links keep every function and
         print all of them (in flat and chain nothing is reachable from a kernel: the links drop it all)
  local: `.func fN(){ret;}`, module-local functions: 22 MB for 10^6, the size the issue's review
         measured (its input, as far as the size tells), so the tightest limit (2x 22 MB + 100 MB)
Commands, for each input IN.ptx:
  ptxlink-as IN.ptx -o IN.o                  (assemble)
  ptxlink -arch sm_80 IN.o -o IN.linked.ptx              (link the object; the result is PTX)
  ptxlink -arch sm_80 IN.ptx -o IN.direct.ptx            (link the PTX directly, assembled in memory)

Usage: bench/memory_bench.py [--build-dir build] [--work bench/work-memory] [--counts 100000,1000000]
                             [--kinds flat,chain,kept,local] [--json FILE]
"""

import argparse
import json
import os
import subprocess
import sys

from run import build_launcher  # bench/run.py, beside this script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = 1e6


def generate(path, count, kind):
    """Writes a module of `count` trivial functions; returns its size in bytes."""
    with open(path, "w") as f:
        f.write(".version 8.5\n.target sm_80\n.address_size 64\n\n")
        for i in range(count):
            if kind == "local":
                f.write(".func f%d(){ret;}\n" % i)
            elif kind in ("chain", "kept") and i > 0:
                f.write(".visible .func f%d(){call f%d;ret;}\n" % (i, i - 1))
            else:
                f.write(".visible .func f%d(){ret;}\n" % i)
        if kind == "kept":
            f.write(".visible .entry k(){call f%d;ret;}\n" % (count - 1))
    return os.path.getsize(path)


def measure(launcher, work, argv):
    """(peak RSS bytes, exit status, stderr tail) of one command."""
    out = os.path.join(work, "measure.out")
    proc = subprocess.run([launcher, out] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(out) as f:
        _cpu_us, rss_kb, status = (int(x) for x in f.read().split())
    return rss_kb * 1024, status, proc.stderr.decode(errors="replace")[-300:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work-memory"))
    ap.add_argument("--counts", default="100000,1000000")
    ap.add_argument("--kinds", default="flat,chain,kept,local")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    launcher = build_launcher(args.work)  # run.py's: bench/measure.c compiled into the work folder
    if launcher is None:
        sys.exit("memory_bench: no C compiler to build bench/measure.c")
    bindir = os.path.join(args.build_dir, "bin")
    asm, link = os.path.join(bindir, "ptxlink-as"), os.path.join(bindir, "ptxlink")

    rows = []
    print("| input | functions | input MB | command | peak RSS MB | RSS / input | output MB | limit MB (2x input + 100) | within |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in args.kinds.split(","):
        for count in (int(c) for c in args.counts.split(",")):
            ptx = os.path.join(args.work, "%s-%d.ptx" % (kind, count))
            size = generate(ptx, count, kind)
            obj = ptx[:-4] + ".o"
            commands = [
                ("ptxlink-as IN.ptx -o IN.o", [asm, ptx, "-o", obj], obj),
                ("ptxlink IN.o -o OUT.ptx", [link, "-arch", "sm_80", obj, "-o", ptx[:-4] + ".linked.ptx"],
                 ptx[:-4] + ".linked.ptx"),
                ("ptxlink IN.ptx -o OUT.ptx", [link, "-arch", "sm_80", ptx, "-o", ptx[:-4] + ".direct.ptx"],
                 ptx[:-4] + ".direct.ptx"),
            ]
            for label, argv, output in commands:
                rss, status, err = measure(launcher, args.work, argv)
                limit = 2 * size + 100 * MB
                out_size = os.path.getsize(output) if status == 0 and os.path.exists(output) else 0
                row = {"kind": kind, "functions": count, "input_bytes": size, "command": label,
                       "peak_rss_bytes": rss, "status": status, "output_bytes": out_size}
                rows.append(row)
                verdict = ("yes" if rss <= limit else "no") if status == 0 else "FAILED: " + err.strip()
                print("| %s | %d | %.1f | `%s` | %.1f | %.2f | %.1f | %.1f | %s |" %
                      (kind, count, size / MB, label, rss / MB, rss / size, out_size / MB, limit / MB,
                       verdict))
                sys.stdout.flush()
            for suffix in (".o", ".linked.ptx", ".direct.ptx"):
                if os.path.exists(ptx[:-4] + suffix):
                    os.remove(ptx[:-4] + suffix)
    # The slope: bytes of peak RSS per function between the two largest counts of each kind and command.
    counts = sorted({r["functions"] for r in rows})
    if len(counts) >= 2:
        lo, hi = counts[-2], counts[-1]
        print("\nPeak RSS per function (slope between %d and %d functions):\n" % (lo, hi))
        for kind in args.kinds.split(","):
            for label in dict.fromkeys(r["command"] for r in rows):
                a = [r for r in rows if r["kind"] == kind and r["command"] == label and r["functions"] == lo]
                b = [r for r in rows if r["kind"] == kind and r["command"] == label and r["functions"] == hi]
                if a and b:
                    slope = (b[0]["peak_rss_bytes"] - a[0]["peak_rss_bytes"]) / (hi - lo)
                    obj = (b[0]["output_bytes"] / hi) if label.startswith("ptxlink-as") else None
                    print("- %s, `%s`: %.0f bytes/function%s" %
                          (kind, label, slope, "" if obj is None else ", object %.0f bytes/function" % obj))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
