"""Issue 15, finding 8: memory per function. Writes a module of 100,000 trivial functions
(`.visible .func fN(){ret;}`, 3 MB), assembles it with ptxlink-as and links it with ptxlink, and checks
each tool's peak resident memory against twice the input plus 100 MB. Before the cuts of
bench/memory_bench.py's section in docs/performance.md, ptxlink-as took 132 MB and ptxlink 113 MB here
(1.1 KB and 840 bytes per function); the tables are now sized once, tuning directives live out of line,
and the object writer streams its section headers.

  many_functions.py WORK_DIR
"""
import os
import shutil
import subprocess
import sys

work = sys.argv[1]
ptx = os.path.join(work, "many.ptx")
with open(ptx, "w") as f:
    f.write(".version 8.5\n.target sm_80\n.address_size 64\n\n")
    for i in range(100000):
        f.write(".visible .func f%d(){ret;}\n" % i)
size = os.path.getsize(ptx)
bound = 2 * size + (100 << 20)
failed = False
for name, argv in [("ptxlink-as", [shutil.which("ptxlink-as"), ptx, "-o", os.path.join(work, "many.o")]),
                   ("ptxlink", [shutil.which("ptxlink"), "-arch", "sm_80", ptx, "-o",
                                os.path.join(work, "linked.ptx")])]:
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    peak = usage.ru_maxrss * 1024
    print("%s: status %d, input %d bytes, peak %d MB, bound %d MB" % (name, status, size, peak >> 20,
                                                                      bound >> 20))
    if status != 0 or peak > bound:
        failed = True
        print("%s: peak exceeds twice the input plus 100 MB" % name)
if failed:
    sys.exit(1)
print("peaks within bound")
