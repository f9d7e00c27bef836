"""Issue 29, item 11 (and issue 28's 10^5-module target): memory per module. Writes 20,000 one-function
PTX modules (each calls the previous module's function: one relocation each), names them in a response
file and links them with `ptxlink -r`, checking the run's peak resident memory against twice the input
plus 100 MB, and against a tighter guard.

Each assembled module held a 4 KB string arena slab (for its file name and arch) and the assembler's
reserve of 64 relocations, and each took 7.3 KB of the link in all: 146 MB here, over the bound. With the
slab sized for small modules and the reserve given back it was about 2.4 KB (47 MB here); with no arena
for a module that saves nothing, the link's per-module tables in one pool and the options' and emit's
per-module copies gone, about 1.3 KB (31 MB here; docs/performance.md, issue 28); with a variant's rare
tables made on first use, its object holding it inline and the link's per-module records packed, about
1.2 KB (26 MB here).

The modules are named relative to the work folder, and the link runs there: each name is kept (the
response file, each input's buffer), and absolute names made the peak depend on where the checkout lies
(1.6 MB more under /check/work/main/build than under /tmp, enough to cross the guard).

  many_modules.py WORK_DIR
"""
import os
import shutil
import subprocess
import sys

work = sys.argv[1]
count = 20000
names = []
size = 0
for i in range(count):
    path = os.path.join(work, "t%05d.ptx" % i)
    with open(path, "w") as f:
        f.write(".version 8.0\n.target sm_80\n.address_size 64\n")
        if i:
            f.write(".extern .func t%d();\n.visible .func t%d(){call t%d;ret;}\n" % (i - 1, i, i - 1))
        else:
            f.write(".visible .func t0(){ret;}\n")
    size += os.path.getsize(path)
    names.append(os.path.basename(path))
rsp = os.path.join(work, "inputs.rsp")
with open(rsp, "w") as f:
    f.write("\n".join(names) + "\n")
bound = 2 * size + (100 << 20)
# A guard against regressions: 32 MB here, against 26 MB measured (the build before, 30 MB, passes
# narrowly; 1.5 KB per module would fail).
guard = 2 * size + (28 << 20)
out = os.path.join(work, "linked.o")
p = subprocess.Popen([shutil.which("ptxlink"), "-r", "-arch", "sm_80", "@" + rsp, "-o", out],
                     stdout=subprocess.DEVNULL, cwd=work)
_, status, usage = os.wait4(p.pid, 0)
peak = usage.ru_maxrss * 1024
print("ptxlink -r: status %d, %d modules, input %d bytes, peak %d MB, bound %d MB" % (
    status >> 8, count, size, peak >> 20, bound >> 20))
if status != 0:
    sys.exit(1)
if peak > bound:
    print("peak exceeds twice the input plus 100 MB")
    sys.exit(1)
if peak > guard:
    print("peak exceeds twice the input plus 28 MB: more memory per module than before")
    sys.exit(1)
print("peak within bound")
dump = subprocess.run([shutil.which("ptxlink-dump"), "--symbols", out], capture_output=True, text=True)
print("t19999 %s" % ("defined" if "t19999" in dump.stdout else "MISSING"))
