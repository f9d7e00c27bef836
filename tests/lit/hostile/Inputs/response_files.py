"""Issue 29, item 9: what a response file of millions of arguments costs each tool. Writes one response
file of COUNT lines (the given words in turn), runs the command with @FILE added and checks its peak
resident memory against twice the input (the response file and the other files named) plus 100 MB. Every
argument used to cost about 155 bytes (3 million `-w`, 9 MB: 447-469 MB in every tool).

  response_files.py WORK_DIR COUNT WORD[,WORD...] -- COMMAND [ARG...]
Prints "TOOL: rc N, M output lines, peak within bound" (or the figures and exit status 1).
"""
import os
import shutil
import subprocess
import sys

work, count, words = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
command = sys.argv[5:]
assert sys.argv[4] == "--"
rsp = os.path.join(work, "args-%d.rsp" % count)
with open(rsp, "w") as f:
    line = "".join(w + "\n" for w in words)
    f.write(line * (count // len(words)))
size = os.path.getsize(rsp) + sum(os.path.getsize(a) for a in command[1:] if os.path.isfile(a))
p = subprocess.Popen([shutil.which(command[0])] + command[1:] + ["@" + rsp], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
lines = sum(1 for _ in p.stdout)
err = p.stderr.read()
_, status, usage = os.wait4(p.pid, 0)
peak = usage.ru_maxrss * 1024
sys.stdout.write(err.decode(errors="replace")[:1000])
print("%s: rc %d, %d output lines" % (command[0], os.waitstatus_to_exitcode(status), lines))
if peak > 2 * size + (100 << 20):
    sys.exit("peak %d MB for %d bytes: exceeds twice the input plus 100 MB" % (peak >> 20, size))
print("peak within bound")
