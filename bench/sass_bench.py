#!/usr/bin/env python3
"""Benchmark of `ptxlink --sass` against NVIDIA's per-module pipeline (ptxas -c per module + nvlink).

The problem: SASS generation is the slow part of a link with machine code; issue 13's targets are ratios
against what NVIDIA's separate compilation costs on the same modules with the same parallelism:
  * full build from scratch (ptxlink-as of every module + ptxlink --sass, empty cache)
      vs ptxas -c of every module (-P jobs) + nvlink;
  * one module changed (one function's constant edited): ptxlink-as of that module + ptxlink --sass
      (warm cache) vs ptxas -c of that module + nvlink;
  * full build with a warm cache vs the PTX-only link plus nvlink's time;
  * peak memory of ptxlink itself (its children excluded: `-v` reports its own) vs the largest
      ptxas process of NVIDIA's pipeline.
Two programs: bench's generated one (gen_program.py, modules that share nothing) and, with --cuda, real
nvcc output of a multi-file CUDA program (gen_cuda_program.py: templates, CUB and thrust instantiated in
many files, cross-file __device__ calls, file-static kernels), compiled with `nvcc -rdc=true -ptx` once and
kept by content under bench/work/cuda-ptx (nvcc takes ~10 s a file).
Wall-clock times on a shared machine drift by tens of percent within minutes, so with --rounds N each
case runs N times with NVIDIA's and ptxlink's commands interleaved (their order alternating), and the
ratio printed is the median of the per-round ratios. The cache lives in a temporary folder (never the
user's) and is emptied before every cold build. Each case also prints the CPU time (user + system) of the
processes it ran (ptxlink's own threads, ptxas, nvlink), which varies much less on a shared machine.

With --dlink (issue 27), a third case on the CUDA program: its files compiled once by
`nvcc -dc -gencode arch=compute_XX,code=[sm_XX,compute_XX]` (objects with SASS beside the PTX, kept by
content under bench/work/cuda-dc), then the cold device link: `ptxlink --sass --emit host-object` with an
empty cache (which takes the objects' own cubins) against `nvcc -dlink` on the same objects, interleaved,
and `ptxlink --sass --recompile-sass` (every module compiled from PTX again) for reference. With --remote
too (nginx with WebDAV on PATH or in /usr/sbin), the remote cache's case on the same objects compiled from
PTX (--recompile-sass, so that there are units to share): a first machine fills a local cache and the
server; then, interleaved, the warm local link against a second machine's link with an empty local cache
and the warm server.

Usage: sass_bench.py [--modules 100] [--funcs 20] [--cuda [--cuda-files 24]] [--no-generated]
                     [--rounds 1] [--jobs N] [--arch sm_90] [--keep DIR] [--whole-program] [--dlink [--remote]]
"""

import argparse
import hashlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(argv, **kw):
    subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


class Span(float):
    """Wall-clock seconds (the float itself) with the CPU seconds (user + system) of the child processes
    that ran meanwhile, `.cpu`: on a shared machine the CPU time of the tools varies much less than the
    wall-clock time. Sums add both."""

    def __new__(cls, wall, cpu):
        s = super().__new__(cls, wall)
        s.cpu = cpu
        return s

    def __add__(self, other):
        return Span(float(self) + float(other), self.cpu + getattr(other, "cpu", 0.0))

    __radd__ = __add__


def timed(fn):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    fn()
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Span(wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)


