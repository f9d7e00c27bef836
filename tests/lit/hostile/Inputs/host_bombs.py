"""Issue 15, finding 2 (the linker's side): decompression bombs inside nvcc host objects. Writes x86-64
relocatable ELF objects whose `__nv_relfatbin` holds zstd-compressed PTX images of 512 MiB of spaces
each (131 KB per object), links them with ptxlink, and checks that the link fails with the budget's error
(one budget for the whole link: 100 MB + twice the input) within twice the input plus 150 MB of peak
memory. Before, every image was decompressed at once outside any budget: 512 MiB per image.

  host_bombs.py WORK_DIR COUNT
"""
import os
import shutil
import struct
import subprocess
import sys

from zstd_frames import zstd_rle

work, count = sys.argv[1], int(sys.argv[2])


def fatbin(payload, uncompressed):
    padded = payload + b"\0" * (-len(payload) % 8)
    # A PTX image (kind 1) for sm_80, 64-bit, Linux host, zstd (0x8000).
    h = struct.pack("<HHIQIIHHIIIQQQ", 1, 0x0101, 0x40, len(padded), len(payload), 0, 5, 8, 80, 0, 0,
                    0x1 | 0x10 | 0x8000, 0, uncompressed)
    body = h + padded
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def host_object(sections):
    """A minimal x86-64 ET_REL ELF: the given (name, bytes) sections and .shstrtab."""
    names = b"\0"
    offsets = []
    for name, _ in sections + [(".shstrtab", None)]:
        offsets.append(len(names))
        names += name.encode() + b"\0"
    data = b""
    placed = []
    for _, contents in sections:
        placed.append(64 + len(data))
        data += contents + b"\0" * (-len(contents) % 8)
    shstr_off = 64 + len(data)
    data += names + b"\0" * (-len(names) % 8)
    shoff = 64 + len(data)
    ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    ehdr += struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(sections) + 2,
                        len(sections) + 1)
    shdrs = b"\0" * 64
    for (name, contents), off, noff in zip(sections, placed, offsets):
        shdrs += struct.pack("<IIQQQQIIQQ", noff, 1, 2, 0, off, len(contents), 0, 0, 8, 0)
    shdrs += struct.pack("<IIQQQQIIQQ", offsets[-1], 3, 0, 0, shstr_off, len(names), 0, 0, 1, 0)
    return ehdr + data + shdrs


frame = zstd_rle(0x20, 512 << 20)
pad = 131 * 1024 - len(frame) - 8
frame += struct.pack("<II", 0x184D2A50, pad) + b"\0" * pad  # a skippable frame, as in the review
paths, total = [], 0
for i in range(count):
    obj = host_object([("__nv_relfatbin", fatbin(frame, 512 << 20)),
                       ("__nv_module_id", b"__bomb_%d\0" % i)])
    path = os.path.join(work, "bomb%d.o" % i)
    with open(path, "wb") as f:
        f.write(obj)
    paths.append(path)
    total += len(obj)
p = subprocess.Popen([shutil.which("ptxlink"), "-arch", "sm_80"] + paths + ["-o", os.path.join(work, "out.ptx")],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = p.stderr.read().decode(errors="replace")
_, status, usage = os.wait4(p.pid, 0)
rc = os.waitstatus_to_exitcode(status)
sys.stdout.write(err)
peak = usage.ru_maxrss * 1024
print("rc %d, input %d bytes, peak %d MB" % (rc, total, peak >> 20))
if rc < 0 or "LLVM ERROR" in err:
    sys.exit("ptxlink crashed (rc %d)" % rc)
if peak > 2 * total + (150 << 20):
    sys.exit("peak %d MB exceeds twice the input plus 150 MB" % (peak >> 20))
print("peak within bound")
