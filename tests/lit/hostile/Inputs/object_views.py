"""Issue 15, finding 3 (memory per entry) for one object's own views: writes a module of COUNT device
functions, each calling the next, and a kernel calling the first (PTX, COUNT * 43 bytes), assembles it
with ptxlink-as, and dumps the PTX and the object with each set of options given (separated by `--`),
checking every run's peak resident memory against twice its input plus 100 MB. The symbols, relocations,
sections, ABI records and call edges were JSON arrays built whole (10^5 functions: 3 GB for --all).

  object_views.py WORK_DIR COUNT OPTION... [-- OPTION...]...

Prints, per run, its input, exit status, line count, last line and peak, then "peaks within bound".
"""
import os
import shutil
import subprocess
import sys

work, count = sys.argv[1], int(sys.argv[2])
runs = [[]]
for a in sys.argv[3:]:
    if a == "--":
        runs.append([])
    else:
        runs[-1].append(a)
ptx = os.path.join(work, "calls.ptx")
with open(ptx, "w") as f:
    f.write(".version 8.5\n.target sm_80\n.address_size 64\n\n")
    f.write(".visible .func f%d(){ret;}\n" % (count - 1))
    for i in range(count - 2, -1, -1):
        f.write(".visible .func f%d(){call f%d; ret;}\n" % (i, i + 1))
    f.write(".visible .entry k(){call f0; ret;}\n")
obj = os.path.join(work, "calls.o")
subprocess.run([shutil.which("ptxlink-as"), ptx, "-o", obj], check=True)
failed = False
for options in runs:
    for path in (ptx, obj):
        size = os.path.getsize(path)
        p = subprocess.Popen([shutil.which("ptxlink-dump")] + options + [path], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        lines, last = 0, b""
        for line in p.stdout:
            lines += 1
            last = line
        _, status, usage = os.wait4(p.pid, 0)
        peak = usage.ru_maxrss * 1024
        print("%s %s: rc %d, %d lines, last: %s; input %d bytes, peak %d MB" % (
            " ".join(options), os.path.basename(path), os.waitstatus_to_exitcode(status), lines,
            last.decode().strip(), size, peak >> 20))
        if peak > 2 * size + (100 << 20):
            print("  peak exceeds twice the input plus 100 MB")
            failed = True
if failed:
    sys.exit(1)
print("peaks within bound")
