"""Issue 15, finding 3: ptxlink-dump's memory per archive member. Writes an archive of 100,000 empty
members (6 MB), dumps it, and checks the peak resident memory against twice the input plus 100 MB
(it was 839 MB: the whole tree and a JSON diagnostic per member were kept until the end).

  many_members.py WORK_DIR [--json]
"""
import os
import shutil
import subprocess
import sys

work = sys.argv[1]
extra = sys.argv[2:]
path = os.path.join(work, "many.a")
with open(path, "wb") as f:
    f.write(b"!<arch>\n")
    for i in range(100000):
        f.write(("%-16s%-12d%-6d%-6d%-8s%-10d`\n" % ("m%d.o/" % i, 0, 0, 0, "644", 0)).encode())
size = os.path.getsize(path)
p = subprocess.Popen([shutil.which("ptxlink-dump")] + extra + [path], stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL)
lines = 0
last = b""
for line in p.stdout:
    lines += 1
    last = line
_, status, usage = os.wait4(p.pid, 0)
peak = usage.ru_maxrss * 1024
print("%d lines, last: %s" % (lines, last.decode().strip()))
print("input %d bytes, peak %d MB" % (size, peak >> 20))
if peak > 2 * size + (100 << 20):
    sys.exit("peak %d MB exceeds twice the input plus 100 MB" % (peak >> 20))
print("peak within bound")
