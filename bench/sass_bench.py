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
Every figure is wall-clock time of one run on this machine, printed as ratios. The cache lives in a
temporary folder (never the user's).

Usage: sass_bench.py [--modules 100] [--funcs 20] [--jobs N] [--arch sm_90] [--keep DIR] [--whole-program]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(argv, **kw):
    subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules", type=int, default=100)
    ap.add_argument("--funcs", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--keep", help="work in this folder and keep it")
    ap.add_argument("--whole-program", action="store_true", help="also time ptxlink --sass --whole-program")
    a = ap.parse_args()
    ptxas, nvlink = shutil.which("ptxas"), shutil.which("nvlink")
    if not ptxas or not nvlink:
        sys.exit("sass_bench: needs ptxas and nvlink on PATH")
    work = a.keep or tempfile.mkdtemp(prefix="sass-bench-")
    os.makedirs(work, exist_ok=True)
    src, objs, nv, cache = (os.path.join(work, d) for d in ("ptx", "obj", "nv", "cache"))
    shutil.rmtree(cache, ignore_errors=True)
    for d in (objs, nv):
        os.makedirs(d, exist_ok=True)
    run([sys.executable, os.path.join(ROOT, "bench", "gen_program.py"), src, "--modules", str(a.modules),
         "--funcs", str(a.funcs), "--debug-every", "0"])
    mods = sorted(f[:-4] for f in os.listdir(src) if f.endswith(".ptx"))
    as_, link = os.path.join(a.bin, "ptxlink-as"), os.path.join(a.bin, "ptxlink")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    pool = ThreadPoolExecutor(a.jobs)

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
        return subprocess.run(link_argv + extra, check=True, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True).stdout

    # NVIDIA, full build.
    rss = []
    t_nv_ptxas = timed(lambda: rss.extend(pool.map(ptxas_c, mods)))
    t_nv_link = timed(nvlink_all)
    t_nv_full = t_nv_ptxas + t_nv_link

    # ptxlink, full build from scratch.
    t_as = timed(lambda: list(pool.map(assemble, mods)))
    out = {}
    t_cold_link = timed(lambda: out.update(cold=ptxlink(["--sass", "-v"])))
    m = re.search(r"peak RSS of ptxlink itself: (\d+) KB", out["cold"])
    own_rss = int(m.group(1)) if m else 0
    t_cold = t_as + t_cold_link
    t_warm = timed(lambda: ptxlink(["--sass"]))
    t_ptx_only = timed(lambda: ptxlink([]))

    # One function in one module changed: its first float constant.
    victim = mods[len(mods) // 2]
    path = os.path.join(src, victim + ".ptx")
    text = open(path).read()
    # In a kernel (always live), so that the edit reaches the code ptxas compiles.
    at = text.find(".entry")
    k = re.compile(r"0f[0-9A-F]{8}").search(text, at)
    if at < 0 or not k:
        sys.exit("sass_bench: no float constant in a kernel of " + path)
    text2 = text[:k.start()] + ("0f3F800001" if k.group(0) != "0f3F800001" else "0f3F800002") + text[k.end():]
    open(path, "w").write(text2)
    t_nv_one = timed(lambda: ptxas_c(victim)) + timed(nvlink_all)
    t_one = timed(lambda: assemble(victim)) + timed(lambda: ptxlink(["--sass"]))

    # Whole-program mode for reference (one ptxas over the linked module): slow, only when asked.
    t_whole = timed(lambda: ptxlink(["--sass", "--whole-program", "--no-cache"])) if a.whole_program else None

    size = sum(os.path.getsize(os.path.join(src, m + ".ptx")) for m in mods)
    print("sass_bench: %d modules (%.1f MB of PTX), %s, %d jobs, one run" % (len(mods), size / 1e6, a.arch, a.jobs))
    print("  NVIDIA full build (ptxas -c x%d, -P%d, + nvlink): %.2f s (nvlink %.2f s)" %
          (len(mods), a.jobs, t_nv_full, t_nv_link))
    print("  ptxlink full build, cold cache (ptxlink-as + ptxlink --sass): %.2f s -> %.2fx NVIDIA's time"
          % (t_cold, t_cold / t_nv_full))
    print("  one module changed: NVIDIA %.3f s, ptxlink %.3f s -> %.2fx NVIDIA's time" % (t_nv_one, t_one, t_one / t_nv_one))
    print("  warm-cache full link: %.3f s; PTX-only link %.3f s + nvlink %.3f s = %.3f s -> %.2fx"
          % (t_warm, t_ptx_only, t_nv_link, t_ptx_only + t_nv_link, t_warm / (t_ptx_only + t_nv_link)))
    print("  peak RSS: ptxlink itself %.1f MB, largest ptxas %.1f MB -> %.2fx" % (own_rss / 1024, max(rss) / 1024,
                                                                              own_rss / max(rss)))
    if t_whole is not None:
        print("  --whole-program (one ptxas run, no cache): %.2f s -> %.2fx NVIDIA's full build" % (t_whole, t_whole / t_nv_full))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
