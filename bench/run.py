#!/usr/bin/env python3
"""Measures ptxlink's tools in one run, beside reference tools run in the same session.

The problem: "fast" only means something next to a reference measured on the same machine, on the same
input, at the same time (the machine may be shared and noisy). So every figure here comes with the
matching reference figure and their ratio:

 (a) assembling: ptxlink-as over every module, one process per module, single-threaded; throughput in
     MB of PTX per CPU-second (user+sys of the child, from wait4) and peak RSS; on the generated program
     (bench/gen_program.py) and on real compiler output (the test corpus made by nvcc and llc-19, and
     the vecmath example); beside `ptxas -c` on the same files.
 (b) linking: ptxlink over hundreds of objects (one arch, then two) vs nvlink over the `ptxas -c` cubins
     of the same modules (computed once, cached by content) vs `cat inputs > /dev/null`; peak RSS
     against the total input size.
 (c) archives: a library of 10,000 one-function members; ptxlink-ar vs llvm-ar building it from the
     same objects; linking a program that needs 1% of the members.

A tool that has not been built yet is reported as "not built"; a tool that fails is reported as FAILED
with its first error line (the run goes on). Results: a Markdown report on stdout (and --report FILE)
and the raw numbers as JSON (--json FILE).

Usage: bench/run.py [--build-dir build] [--work bench/work] [--modules 200] [--funcs 20]
                    [--library 10000] [--repeat 3] [--quick]
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = "/usr/lib/llvm-19/bin"


GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def build_launcher(work):
    """Compiles bench/measure.c (a launcher reporting the child's exact CPU time and peak RSS) into the
    work directory; None without a C compiler, and GNU time is used instead."""
    src = os.path.join(ROOT, "bench", "measure.c")
    exe = os.path.join(work, "measure")
    if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
        return exe
    for cc in ("cc", "gcc", "clang"):
        if shutil.which(cc) and subprocess.run([cc, "-O2", "-o", exe, src]).returncode == 0:
            return exe
    return None


LAUNCHER = None  # set by main(): bench/measure.c built, or None


class Run:
    """One child process: wall time, CPU time (user+sys, from wait4) and peak RSS.

    The command runs under bench/measure.c (LAUNCHER), which reports the command's own CPU time and peak
    RSS exactly; without a C compiler, under GNU time (-f %M), whose own start-up then counts in the CPU
    time. Either way not straight from Python: a child forked from this process inherits Python's RSS
    high-water mark across exec (Linux keeps it in signal->maxrss), so wait4's ru_maxrss would never read
    below ~20 MB. Under a launcher the floor is the launcher's own (~1-2 MB)."""

    def __init__(self, argv, stdout=None, cwd=None):
        self.argv = argv
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        rss_file = None
        exact = LAUNCHER is not None
        if exact or GNU_TIME:
            rss_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ptxlink-bench-rss.%d" % os.getpid())
            argv = ([LAUNCHER, rss_file] if exact else [GNU_TIME, "-f", "%M %x", "-o", rss_file]) + list(argv)
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, cwd=cwd)
        finally:
            if stdout:
                out.close()
        # Read stderr before waiting so a chatty child cannot block; wait4 gives this child's rusage.
        self.stderr = proc.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        self.wall = time.perf_counter() - t0
        self.cpu = usage.ru_utime + usage.ru_stime
        self.rss_kb = usage.ru_maxrss
        self.status = proc.returncode
        if rss_file:
            try:
                fields = open(rss_file).read().split()
                os.remove(rss_file)
                if exact:  # "cpu_us maxrss_kb status": the command's own figures, not the launcher's
                    self.cpu = int(fields[0]) / 1e6
                # GNU time prints "Command exited with non-zero status N" first on failure.
                self.rss_kb = int(fields[-2])
                self.status = int(fields[-1])
            except (OSError, ValueError, IndexError):
                pass

    @property
    def ok(self):
        return self.status == 0

    def error(self):
        first = self.stderr.strip().splitlines()[:1]
        return "FAILED (exit %d): %s" % (self.status, first[0] if first else "no message")


def total_size(paths):
    return sum(os.path.getsize(p) for p in paths)


def find_tool(name, build_bin):
    path = os.path.join(build_bin, name)
    if os.access(path, os.X_OK):
        return path
    return None


