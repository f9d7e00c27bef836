"""SIGINT, SIGTERM and SIGHUP during `ptxlink --sass` (sass-signals.test, sass-cache-incremental.test).

fake WORK A.ptx B.ptx: ptxas is a stand-in that answers --version and otherwise sleeps, so the link is
  caught while ptxas runs; for each signal, prints how ptxlink ended and what is left in its $TMPDIR.
real WORK PTXAS A.ptx B.ptx: the real ptxas compiles a.ptx; b.ptx's compilation waits until a's cubin is in
  the cache (at most 20 s), then sends SIGTERM to ptxlink; prints what the cache and $TMPDIR hold after.
"""
import glob
import os
import signal
import subprocess
import sys
import time

mode, work = sys.argv[1], sys.argv[2]


def default_signals():
    # lit's workers ignore SIGINT, and an ignored signal stays ignored across exec (ptxlink keeps it so).
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def run_until_signalled(env, args, ready, sig):
    p = subprocess.Popen(["ptxlink", *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, preexec_fn=default_signals)
    try:
        deadline = time.time() + 30
        while sig is not None and not ready() and time.time() < deadline and p.poll() is None:
            time.sleep(0.05)
        if sig is not None and p.poll() is None:
            p.send_signal(sig)
        p.wait(timeout=60)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the stand-ins still sleeping
        except ProcessLookupError:
            pass
    return p.returncode


def leftovers(tmp):
    return sorted(os.listdir(tmp)) or ["nothing"]


if mode == "fake":
    inputs = sys.argv[3:]
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    ptxas = os.path.join(bindir, "ptxas")
    with open(ptxas, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = --version ] && { echo "ptxas stand-in"; exit 0; }\nexec sleep 30\n')
    os.chmod(ptxas, 0o755)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        tmp = os.path.join(work, "tmp-" + sig.name)
        os.makedirs(tmp)
        env = dict(os.environ, TMPDIR=tmp, PATH=bindir + os.pathsep + os.environ["PATH"])
        ready = lambda: glob.glob(os.path.join(tmp, "ptxlink-sass-*", "*.ptx"))
        rc = run_until_signalled(env, ["--sass", "--no-cache", "--sass-batch-below", "0", "-arch", "sm_80",
                                       *inputs, "-o", os.path.join(work, "out.fatbin")], ready, sig)
        print(sig.name + ": status", rc, "; left in TMPDIR:", " ".join(leftovers(tmp)))
elif mode == "real":
    real_ptxas, inputs = sys.argv[3], sys.argv[4:]
    bindir = os.path.join(work, "bin")
    cache = os.path.join(work, "cache")
    tmp = os.path.join(work, "tmp")
    os.makedirs(bindir, exist_ok=True)
    os.makedirs(tmp, exist_ok=True)
    ptxas = os.path.join(bindir, "ptxas")
    with open(ptxas, "w") as f:
        f.write('#!/bin/sh\ncase "$*" in *-b.ptx-*)\n'
                '  i=0; while [ $i -lt 200 ] && ! ls %s/*/*.cubin >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done\n'
                '  kill -TERM $PPID; exec sleep 30;;\nesac\nexec %s "$@"\n' % (cache, real_ptxas))
    os.chmod(ptxas, 0o755)
    env = dict(os.environ, TMPDIR=tmp, PATH=bindir + os.pathsep + os.environ["PATH"])
    rc = run_until_signalled(env, ["--sass", "--cache-dir", cache, "--sass-batch-below", "0", "-arch", "sm_80",
                                   *inputs, "-o", os.path.join(work, "out.fatbin")], lambda: True, None)
    print("status", rc)
    print("cubins in the cache:", len(glob.glob(os.path.join(cache, "*", "*.cubin"))))
    print("left in TMPDIR:", " ".join(leftovers(tmp)))
