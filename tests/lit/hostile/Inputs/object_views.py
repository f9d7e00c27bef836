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

from dump_peak import dump_within_bound

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
within = [dump_within_bound(path, options) for options in runs for path in (ptx, obj)]
if not all(within):
    sys.exit(1)
print("peaks within bound")