def find_system(name, extra=()):
    for c in (name,) + tuple(extra):
        p = shutil.which(c)
        if p:
            return p
    return None


class Bench:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.bin = os.path.join(os.path.abspath(args.build_dir), "bin")
        self.tools = {t: find_tool(t, self.bin) for t in ("ptxlink-as", "ptxlink", "ptxlink-ar", "ptxlink-dump")}
        cuda_bin = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin")
        self.ptxas = find_system("ptxas", (os.path.join(cuda_bin, "ptxas"),))
        self.nvlink = find_system("nvlink", (os.path.join(cuda_bin, "nvlink"),))
        self.llvm_ar = find_system("llvm-ar-19", (os.path.join(LLVM_BIN, "llvm-ar"), "llvm-ar"))
        self.results = {"tools": {k: bool(v) for k, v in self.tools.items()},
                        "reference_tools": {"ptxas": self.ptxas, "nvlink": self.nvlink, "llvm-ar": self.llvm_ar}}
        self.lines = []

    def say(self, text=""):
        print(text, flush=True)
        self.lines.append(text)

    # ---------------------------------------------------------------- inputs
    def generate(self):
        a = self.args
        prog = os.path.join(self.work, "program")
        stamp = os.path.join(prog, "params.json")
        params = {"modules": a.modules, "funcs": a.funcs, "seed": a.seed}
        if not (os.path.exists(stamp) and json.load(open(stamp)) == params):
            shutil.rmtree(prog, ignore_errors=True)
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_program.py"), prog, "--modules",
                            str(a.modules), "--funcs", str(a.funcs), "--seed", str(a.seed)], check=True)
            json.dump(params, open(stamp, "w"))
        self.program = sorted(os.path.join(prog, f) for f in os.listdir(prog) if f.endswith(".ptx"))

        lib = os.path.join(self.work, "library")
        stamp = os.path.join(lib, "params.json")
        params = {"library": a.library, "seed": a.seed}
        if a.library and not (os.path.exists(stamp) and json.load(open(stamp)) == params):
            shutil.rmtree(lib, ignore_errors=True)
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_program.py"), lib, "--library",
                            str(a.library), "--seed", str(a.seed)], check=True)
            json.dump(params, open(stamp, "w"))
        self.library = sorted(os.path.join(lib, "lib", f) for f in os.listdir(os.path.join(lib, "lib"))) if a.library else []
        self.library_main = os.path.join(lib, "main.ptx")

        # Real compiler output: the test corpus (nvcc + llc-19 on this machine) and the example.
        corpus = os.path.join(self.work, "corpus")
        if not os.path.isdir(corpus):
            subprocess.run([os.path.join(ROOT, "tests", "corpus", "generate.sh"), corpus], check=False,
                           stdout=subprocess.DEVNULL)
        skip = set()
        if os.path.exists(os.path.join(corpus, "no-ptxas.txt")):
            skip = set(open(os.path.join(corpus, "no-ptxas.txt")).read().split())
        real = [os.path.join(corpus, f) for f in sorted(os.listdir(corpus)) if f.endswith(".ptx") and f not in skip]
        ex = os.path.join(ROOT, "examples", "vecmath")
        real += [os.path.join(ex, f) for f in sorted(os.listdir(ex)) if f.endswith(".ptx")]
        self.real = real

        # Real nvcc output at scale: one large translation unit (bench/gen_cuda.py), with and without -G.
        self.nvcc_big = []
        nvcc = find_system("nvcc", (os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"),))
        if nvcc and a.nvcc_functions:
            big = os.path.join(self.work, "nvcc-big")
            stamp = os.path.join(big, "params.json")
            params = {"functions": a.nvcc_functions}
            if not (os.path.exists(stamp) and json.load(open(stamp)) == params):
                shutil.rmtree(big, ignore_errors=True)
                os.makedirs(big)
                cu = os.path.join(big, "big.cu")
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_cuda.py"), cu, "--functions",
                                str(a.nvcc_functions)], check=True)
                for name, extra in (("big.ptx", []), ("big-G.ptx", ["-G"])):
                    subprocess.run([nvcc, "-rdc=true", "-ptx", "-arch=sm_80"] + extra + [cu, "-o", os.path.join(big, name)],
                                   check=True)
                json.dump(params, open(stamp, "w"))
            self.nvcc_big = [os.path.join(big, "big.ptx"), os.path.join(big, "big-G.ptx")]

    # ---------------------------------------------------------------- helpers
    def run_each(self, argv_of, inputs, repeat=None):
        """Runs one process per input, the whole set `repeat` (default --repeat) times; returns (cpu,
        wall, peak rss kb, failures[], best cpu): the median total CPU and wall time over the repetitions
        (a single large module is otherwise one sample of a machine whose speed drifts by a third from
        minute to minute) and the smallest total CPU time (the machine's undisturbed speed)."""
        cpus, walls = [], []
        rss = 0
        failures = []
        for rep in range(repeat or self.args.repeat):
            cpu = wall = 0.0
            for path in inputs:
                r = Run(argv_of(path))
                cpu += r.cpu
                wall += r.wall
                rss = max(rss, r.rss_kb)
                if not r.ok and rep == 0:
                    failures.append("%s: %s" % (os.path.basename(path), r.error()))
            cpus.append(cpu)
            walls.append(wall)
        return statistics.median(cpus), statistics.median(walls), rss, failures, min(cpus)

    def repeat(self, argv, stdout=None):
        """Median of --repeat runs (wall and CPU), max RSS; stops at the first failure."""
        runs = []
        for _ in range(self.args.repeat):
            r = Run(argv, stdout=stdout)
            if not r.ok:
                return None, r.error()
            runs.append(r)
        return {"wall": statistics.median(r.wall for r in runs), "cpu": statistics.median(r.cpu for r in runs),
                "rss_kb": max(r.rss_kb for r in runs)}, None

    def cubins(self, ptx_files, arch="sm_80"):
        """`ptxas -c` of every file, cached by content hash under work/cubins."""
        cache = os.path.join(self.work, "cubins", arch)
        os.makedirs(cache, exist_ok=True)
        out, cpu = [], 0.0
        for p in ptx_files:
            digest = hashlib.sha256(open(p, "rb").read()).hexdigest()[:20]
            cubin = os.path.join(cache, "%s-%s.o" % (os.path.basename(p)[:-4], digest))
            if not os.path.exists(cubin):
                r = Run([self.ptxas, "-arch=" + arch, "-c", p, "-o", cubin + ".tmp"])
                if not r.ok:
                    return None, "%s: %s" % (os.path.basename(p), r.error())
                os.rename(cubin + ".tmp", cubin)
                cpu += r.cpu
            out.append(cubin)
        return out, None

    # ---------------------------------------------------------------- (a)
    def bench_assemble(self):
        self.say("## (a) Assembling")
        self.say()
        self.say("One process per module, run one after another; throughput = PTX bytes / CPU time (user+sys) "
                 "of the processes, the median of %d repetitions of the whole set (and the best of them); peak "
                 "RSS = the largest process." % self.args.repeat)
        self.say()
        res = {}
        # The fixed cost of starting a process (dynamic loading of libLLVM, option parsing) dominates
        # small modules; measure it so the per-byte figure can be given without it too.
        startup = {}
        for tool, argv in (("ptxlink-as", [self.tools["ptxlink-as"], "--version"]), ("ptxas", [self.ptxas, "--version"])):
            if argv[0]:
                runs = [Run(argv) for _ in range(10)]
                startup[tool] = {"cpu": statistics.median(r.cpu for r in runs), "rss_kb": max(r.rss_kb for r in runs)}
        res["startup"] = startup
        for tool, st in startup.items():
            self.say("- start-up cost of one `%s --version` process: %.1f ms CPU, %.1f MB peak RSS"
                     % (tool, st["cpu"] * 1000, st["rss_kb"] / 1024))
        self.say()
        self.say("| input | files | MB | tool | CPU s | MB/s per core | best run MB/s | MB/s without start-up | peak RSS MB | speed vs ptxas |")
        self.say("|---|---|---|---|---|---|---|---|---|---|")
        objdir = os.path.join(self.work, "objs")
        os.makedirs(objdir, exist_ok=True)
        inputs = [("generated program", self.program), ("real nvcc/llc output", self.real)]
        inputs += [("one large nvcc module" + (" (-G)" if "-G" in os.path.basename(p) else ""), [p]) for p in self.nvcc_big]
        for label, files in inputs:
            mb = total_size(files) / 1e6
            entry = {"files": len(files), "mb": mb}
            ours = ref = None
            if self.tools["ptxlink-as"]:
                sub = os.path.join(objdir, "program" if files is self.program else "real" if files is self.real else "nvcc-big")
                os.makedirs(sub, exist_ok=True)
                cpu, wall, rss, fails, best = self.run_each(
                    lambda p: [self.tools["ptxlink-as"], p, "-o", os.path.join(sub, os.path.basename(p)[:-4] + ".o")], files)
                ours = {"cpu": cpu, "wall": wall, "rss_kb": rss, "mb_per_s": mb / cpu if cpu else 0,
                        "cpu_best": best, "mb_per_s_best": mb / best if best else 0, "failures": fails}
                entry["ptxlink-as"] = ours
            if self.ptxas:
                def ptxas_argv(p):
                    arch = "sm_80"
                    for line in open(p, errors="replace"):
                        s = line.strip()
                        if s.startswith(".target"):
                            arch = s.split()[1].rstrip(",")
                            break
                    return [self.ptxas, "-arch=" + arch, "-c", p, "-o", "/dev/null"]
                cpu, wall, rss, fails, best = self.run_each(ptxas_argv, files)
                ref = {"cpu": cpu, "wall": wall, "rss_kb": rss, "mb_per_s": mb / cpu if cpu else 0,
                       "cpu_best": best, "mb_per_s_best": mb / best if best else 0, "failures": fails}
                entry["ptxas"] = ref
            res[label] = entry
            def fmt_net(v):
                # The start-up cost (a median of --version runs) can exceed a whole run of tiny modules.
                return "%.1f" % v if v == v else "n/a (start-up noise)"
            def net(entry, tool):
                base = startup.get(tool, {}).get("cpu", 0.0) * len(files)
                return mb / (entry["cpu"] - base) if entry["cpu"] > base else float("nan")
            if ours:
                ours["mb_per_s_net"] = net(ours, "ptxlink-as")
                ratio = "%.1fx" % (ref["cpu"] / ours["cpu"]) if ref and ours["cpu"] else ""
                note = " (%d FAILED)" % len(ours["failures"]) if ours["failures"] else ""
                self.say("| %s | %d | %.2f | ptxlink-as%s | %.3f | %.1f | %.1f | %s | %.1f | %s |" % (
                    label, len(files), mb, note, ours["cpu"], ours["mb_per_s"], ours["mb_per_s_best"],
                    fmt_net(ours["mb_per_s_net"]), ours["rss_kb"] / 1024, ratio))
            else:
                self.say("| %s | %d | %.2f | ptxlink-as | not built | | | | | |" % (label, len(files), mb))
            if ref:
                ref["mb_per_s_net"] = net(ref, "ptxas")
                note = " (%d rejected)" % len(ref["failures"]) if ref["failures"] else ""
                self.say("| %s | %d | %.2f | ptxas -c%s | %.2f | %.2f | %.2f | %s | %.1f | 1 |" % (
                    label, len(files), mb, note, ref["cpu"], ref["mb_per_s"], ref["mb_per_s_best"],
                    fmt_net(ref["mb_per_s_net"]), ref["rss_kb"] / 1024))
        self.say()
        self.bench_assemble_batch(res)
        for label, entry in res.items():
            if not isinstance(entry, dict):
                continue
            for tool in ("ptxlink-as", "ptxas"):
                for f in entry.get(tool, {}).get("failures", [])[:5]:
                    self.say("- %s on %s: %s" % (tool, label, f))
        self.say()
        self.results["assemble"] = res

    def bench_assemble_batch(self, res):
        """All modules of an input set in one process (`ptxlink-as FILES --output-dir DIR`, as `cc -c` is
        used): the figure for the assembler itself, without a process start per module. Median of --repeat
        runs, each into a fresh empty directory (creating it is not timed)."""
        if not self.tools["ptxlink-as"]:
            return
        self.say("All modules in one process (`ptxlink-as FILES --output-dir DIR`, into a fresh directory each run; "
                 "median of %d runs):" % self.args.repeat)
        self.say()
        self.say("| input | files | MB | CPU s | MB/s per core | best run MB/s | wall s | peak RSS MB |")
        self.say("|---|---|---|---|---|---|---|---|")
        for label, files in (("generated program", self.program), ("real nvcc/llc output", self.real)):
            mb = total_size(files) / 1e6
            runs = []
            for k in range(self.args.repeat):
                out = os.path.join(self.work, "objs", "batch-%d" % k)
                shutil.rmtree(out, ignore_errors=True)
                os.makedirs(out)
                runs.append(Run([self.tools["ptxlink-as"]] + files + ["--output-dir", out]))
            bad = [r for r in runs if not r.ok]
            if bad:
                self.say("| %s | %d | %.2f | %s | | | | |" % (label, len(files), mb, bad[0].error()))
                res["batch " + label] = bad[0].error()
                continue
            cpu = statistics.median(r.cpu for r in runs)
            best = min(r.cpu for r in runs)
            wall = statistics.median(r.wall for r in runs)
            rss = max(r.rss_kb for r in runs)
            res["batch " + label] = {"files": len(files), "mb": mb, "cpu": cpu, "wall": wall, "rss_kb": rss,
                                     "mb_per_s": mb / cpu if cpu else 0, "cpu_best": best,
                                     "mb_per_s_best": mb / best if best else 0}
            self.say("| %s | %d | %.2f | %.3f | %.0f | %.0f | %.3f | %.1f |" % (
                label, len(files), mb, cpu, mb / cpu if cpu else 0, mb / best if best else 0, wall, rss / 1024))
        self.say()

    # ---------------------------------------------------------------- (b)
    def bench_link(self):
        self.say("## (b) Linking %d modules" % len(self.program))
        self.say()
        res = {}
        objs = [os.path.join(self.work, "objs", "program", os.path.basename(p)[:-4] + ".o") for p in self.program]
        have_objs = self.tools["ptxlink-as"] and all(os.path.exists(o) for o in objs)
        # ptxlink also reads PTX directly; with objects it is the linker alone being timed.
        inputs = objs if have_objs else self.program
        in_mb = total_size(inputs) / 1e6
        res["input"] = {"kind": "objects" if have_objs else "PTX files", "files": len(inputs), "mb": in_mb}
        out = os.path.join(self.work, "out")
        os.makedirs(out, exist_ok=True)
        rows = []
        cat, err = self.repeat(["cat"] + inputs, stdout="/dev/null")
        res["cat"] = cat
        rows.append(("`cat` of the %d input %s > /dev/null" % (len(inputs), res["input"]["kind"]), in_mb, cat, err, cat))
        if self.tools["ptxlink"]:
            variants = [("sm_80", []), ("sm_80", ["--threads", "1"]), ("sm_80,sm_90", [])]
            if self.ptxas:  # what --verify (ptxas -O0 over each linked module) adds to a link
                variants += [("sm_80", ["--verify"]), ("sm_80,sm_90", ["--verify"])]
            for archs, extra in variants:
                m, err = self.repeat([self.tools["ptxlink"], "-arch", archs] + extra + inputs +
                                     ["-o", os.path.join(out, "program.fatbin")])
                key = "ptxlink " + archs + (" " + " ".join(extra) if extra else "")
                res[key] = m if m else err
                rows.append(("ptxlink -arch %s%s (%s in)" % (archs, " " + " ".join(extra) if extra else "",
                                                            res["input"]["kind"]), in_mb, m, err, cat))
            m, err = self.repeat([self.tools["ptxlink"], "-arch", "sm_80", "--emit", "ptx"] + inputs +
                                 ["-o", os.path.join(out, "program.ptx")])
            res["ptxlink --emit ptx"] = m if m else err
            rows.append(("ptxlink -arch sm_80 --emit ptx", in_mb, m, err, cat))
        else:
            rows.append(("ptxlink", in_mb, None, "not built", None))
        if self.ptxas and self.nvlink:
            cubins, err = self.cubins(self.program)
            if cubins:
                cub_mb = total_size(cubins) / 1e6
                c2, _ = self.repeat(["cat"] + cubins, stdout="/dev/null")
                rows.append(("`cat` of the %d cubins > /dev/null" % len(cubins), cub_mb, c2, None, c2))
                m, err = self.repeat([self.nvlink, "-arch=sm_80"] + cubins + ["-o", os.path.join(out, "program.cubin")])
                res["nvlink"] = m if m else err
                res["cubins_mb"] = cub_mb
                rows.append(("nvlink -arch=sm_80 (ptxas -c cubins in)", cub_mb, m, err, c2))
            else:
                res["nvlink"] = err
                rows.append(("nvlink", 0, None, "cubins: " + err, None))
        self.say("Median of %d runs; peak RSS of the process; ratios are wall-time ratios against the reference "
                 "lines measured in the same run (vs cat: `cat` of the same input files)." % self.args.repeat)
        self.say()
        self.say("| command | input MB | wall s | CPU s | peak RSS MB | RSS / input | wall vs cat | wall vs nvlink | CPU vs nvlink |")
        self.say("|---|---|---|---|---|---|---|---|---|")
        nv = res.get("nvlink") if isinstance(res.get("nvlink"), dict) else None
        for name, mb, m, err, catref in rows:
            if m is None:
                self.say("| %s | %.2f | %s | | | | | | |" % (name, mb, err))
                continue
            vs_cat = "%.1fx" % (m["wall"] / catref["wall"]) if catref and catref["wall"] else ""
            vs_nv = "%.2fx" % (m["wall"] / nv["wall"]) if nv and name.startswith("ptxlink") else ""
            cpu_nv = "%.2fx" % (m["cpu"] / nv["cpu"]) if nv and nv["cpu"] and name.startswith("ptxlink") else ""
            self.say("| %s | %.2f | %.3f | %.3f | %.1f | %.1f | %s | %s | %s |" % (
                name, mb, m["wall"], m["cpu"], m["rss_kb"] / 1024, m["rss_kb"] / 1024 / mb if mb else 0, vs_cat, vs_nv,
                cpu_nv))
        self.say()
        # A speed figure means little if the output is wrong: the linked module must be a whole program
        # that ptxas compiles (not timed).
        linked = os.path.join(out, "program.ptx")
        if self.ptxas and isinstance(res.get("ptxlink --emit ptx"), dict) and os.path.exists(linked):
            r = Run([self.ptxas, "-arch=sm_80", linked, "-o", os.path.join(out, "program.sm_80.cubin")])
            res["linked_ptx_accepted_by_ptxas"] = r.ok
            self.say("Check (not timed): `ptxas -arch=sm_80` on the linked PTX module (whole program, no -c): %s"
                     % ("accepted" if r.ok else "REJECTED: " + r.error()))
            self.say()
        self.results["link"] = res

    # ---------------------------------------------------------------- (c)
    def bench_archive(self):
        if not self.library:
            return
        n = len(self.library)
        self.say("## (c) Archive of %d members, program needing 1%% of them" % n)
        self.say()
        res = {"members": n}
        objdir = os.path.join(self.work, "objs", "library")
        os.makedirs(objdir, exist_ok=True)
        out = os.path.join(self.work, "out")
        os.makedirs(out, exist_ok=True)
        rows = []
        # Assembling 10,000 members takes minutes, so the objects are kept between runs, but only for
        # the ptxlink-as binary that made them (a new build may write a new object format).
        if self.tools["ptxlink-as"]:
            stamp = os.path.join(objdir, "assembler.sha256")
            digest = hashlib.sha256(open(self.tools["ptxlink-as"], "rb").read()).hexdigest()
            if not os.path.exists(stamp) or open(stamp).read() != digest:
                shutil.rmtree(objdir)
                os.makedirs(objdir)
                with open(stamp, "w") as f:
                    f.write(digest)
        if not self.tools["ptxlink-as"]:
            self.say("ptxlink-as not built: no objects to archive.")
            self.say()
            self.results["archive"] = res
            return
        objs = [os.path.join(objdir, os.path.basename(p)[:-4] + ".o") for p in self.library]
        todo = [p for p, o in zip(self.library, objs) if not os.path.exists(o)]
        cpu, wall, rss, fails, _ = self.run_each(
            lambda p: [self.tools["ptxlink-as"], p, "-o", os.path.join(objdir, os.path.basename(p)[:-4] + ".o")], todo,
            repeat=1)
        if todo:
            res["assemble_members"] = {"files": len(todo), "cpu": cpu, "wall": wall, "failures": len(fails)}
        if fails:
            self.say("ptxlink-as failed on %d members, e.g. %s" % (len(fails), fails[0]))
            self.say()
            self.results["archive"] = res
            return
        main_o = os.path.join(objdir, "main.o")
        r = Run([self.tools["ptxlink-as"], self.library_main, "-o", main_o])
        obj_mb = total_size(objs) / 1e6
        res["objects_mb"] = obj_mb
        lib_ours = os.path.join(out, "libbig.a")
        lib_ref = os.path.join(out, "libbig-llvm.a")
        ref = None
        if self.llvm_ar:
            def llvm_ar():
                if os.path.exists(lib_ref):
                    os.remove(lib_ref)
                return Run([self.llvm_ar, "rcs", lib_ref] + objs)
            runs = [llvm_ar() for _ in range(self.args.repeat)]
            if all(x.ok for x in runs):
                ref = {"wall": statistics.median(x.wall for x in runs), "cpu": statistics.median(x.cpu for x in runs),
                       "rss_kb": max(x.rss_kb for x in runs)}
                rows.append(("llvm-ar rcs (reference)", ref, None))
            else:
                rows.append(("llvm-ar rcs (reference)", None, [x for x in runs if not x.ok][0].error()))
        res["llvm-ar"] = ref
        if self.tools["ptxlink-ar"]:
            def ours_ar():
                if os.path.exists(lib_ours):
                    os.remove(lib_ours)
                return Run([self.tools["ptxlink-ar"], "rcs", lib_ours] + objs)
            runs = [ours_ar() for _ in range(self.args.repeat)]
            if all(x.ok for x in runs):
                m = {"wall": statistics.median(x.wall for x in runs), "cpu": statistics.median(x.cpu for x in runs),
                     "rss_kb": max(x.rss_kb for x in runs), "archive_mb": os.path.getsize(lib_ours) / 1e6}
                rows.append(("ptxlink-ar rcs", m, None))
                res["ptxlink-ar"] = m
            else:
                err = [x for x in runs if not x.ok][0].error()
                rows.append(("ptxlink-ar rcs", None, err))
                res["ptxlink-ar"] = err
        else:
            rows.append(("ptxlink-ar rcs", None, "not built"))
        if self.tools["ptxlink-ar"]:
            # ptxlink-ar also takes .ptx members and assembles them in-process: no process start-up each.
            lib_ptx = os.path.join(out, "libbig-from-ptx.a")
            if os.path.exists(lib_ptx):
                os.remove(lib_ptx)
            r3 = Run([self.tools["ptxlink-ar"], "rcs", lib_ptx] + self.library)
            rows.append(("ptxlink-ar rcs from the %d .ptx files (assembles in-process, %.1f MB PTX)"
                         % (n, total_size(self.library) / 1e6), r3.__dict__ if r3.ok else None,
                         None if r3.ok else r3.error()))
            res["ptxlink-ar from ptx"] = {"wall": r3.wall, "cpu": r3.cpu, "rss_kb": r3.rss_kb} if r3.ok else r3.error()
        if self.tools["ptxlink"] and r.ok:
            lib = lib_ours if os.path.exists(lib_ours) else lib_ref if os.path.exists(lib_ref) else None
            if lib:
                m, err = self.repeat([self.tools["ptxlink"], "-arch", "sm_80", main_o, lib, "-o",
                                      os.path.join(out, "libprog.fatbin")])
                rows.append(("ptxlink -arch sm_80 main.o %s" % os.path.basename(lib), m, err))
                res["ptxlink link"] = m if m else err
                linked = os.path.join(out, "libprog.ptx")
                r2 = Run([self.tools["ptxlink"], "-arch", "sm_80", "--emit", "ptx", main_o, lib, "-o", linked])
                if r2.ok:
                    # Bodies open with a "{" line of their own; kernels are the ".entry" headers.
                    text = open(linked).read().splitlines()
                    res["linked_functions"] = (sum(1 for line in text if line == "{")
                                               - sum(1 for line in text if ".entry " in line))
                m2, err2 = self.repeat([self.tools["ptxlink"], "-arch", "sm_80", main_o] + objs +
                                       ["-o", os.path.join(out, "libprog-all.fatbin")])
                rows.append(("ptxlink -arch sm_80 main.o + all %d objects (no archive)" % n, m2, err2))
                res["ptxlink link all objects"] = m2 if m2 else err2
        elif not r.ok:
            rows.append(("ptxlink-as main.ptx", None, r.error()))
        self.say("Objects: %d files, %.1f MB. Median of %d runs." % (n, obj_mb, self.args.repeat))
        if "assemble_members" in res:
            a = res["assemble_members"]
            self.say("Assembling the members (once, cached afterwards): %d ptxlink-as processes, %.1f s CPU, %.1f s wall."
                     % (a["files"], a["cpu"], a["wall"]))
        if "linked_functions" in res:
            self.say("The linked program holds %d function definitions (main needs %d members directly; the rest are "
                     "their callees)." % (res["linked_functions"], max(1, n // 100)))
        self.say()
        self.say("| command | wall s | CPU s | peak RSS MB | vs llvm-ar |")
        self.say("|---|---|---|---|---|")
        for name, m, err in rows:
            if m is None:
                self.say("| %s | %s | | | |" % (name, err))
            else:
                ratio = "%.2fx" % (m["wall"] / ref["wall"]) if ref and ref["wall"] and name.split()[0].endswith("-ar") else ""
                self.say("| %s | %.3f | %.3f | %.1f | %s |" % (name, m["wall"], m["cpu"], m["rss_kb"] / 1024, ratio))
        self.say()
        self.results["archive"] = res

    def header(self):
        # The tools measured are the build directory's; say which sources they were built from.
        src = ROOT
        cache = os.path.join(os.path.dirname(self.bin), "CMakeCache.txt")
        if os.path.exists(cache):
            for line in open(cache, errors="replace"):
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    src = line.split("=", 1)[1].strip()
        rev = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        if rev and dirty:
            rev += " with uncommitted changes"
        self.say("# ptxlink benchmark run")
        self.say()
        self.say("- date: %s, tools built from commit %s, host: %s, %d cores (%s)" % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), rev or "?", platform.node() or "?",
            os.cpu_count() or 0, platform.processor() or platform.machine()))
        built = [t for t, p in self.tools.items() if p]
        missing = [t for t, p in self.tools.items() if not p]
        self.say("- ptxlink tools built: %s%s" % (", ".join(built) or "none",
                                                 "; not built: " + ", ".join(missing) if missing else ""))
        self.say("- reference tools: ptxas %s, nvlink %s, llvm-ar %s" % (
            "yes" if self.ptxas else "absent", "yes" if self.nvlink else "absent", "yes" if self.llvm_ar else "absent"))
        self.say("- generated program: %d modules x %d functions (+3 kernels each), %.1f MB PTX; real output: %d files, %.2f MB" % (
            self.args.modules, self.args.funcs, total_size(self.program) / 1e6, len(self.real), total_size(self.real) / 1e6))
        self.say()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.environ.get("PTXLINK_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work"))
    ap.add_argument("--modules", type=int, default=200)
    ap.add_argument("--funcs", type=int, default=20)
    ap.add_argument("--library", type=int, default=10000)
    ap.add_argument("--nvcc-functions", type=int, default=4000,
                    help="device functions in the large nvcc module (bench/gen_cuda.py); 0 = leave it out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small sizes (20 modules, 1000 members, 1 repeat)")
    ap.add_argument("--report", help="also write the Markdown report here")
    ap.add_argument("--json", help="write the raw results here")
    args = ap.parse_args()
    if args.quick:
        args.modules, args.library, args.repeat, args.nvcc_functions = 20, 1000, 1, 400
        if args.work == os.path.join(ROOT, "bench", "work"):
            args.work = os.path.join(ROOT, "bench", "work", "quick")
    os.makedirs(args.work, exist_ok=True)
    global LAUNCHER
    LAUNCHER = build_launcher(args.work)
    b = Bench(args)
    b.generate()
    b.header()
    b.bench_assemble()
    b.bench_link()
    b.bench_archive()
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(b.lines) + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(b.results, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