def cuda_program_ptx(a, pool):
    """The CUDA program's PTX files: generated sources, each compiled by nvcc unless its PTX is cached
    (key: the source, the shared header, nvcc's version and options)."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        sys.exit("sass_bench: --cuda needs nvcc on PATH")
    srcdir = os.path.join(a.work_root, "cuda-src-%d" % a.cuda_files)
    run([sys.executable, os.path.join(ROOT, "bench", "gen_cuda_program.py"), srcdir, "--files", str(a.cuda_files)])
    cache = os.path.join(a.work_root, "cuda-ptx")
    os.makedirs(cache, exist_ok=True)
    version = subprocess.run([nvcc, "--version"], check=True, stdout=subprocess.PIPE, text=True).stdout
    flags = ["-rdc=true", "-ptx", "-arch=" + a.arch]
    header = open(os.path.join(srcdir, "common.cuh"), "rb").read()
    sources = sorted(f for f in os.listdir(srcdir) if f.endswith(".cu"))

    def compile_one(cu):
        h = hashlib.sha256(open(os.path.join(srcdir, cu), "rb").read() + header + version.encode() +
                           " ".join(flags).encode()).hexdigest()[:20]
        ptx = os.path.join(cache, "%s-%s.ptx" % (cu[:-3], h))
        if not os.path.exists(ptx):
            run([nvcc] + flags + [os.path.join(srcdir, cu), "-o", ptx + ".tmp"])
            os.rename(ptx + ".tmp", ptx)
        return ptx

    return list(pool.map(compile_one, sources))


def cuda_program_objects(a, pool):
    """The CUDA program's nvcc -dc objects with SASS and PTX for a.arch, each compiled unless kept (key: the
    source, the shared header, nvcc's version and options)."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        sys.exit("sass_bench: --dlink needs nvcc on PATH")
    srcdir = os.path.join(a.work_root, "cuda-src-%d" % a.cuda_files)
    run([sys.executable, os.path.join(ROOT, "bench", "gen_cuda_program.py"), srcdir, "--files", str(a.cuda_files)])
    cache = os.path.join(a.work_root, "cuda-dc")
    os.makedirs(cache, exist_ok=True)
    version = subprocess.run([nvcc, "--version"], check=True, stdout=subprocess.PIPE, text=True).stdout
    n = a.arch.split("_")[1]
    flags = ["-dc", "-gencode", "arch=compute_%s,code=[sm_%s,compute_%s]" % (n, n, n)]
    header = open(os.path.join(srcdir, "common.cuh"), "rb").read()
    sources = sorted(f for f in os.listdir(srcdir) if f.endswith(".cu"))

    def compile_one(cu):
        h = hashlib.sha256(open(os.path.join(srcdir, cu), "rb").read() + header + version.encode() +
                           " ".join(flags).encode()).hexdigest()[:20]
        obj = os.path.join(cache, "%s-%s.o" % (cu[:-3], h))
        if not os.path.exists(obj):
            run([nvcc] + flags + [os.path.join(srcdir, cu), "-o", obj + ".tmp.o"])
            os.rename(obj + ".tmp.o", obj)
        return obj

    return list(pool.map(compile_one, sources))


