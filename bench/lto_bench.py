#!/usr/bin/env python3
"""Link-time optimisation: how long `ptxlink -dlto` takes against NVIDIA's own ways of making the same link.

The problem: ptxlink -dlto runs its own link and checks on the objects' PTX and then libnvJitLink; is that
cheap next to the optimisation itself, and how does it compare with `nvcc -dlink -dlto` (nvlink with
libnvvm) and with an application calling libnvJitLink directly? This generates a multi-file CUDA program
(bench/gen_lto_program.py: kernels calling small device functions of other files), compiles it once with
`nvcc -dc -dlto` (kept by content under the work folder), and times, each --runs times (median, wall):

  ptxlink      ptxlink -dlto --no-cache --emit host-object        (no split compilation)
  ptxlink-j1   the same with -j1 (ptxlink's own passes on one thread)
  ptxlink-j2   the same with -j2 (and nvJitLink -split-compile=2)
  ptxlink-hit  ptxlink -dlto --emit host-object, nvJitLink's result in the cache
  nvjitlink    libnvJitLink called directly, -arch=sm_XX -lto, the same objects (a cubin only)
  nvjitlink-s2 the same with -split-compile=2
  nvcc-dlink   nvcc -dlink -dlto, run as its -dryrun commands with nvlink's -nvvmpath pointed at a
               folder that has lib64/libnvvm.so (CUDA 13 keeps libnvvm in the toolkit's lib64, where
               nvcc's own -nvvmpath does not look) and libdevice

Usage: bench/lto_bench.py [--files 24] [--arch sm_80] [--runs 3] [--ptxlink build/bin/ptxlink]
                          [--work /tmp/ptxlink-lto-bench]
"""

