#!/usr/bin/env python3
"""The nothing-changed relink (issue 28): a program's objects linked again with --sass when every SASS unit
is cached, against nvlink alone on the same program's cubins, and optionally against another build.

The problem it measures: a rebuild that changes nothing still runs the device link, and with every unit
cached what is left is ptxlink's own work on the objects (reading, resolving, printing and hashing the
units, writing the fatbinary), which should cost no more than nvlink's link of the cubins.

    python3 bench/relink_bench.py [--ptx-dir DIR | --cuda-files 24] [--bin build/bin] [--before OLD/bin]
                                  [--rounds 5] [--arch sm_90] [--work DIR]

The program is bench's CUDA program (gen_cuda_program.py, nvcc -rdc=true -ptx, kept by content as
sass_bench.py keeps it) unless --ptx-dir names a folder of PTX files. Each build assembles the PTX with
its own ptxlink-as, links once cold (filling its own cache), then the rounds run nvlink and each build's
warm link interleaved; ratios are per round, medians printed, and each build's `--time -` breakdown.
"""
import argparse, glob, os, resource, shutil, statistics, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))


def timed(argv, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx-dir")
    ap.add_argument("--cuda-files", type=int, default=24)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--before", help="another build's bin folder, measured beside --bin")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work", "relink"))
    ap.add_argument("--work-root", default=os.path.join(ROOT, "bench", "work"), help="where nvcc's PTX is kept")
    a = ap.parse_args()
    ptxas, nvlink = shutil.which("ptxas"), shutil.which("nvlink")
    if not ptxas or not nvlink:
        sys.exit("relink_bench: needs ptxas and nvlink on PATH")
    pool = ThreadPoolExecutor(a.jobs)
    if a.ptx_dir:
        ptx = sorted(glob.glob(os.path.join(a.ptx_dir, "*.ptx")))
    else:
        import sass_bench
        ptx = sass_bench.cuda_program_ptx(argparse.Namespace(work_root=a.work_root, cuda_files=a.cuda_files,
                                                              arch=a.arch), pool)
    os.makedirs(a.work, exist_ok=True)
    nv = os.path.join(a.work, "nv")
    os.makedirs(nv, exist_ok=True)

    def cubin(p):
        out = os.path.join(nv, os.path.basename(p)[:-4] + ".cubin")
        if not os.path.exists(out):
            subprocess.run([ptxas, "-c", "-arch=" + a.arch, p, "-o", out + ".tmp"], check=True)
            os.rename(out + ".tmp", out)
        return out

    cubins = list(pool.map(cubin, ptx))
    commands = {"nvlink": ([nvlink, "-arch=" + a.arch, "-o", os.path.join(a.work, "nv.cubin")] + cubins, None)}
    builds = [("after", a.bin)] + ([("before", a.before)] if a.before else [])
    for name, b in builds:
        objs = os.path.join(a.work, "obj-" + name)
        shutil.rmtree(objs, ignore_errors=True)
        os.makedirs(objs)
        subprocess.run([os.path.join(b, "ptxlink-as")] + ptx + ["--output-dir", objs], check=True)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(a.work, "cache-" + name))
        argv = [os.path.join(b, "ptxlink"), "-arch", a.arch, "-j", str(a.jobs), "--sass",
                "-o", os.path.join(a.work, name + ".fatbin")] + sorted(glob.glob(os.path.join(objs, "*.o")))
        subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # cold: fills the cache
        commands[name] = (argv, env)
    R = {k: [] for k in commands}
    for rnd in range(a.rounds):
        order = list(commands) if rnd % 2 == 0 else list(reversed(list(commands)))
        for k in order:
            R[k].append(timed(*commands[k]))
    print("%d files, %.1f MB of PTX, %s, %d rounds interleaved" %
          (len(ptx), sum(os.path.getsize(p) for p in ptx) / 1e6, a.arch, a.rounds))
    for k, v in R.items():
        print("%-7s wall median %.3f s, CPU median %.3f s, walls %s" %
              (k, statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), [round(x[0], 3) for x in v]))
    for name, _ in builds:
        ratios = [R[name][i][0] / R["nvlink"][i][0] for i in range(a.rounds)]
        cpu = [R[name][i][1] / R["nvlink"][i][1] for i in range(a.rounds)]
        print("%s / nvlink: wall %.2fx %s, CPU %.2fx" %
              (name, statistics.median(ratios), [round(r, 2) for r in ratios], statistics.median(cpu)))
    for name, _ in builds:
        argv, env = commands[name]
        out = subprocess.run(argv + ["--time", "-"], env=env, check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True).stdout
        print("--time (%s):\n%s" % (name, out))
    if a.before:
        same = open(os.path.join(a.work, "before.fatbin"), "rb").read() == \
            open(os.path.join(a.work, "after.fatbin"), "rb").read()
        print("fatbinaries identical:", same)


if __name__ == "__main__":
    main()
