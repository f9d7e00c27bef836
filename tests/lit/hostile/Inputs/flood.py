"""Issue 15, finding 7: log floods.

  flood.py line WORK_DIR     - a 2 MB one-line PTX module with 100 bad bytes: ptxlink-as's stderr must
                               stay small (each diagnostic shows a window of the line, not all of it)
  flood.py archive WORK_DIR  - an archive of 3000 empty members (each an error and a warning when
                               assembled), for a --whole-archive link that must stop at the error limit
"""
import os
import shutil
import subprocess
import sys

mode, work = sys.argv[1:3]
header = ".version 8.0\n.target sm_90\n.address_size 64\n"

if mode == "line":
    chunks = ["".join(".visible .func f%d_%d() { ret; } " % (c, i) for i in range(700)) for c in range(101)]
    line = " \x01 ".join(chunks)  # 2 MB, 100 bad bytes at module scope
    path = os.path.join(work, "flood.ptx")
    with open(path, "w") as f:
        f.write(header + line + "\n")
    p = subprocess.run([shutil.which("ptxlink-as"), "--error-limit", "0", path, "-o",
                        os.path.join(work, "flood.o")], capture_output=True)
    err = p.stderr.decode(errors="replace")
    print(err[:2000])
    print("rc %d, %d bytes of PTX, %d bytes of diagnostics" % (p.returncode, len(line), len(err)))
    # 99 diagnostics with a 160-character window each: about 40 KB; the whole line each time was 200 MB.
    if len(err) > 100 * 1024:
        sys.exit("diagnostics flood: %d bytes" % len(err))
    print("diagnostics bounded")
elif mode == "archive":
    out = b"!<arch>\n"
    for i in range(3000):
        out += ("%-16s%-12d%-6d%-6d%-8s%-10d`\n" % ("m%d.o/" % i, 0, 0, 0, "644", 0)).encode()
    with open(os.path.join(work, "empty.a"), "wb") as f:
        f.write(out)