def bench_dlink(a, objects, work):
    """Cold device link of nvcc objects that carry SASS: ptxlink --sass vs nvcc -dlink; returns the lines."""
    nvcc = shutil.which("nvcc")
    link = os.path.join(a.bin, "ptxlink")
    cache = os.path.join(work, "cache")
    n = a.arch.split("_")[1]
    os.makedirs(work, exist_ok=True)
    R = {"nv": [], "ours": [], "recompile": []}

    def nv():
        R["nv"].append(timed(lambda: run([nvcc, "-dlink", "-gencode", "arch=compute_%s,code=sm_%s" % (n, n)] + objects +
                                         ["-o", os.path.join(work, "nv_dlink.o")])))

    def ours(extra, key):
        shutil.rmtree(cache, ignore_errors=True)
        R[key].append(timed(lambda: run([link, "-arch", a.arch, "--sass", "--emit", "host-object", "-j", str(a.jobs),
                                         "--cache-dir", cache] + extra + objects +
                                        ["-o", os.path.join(work, "ptxlink_dlink.o")])))

    for rnd in range(a.rounds):
        steps = (nv, lambda: ours([], "ours")) if rnd % 2 == 0 else (lambda: ours([], "ours"), nv)
        for step in steps:
            step()
    ours(["--recompile-sass"], "recompile")
    # What the link did: units from the inputs' SASS, compiled.
    shutil.rmtree(cache, ignore_errors=True)
    verbose = subprocess.run([link, "-arch", a.arch, "--sass", "--emit", "host-object", "-v", "--cache-dir", cache] +
                             objects + ["-o", os.path.join(work, "ptxlink_dlink.o")], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    summary = next((l for l in verbose.splitlines() if l.startswith("ptxlink: SASS:")), "")
    remote_lines = bench_remote(a, objects, work, link) if a.remote else []
    rs = [o / v for o, v in zip(R["ours"], R["nv"])]
    cpu = [o.cpu / v.cpu for o, v in zip(R["ours"], R["nv"]) if v.cpu > 0]
    med = statistics.median
    return ["CUDA program as nvcc -dc objects with SASS (%d files, %s, %d round(s)): cold device link" %
            (len(objects), a.arch, a.rounds),
            "  nvcc -dlink %.3f s; ptxlink --sass --emit host-object (empty cache) %.3f s -> %.2fx [%s]" %
            (med(R["nv"]), med(R["ours"]), med(rs), ", ".join("%.2f" % r for r in rs)),
            "    CPU: nvcc -dlink %.3f s, ptxlink %.3f s -> %.2fx" %
            (med(x.cpu for x in R["nv"]), med(x.cpu for x in R["ours"]), med(cpu) if cpu else 0.0),
            "  (%s)" % summary.replace("ptxlink: ", ""),
            "  for reference, --recompile-sass (every module from its PTX): %.3f s -> %.2fx nvcc -dlink" %
            (R["recompile"][0], R["recompile"][0] / med(R["nv"]))] + remote_lines


def bench_remote(a, objects, work, link):
    """A second machine (empty local cache) against a warm remote cache, vs the warm local link."""
    helper = os.path.join(ROOT, "tests", "lit", "linker", "Inputs", "remote-cache", "nginx_dav.py")
    server = os.path.join(work, "server")
    url = subprocess.run([sys.executable, helper, "start", server], check=True, stdout=subprocess.PIPE,
                         text=True).stdout.strip() + "/cache"
    try:
        base = [link, "-arch", a.arch, "--sass", "--recompile-sass", "--emit", "host-object", "-j", str(a.jobs),
                "--remote-cache", url] + objects + ["-o", os.path.join(work, "remote_dlink.o")]
        first, second = os.path.join(work, "cache-first"), os.path.join(work, "cache-second")
        shutil.rmtree(first, ignore_errors=True)
        cold = timed(lambda: run(base + ["--cache-dir", first]))
        warm, fetched = [], []

        def local():
            warm.append(timed(lambda: run(base + ["--cache-dir", first])))

        def remote():
            shutil.rmtree(second, ignore_errors=True)
            fetched.append(timed(lambda: run(base + ["--cache-dir", second])))

        for rnd in range(a.rounds):
            for step in ((local, remote) if rnd % 2 == 0 else (remote, local)):
                step()
        med = statistics.median
        rs = [f / w for f, w in zip(fetched, warm)]
        return ["  remote cache (nginx WebDAV on localhost; units compiled from PTX, --recompile-sass): first machine "
                "cold %.2f s; warm local link %.3f s; second machine, empty local cache, warm server %.3f s -> %.2fx "
                "the warm local link [%s]" % (cold, med(warm), med(fetched), med(rs), ", ".join("%.2f" % r for r in rs))]
    finally:
        subprocess.run([sys.executable, helper, "stop", server])


def bench_program(a, label, ptx_files, work, pool):
    """The four cases on one program; returns the printed lines."""
    ptxas, nvlink = shutil.which("ptxas"), shutil.which("nvlink")
    src, objs, nv, cache = (os.path.join(work, d) for d in ("ptx", "obj", "nv", "cache"))
    for d in (src, objs, nv):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    mods = []
    for p in ptx_files:  # private copies: the one-module-changed case edits one
        m = os.path.basename(p)[:-4]
        shutil.copyfile(p, os.path.join(src, m + ".ptx"))
        mods.append(m)
    as_, link = os.path.join(a.bin, "ptxlink-as"), os.path.join(a.bin, "ptxlink")
    env = dict(os.environ, XDG_CACHE_HOME=cache)

    def ptxas_c(m):
        # GNU time reports this ptxas's own peak RSS (ptxas has no children).
        out = subprocess.run(["/usr/bin/time", "-f", "%M", ptxas, "-c", "-arch=" + a.arch,
                              os.path.join(src, m + ".ptx"), "-o", os.path.join(nv, m + ".cubin")],
                             check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return int(out.stderr.strip().splitlines()[-1])

    def nvlink_all():
        run([nvlink, "-arch=" + a.arch, "-o", os.path.join(work, "nv.cubin")] +
            [os.path.join(nv, m + ".cubin") for m in mods])

    def assemble(m):
        run([as_, os.path.join(src, m + ".ptx"), "-o", os.path.join(objs, m + ".o")])

    link_argv = [link, "-arch", a.arch, "-j", str(a.jobs), "-o", os.path.join(work, "out.fatbin")] + \
        [os.path.join(objs, m + ".o") for m in mods]

    def ptxlink(extra):
        # -v lines (the peak RSS line among them) are on standard error: standard output is the output's.
        r = subprocess.run(link_argv + extra, check=True, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        return r.stdout + r.stderr

    # The edits for the one-module-changed case: the first float constant after the first exported kernel
    # (a kernel is always live, so the edit reaches the code ptxas compiles) of the middle module and, as
    # a second case, of the first module: in an nvcc program that one holds most of the template
    # instantiations that won resolution (the first weak definition wins), so its unit is the largest.
    def edits_of(m):
        path = os.path.join(src, m + ".ptx")
        original = open(path).read()
        at = original.find(".visible .entry")
        at = at if at >= 0 else original.find(".entry")
        k = re.compile(r"0f[0-9A-F]{8}").search(original, max(at, 0))
        if at < 0 or not k:
            sys.exit("sass_bench: no float constant in a kernel of " + path)
        return path, original, [original[:k.start()] + c + original[k.end():] for c in ("0f3F800001", "0f3F800002")]

    victims = [("middle", mods[len(mods) // 2])] + ([("first", mods[0])] if len(mods) > 2 else [])
    edits = {m: edits_of(m) for _, m in victims}

    R = {key: [] for key in ("nv_full", "nv_link", "cold", "warm", "ptx_only", "own_rss", "ptxas_rss")}
    for _, m in victims:
        R["one_nv " + m], R["one " + m] = [], []
    for rnd in range(a.rounds):
        for path, original, _ in edits.values():
            open(path, "w").write(original)

        def nv_full():
            rss = []
            t = timed(lambda: rss.extend(pool.map(ptxas_c, mods)))
            tl = timed(nvlink_all)
            R["nv_full"].append(t + tl)
            R["nv_link"].append(tl)
            R["ptxas_rss"].append(max(rss))

        def ours_cold():
            shutil.rmtree(cache, ignore_errors=True)
            out = {}
            t = timed(lambda: list(pool.map(assemble, mods)))
            t += timed(lambda: out.update(cold=ptxlink(["--sass", "-v"])))
            R["cold"].append(t)
            m = re.search(r"peak RSS of ptxlink itself: (\d+) KB", out["cold"])
            R["own_rss"].append(int(m.group(1)) if m else 0)

        for step in ((nv_full, ours_cold) if rnd % 2 == 0 else (ours_cold, nv_full)):
            step()
        # Warm cache against the PTX-only link (+ nvlink's time, measured above in this round).
        R["warm"].append(timed(lambda: ptxlink(["--sass"])))
        R["ptx_only"].append(timed(lambda: ptxlink([])))
        # One module changed (a different constant each round, so that it always misses the cache); the
        # module is restored (and rebuilt by both) before the next victim.
        for _, victim in victims:
            path, original, edited = edits[victim]
            open(path, "w").write(edited[rnd % 2])

            def nv_one():
                R["one_nv " + victim].append(timed(lambda: ptxas_c(victim)) + timed(nvlink_all))

            def ours_one():
                R["one " + victim].append(timed(lambda: assemble(victim)) + timed(lambda: ptxlink(["--sass"])))

            for step in ((nv_one, ours_one) if rnd % 2 == 0 else (ours_one, nv_one)):
                step()
            open(path, "w").write(original)
            ptxas_c(victim)
            assemble(victim)
            ptxlink(["--sass"])

    # Whole-program mode for reference (one ptxas over the linked module): slow, only when asked.
    t_whole = timed(lambda: ptxlink(["--sass", "--whole-program", "--no-cache"])) if a.whole_program else None

    def med(key):
        return statistics.median(R[key])

    def cpu(key):
        return statistics.median(x.cpu for x in R[key])

    def ratio(num, den):
        rs = [n / d for n, d in zip(num, den)]
        return statistics.median(rs), rs

    def cpu_ratio(num, den):
        return statistics.median(n.cpu / d.cpu for n, d in zip(num, den) if d.cpu > 0)

    def fmt(rs):
        return ", ".join("%.2f" % r for r in rs)

    size = sum(os.path.getsize(os.path.join(src, m + ".ptx")) for m in mods)
    lines = ["%s: %d modules (%.1f MB of PTX), %s, %d jobs, %d round(s); times are medians, ratios the median "
             "of the per-round ratios (each round's listed)" % (label, len(mods), size / 1e6, a.arch, a.jobs, a.rounds)]
    r, rs = ratio(R["cold"], R["nv_full"])
    lines.append("  full build: NVIDIA (ptxas -c x%d, -P%d, + nvlink) %.2f s (nvlink %.2f s); ptxlink, cold cache "
                 "(ptxlink-as + ptxlink --sass) %.2f s -> %.2fx NVIDIA's time [%s]"
                 % (len(mods), a.jobs, med("nv_full"), med("nv_link"), med("cold"), r, fmt(rs)))
    lines.append("    CPU: NVIDIA %.2f s, ptxlink %.2f s -> %.2fx"
                 % (cpu("nv_full"), cpu("cold"), cpu_ratio(R["cold"], R["nv_full"])))
    for where, victim in victims:
        r, rs = ratio(R["one " + victim], R["one_nv " + victim])
        lines.append("  one module changed (%s, %s): NVIDIA %.3f s, ptxlink %.3f s -> %.2fx [%s]"
                     % (where, victim, med("one_nv " + victim), med("one " + victim), r, fmt(rs)))
        lines.append("    CPU: NVIDIA %.3f s, ptxlink %.3f s -> %.2fx"
                     % (cpu("one_nv " + victim), cpu("one " + victim),
                        cpu_ratio(R["one " + victim], R["one_nv " + victim])))
    ref = [p + n for p, n in zip(R["ptx_only"], R["nv_link"])]
    r, rs = ratio(R["warm"], ref)
    lines.append("  warm-cache full link: %.3f s; PTX-only link %.3f s + nvlink %.3f s -> %.2fx [%s]"
                 % (med("warm"), med("ptx_only"), med("nv_link"), r, fmt(rs)))
    lines.append("    CPU: %.3f s; PTX-only link %.3f s + nvlink %.3f s -> %.2fx"
                 % (cpu("warm"), cpu("ptx_only"), cpu("nv_link"), cpu_ratio(R["warm"], ref)))
    own, big = max(R["own_rss"]), max(R["ptxas_rss"])
    lines.append("  peak RSS: ptxlink itself %.1f MB, largest ptxas %.1f MB -> %.2fx" % (own / 1024, big / 1024, own / big))
    if t_whole is not None:
        lines.append("  --whole-program (one ptxas run, no cache): %.2f s -> %.2fx NVIDIA's full build"
                     % (t_whole, t_whole / med("nv_full")))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules", type=int, default=100)
    ap.add_argument("--funcs", type=int, default=20)
    ap.add_argument("--cuda", action="store_true", help="also the nvcc-compiled CUDA program (gen_cuda_program.py)")
    ap.add_argument("--cuda-files", type=int, default=24)
    ap.add_argument("--no-generated", action="store_true", help="leave out bench's generated program")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--work-root", default=os.path.join(ROOT, "bench", "work"), help="where nvcc's PTX is kept")
    ap.add_argument("--keep", help="work in this folder and keep it")
    ap.add_argument("--whole-program", action="store_true", help="also time ptxlink --sass --whole-program")
    ap.add_argument("--remote", action="store_true",
                    help="with --dlink: a second machine with an empty local cache and a warm remote cache (nginx)")
    ap.add_argument("--dlink", action="store_true",
                    help="the CUDA program as nvcc -dc objects with SASS: cold ptxlink --sass vs nvcc -dlink")
    a = ap.parse_args()
    if not shutil.which("ptxas") or not shutil.which("nvlink"):
        sys.exit("sass_bench: needs ptxas and nvlink on PATH")
    work = a.keep or tempfile.mkdtemp(prefix="sass-bench-")
    os.makedirs(work, exist_ok=True)
    pool = ThreadPoolExecutor(a.jobs)
    programs = []
    if not a.no_generated:
        gen = os.path.join(work, "generated-src")
        shutil.rmtree(gen, ignore_errors=True)
        run([sys.executable, os.path.join(ROOT, "bench", "gen_program.py"), gen, "--modules", str(a.modules),
             "--funcs", str(a.funcs), "--debug-every", "0"])
        programs.append(("generated program (gen_program.py)",
                         sorted(os.path.join(gen, f) for f in os.listdir(gen) if f.endswith(".ptx"))))
    if a.cuda:
        programs.append(("CUDA program (gen_cuda_program.py, nvcc -rdc=true -ptx)", cuda_program_ptx(a, pool)))
    for i, (label, files) in enumerate(programs):
        print("\n".join(bench_program(a, label, files, os.path.join(work, "p%d" % i), pool)), flush=True)
    if a.dlink:
        print("\n".join(bench_dlink(a, cuda_program_objects(a, pool), os.path.join(work, "dlink"))), flush=True)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