import argparse
import re
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ptxlink", default=os.path.join(HERE, "..", "build", "bin", "ptxlink"))
    ap.add_argument("--work", default="/tmp/ptxlink-lto-bench")
    ap.add_argument("--cuda", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    a = ap.parse_args()
    cuda_bin = os.path.join(a.cuda, "bin")
    lib = os.path.join(a.cuda, "lib64", "libnvJitLink.so")
    env = dict(os.environ, PATH=cuda_bin + os.pathsep + os.environ["PATH"])
    src = os.path.join(a.work, "src-%d" % a.files)
    if not os.path.isdir(src):
        run([sys.executable, os.path.join(HERE, "gen_lto_program.py"), src, "--files", str(a.files)])
    parts = sorted(f[:-3] for f in os.listdir(src) if f.startswith("part_") and f.endswith(".cu"))
    objs = [os.path.join(src, p + ".o") for p in parts]
    missing = [p for p, o in zip(parts, objs) if not os.path.exists(o)]
    if missing:
        print("compiling %d files with nvcc -dc -dlto (once)..." % len(missing), file=sys.stderr)
        procs = []
        for p in missing:  # two at a time: the machine is shared
            procs.append(subprocess.Popen(["nvcc", "-dc", "-dlto", "-O3", "-arch=" + a.arch, p + ".cu", "-o", p + ".o"],
                                          cwd=src, env=env))
            if len(procs) == 2:
                for q in procs:
                    assert q.wait() == 0
                procs = []
        for q in procs:
            assert q.wait() == 0
    out = os.path.join(a.work, "out")
    os.makedirs(out, exist_ok=True)
    cache = os.path.join(out, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    # nvcc -dlink -dlto as its own commands, nvlink pointed at libnvvm.
    nvvm = os.path.join(out, "nvvm")
    os.makedirs(os.path.join(nvvm, "lib64"), exist_ok=True)
    link = os.path.join(nvvm, "lib64", "libnvvm.so")
    if not os.path.exists(link):
        os.symlink(os.path.realpath(os.path.join(a.cuda, "lib64", "libnvvm.so")), link)
    if not os.path.exists(os.path.join(nvvm, "libdevice")):
        os.symlink(os.path.join(a.cuda, "nvvm", "libdevice"), os.path.join(nvvm, "libdevice"))
    dry = subprocess.run(["nvcc", "-dryrun", "-dlink", "-dlto", "-arch=" + a.arch] + objs +
                         ["-o", os.path.join(out, "nvcc_dlink.o")], env=env, capture_output=True, text=True)
    script = []
    for line in dry.stderr.splitlines():
        if not line.startswith("#$ "):
            continue
        cmd = line[3:]
        if not cmd.split(" ", 1)[0] in ("nvlink", "fatbinary", "rm", "gcc"):
            continue  # nvcc's environment settings, which the commands have expanded already
        if cmd.startswith("rm "):
            cmd = "rm -f " + cmd[3:]  # the same temporary names on every run
        if cmd.startswith("nvlink "):
            cmd = re.sub(r'-nvvmpath="[^"]*"', '-nvvmpath="%s"' % nvvm, cmd)
        script.append(cmd)
    script_path = os.path.join(out, "nvcc_dlink.sh")
    with open(script_path, "w") as f:
        f.write("set -e\n" + "\n".join(script) + "\n")

    ptxlink = [a.ptxlink, "-dlto", "-arch", a.arch, "--emit", "host-object"] + objs
    helper = os.path.join(HERE, "..", "tests", "lit", "lto", "Inputs", "nvjitlink.py")
    run(ptxlink + ["--cache-dir", cache, "-o", os.path.join(out, "p3.o")], env=env)  # fills the cache
    configs = [
        ("ptxlink", ptxlink + ["--no-cache", "-o", os.path.join(out, "p1.o")]),
        ("ptxlink-j1", ptxlink + ["-j1", "--no-cache", "-o", os.path.join(out, "p1.o")]),
        ("ptxlink-j2", ptxlink + ["-j2", "--no-cache", "-o", os.path.join(out, "p2.o")]),
        ("ptxlink-hit", ptxlink + ["--cache-dir", cache, "-o", os.path.join(out, "p3.o")]),
        ("nvjitlink", [sys.executable, helper, lib, os.path.join(out, "direct.cubin"), "-arch=" + a.arch, "-lto", "--"]
         + objs),
        ("nvjitlink-s2", [sys.executable, helper, lib, os.path.join(out, "direct2.cubin"), "-arch=" + a.arch, "-lto",
                          "-split-compile=2", "--"] + objs),
        ("nvcc-dlink", ["sh", script_path]),
    ]
    # Interleaved rounds (each command once per round): the machine's speed drifts from minute to minute.
    times = {name: [] for name, _ in configs}
    for _ in range(a.runs):
        for name, cmd in configs:
            start = time.perf_counter()
            run(cmd, env=env, cwd=out)
            times[name].append(time.perf_counter() - start)
    results = {name: (statistics.median(t), t) for name, t in times.items()}

    same = open(os.path.join(out, "direct.cubin"), "rb").read()
    base = results["nvjitlink"][0]
    print("%d files, %s, %d runs each (median wall seconds; ratio to nvJitLink called directly)" %
          (len(objs), a.arch, a.runs))
    for k, (med, all_) in results.items():
        print("  %-12s %8.3f s  %5.2fx   (%s)" % (k, med, med / base, ", ".join("%.3f" % t for t in all_)))
    extracted = os.path.join(out, "ex")
    shutil.rmtree(extracted, ignore_errors=True)
    run([os.path.join(os.path.dirname(a.ptxlink), "ptxlink-dump"), "--extract", extracted, os.path.join(out, "p1.o")])  # no -j
    cubins = [f for f in os.listdir(extracted) if f.endswith(".cubin")]
    ours = open(os.path.join(extracted, cubins[0]), "rb").read()
    print("  ptxlink's cubin %s nvJitLink's (%d bytes)" % ("is byte-identical to" if ours == same else "DIFFERS from",
                                                         len(ours)))


if __name__ == "__main__":
    main()
