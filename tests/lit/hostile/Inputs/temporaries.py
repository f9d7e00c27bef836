"""Issue 15, finding 6: temporaries of an interrupted write.

  temporaries.py signal WORK_DIR  - SIGTERM while ptxlink-as writes a large object: the temporary
                                   OUT.tmp<pid>-<n> must be gone afterwards.
  temporaries.py sweep WORK_DIR   - a temporary of a process that no longer exists (as SIGKILL leaves
                                   it) is removed by the next write of the same output; one of a live
                                   process, and files of other names, are kept.
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

mode, work = sys.argv[1:3]
as_tool = shutil.which("ptxlink-as")  # lit puts the tools first on PATH
header = ".version 8.0\n.target sm_90\n.address_size 64\n"


def write_ptx(path, functions):
    with open(path, "w") as f:
        f.write(header)
        for i in range(functions):
            f.write(".visible .func f%d()\n{\n  ret;\n}\n" % i)


if mode == "signal":
    src = os.path.join(work, "big.ptx")
    out = os.path.join(work, "big.o")
    functions = 100000
    caught = 0
    for attempt in range(6):
        write_ptx(src, functions)
        p = subprocess.Popen([as_tool, src, "-o", out], stderr=subprocess.DEVNULL)
        seen = []
        while p.poll() is None and not seen:
            seen = glob.glob(out + ".tmp*")
            if not seen:
                time.sleep(0.0005)
        if seen and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            rc = p.wait()
            left = glob.glob(out + ".tmp*")
            if left:
                sys.exit("temporaries left after SIGTERM (rc %d): %s" % (rc, left))
            if rc != -signal.SIGTERM and rc == 0:
                functions *= 2  # the write finished first: try a larger one
                continue
            caught += 1
            break
        p.wait()
        functions *= 2
    if not caught:
        sys.exit("never caught ptxlink-as while it wrote its temporary")
    print("signal: temporary removed")
elif mode == "sweep":
    src = os.path.join(work, "small.ptx")
    out = os.path.join(work, "small.o")
    write_ptx(src, 1)
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = "%s.tmp%d-0" % (out, dead.pid)
    live = "%s.tmp%d-3" % (out, os.getpid())
    other = out + ".tmpnotapid-0"
    for name in (stale, live, other):
        with open(name, "wb") as f:
            f.write(b"x" * 1000)
    subprocess.check_call([as_tool, src, "-o", out])
    if os.path.exists(stale):
        sys.exit("stale temporary of process %d kept" % dead.pid)
    if not os.path.exists(live) or not os.path.exists(other):
        sys.exit("removed a temporary that is not stale")
    print("sweep: stale temporary removed, live one kept")
