"""Issue 15, finding 8, the links that keep what they read: a module of 100,000 trivial functions, each
calling the one before it (`.visible .func fN(){call fN-1;ret;}`, 4.2 MB), and a kernel that calls the
last, so that a link keeps and prints every function. Assembles it with ptxlink-as, links the PTX and
the object it wrote, and checks each link's peak resident memory against twice the input plus 100 MB
(the target) and a tighter guard, and that both links print the same 100,001 definitions.

The object (46 MB) is a large input: its reader gives its pages back, and the link reads the kept
functions' text back from the file twice (emit's scan for labels, the printer's passes), giving the pages
back behind each pass (TextReleaser, ObjectFormat.h). Before that (main at e87ecc8) the text came back
whole: the object link peaked at 42 MiB here, now 33; the PTX link (its text is below LargeTextBytes, so
it stays resident) at 38, now 36. The object link's guard, twice the input plus 30 MiB (37 MiB), fails
when its text comes back.

  kept_functions.py WORK_DIR
"""
import os
import shutil
import subprocess
import sys

COUNT = 100000
work = sys.argv[1]
ptx = os.path.join(work, "kept.ptx")
with open(ptx, "w") as f:
    f.write(".version 8.5\n.target sm_80\n.address_size 64\n\n")
    f.write(".visible .func f0(){ret;}\n")
    for i in range(1, COUNT):
        f.write(".visible .func f%d(){call f%d;ret;}\n" % (i, i - 1))
    f.write(".visible .entry k(){call f%d;ret;}\n" % (COUNT - 1))
size = os.path.getsize(ptx)
obj = os.path.join(work, "kept.o")
status = subprocess.call([shutil.which("ptxlink-as"), ptx, "-o", obj])
print("ptxlink-as: status %d" % status)
if status != 0:
    sys.exit(1)

bound = 2 * size + (100 << 20)
guards = {"ptxlink of the object": 2 * size + (30 << 20), "ptxlink of the PTX": 2 * size + (36 << 20)}
failed = False
outputs = {}
for name, source in [("ptxlink of the object", obj), ("ptxlink of the PTX", ptx)]:
    out = os.path.join(work, "linked-%s.ptx" % os.path.basename(source).replace(".", "-"))
    outputs[name] = out
    p = subprocess.Popen([shutil.which("ptxlink"), "-arch", "sm_80", source, "-o", out], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    peak = usage.ru_maxrss * 1024
    print("%s: status %d, input %d bytes, peak %d MB, bound %d MB, guard %d MB" %
          (name, status, size, peak >> 20, bound >> 20, guards[name] >> 20))
    if status != 0 or peak > bound:
        failed = True
        print("%s: peak exceeds twice the input plus 100 MB" % name)
    elif peak > guards[name]:
        failed = True
        print("%s: peak exceeds its guard: more memory per kept function than before" % name)
if failed:
    sys.exit(1)
print("peaks within bound")
with open(outputs["ptxlink of the object"], "rb") as a, open(outputs["ptxlink of the PTX"], "rb") as b:
    linked_object, linked_ptx = a.read(), b.read()
print("object link %s the PTX link" % ("matches" if linked_object == linked_ptx else "DIFFERS FROM"))
print("definitions printed: %d" % (linked_ptx.count(b".visible .func f") + linked_ptx.count(b".visible .entry k")))
