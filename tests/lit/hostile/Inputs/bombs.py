"""Issue 15, finding 2: decompression bombs. Writes a fatbinary, runs ptxlink-dump on it and checks that
the dump's peak resident memory stays within twice the input plus 100 MB (plus the tool's own ~50 MB).

  bombs.py zstd WORK_DIR  - three zstd images of 512 MiB of zeros each, 393 KB of file
  bombs.py lz4 WORK_DIR   - one 512 KB invalid LZ4 image that claims 2.1 GB
  bombs.py many WORK_DIR  - 64 valid LZ4 images of 16 KB, each 4 MB of zeros (254:1, which LZ4 allows)

Further arguments are ptxlink-dump options used instead of --list (e.g. a --max-decompressed that
admits every image: they are then decompressed one at a time, never all at once).

Prints the dump's stderr (for FileCheck) and a line "peak within bound" or exits non-zero.
"""
import os
import shutil
import struct
import subprocess
import sys

from zstd_frames import zstd_rle

mode, work = sys.argv[1:3]
options = sys.argv[3:] or ["--list"]


def lz4_zeros(size):
    """An LZ4 block of `size` zero bytes: one literal zero, one long match at offset 1, five literals."""
    extra = size - 1 - 19 - 5
    lengths = b"\xff" * (extra // 255) + bytes([extra % 255])
    return bytes([0x1F, 0]) + struct.pack("<H", 1) + lengths + bytes([0x50]) + b"\0" * 5


def entry(kind, sm, flags, stored, uncompressed):
    padded = stored + b"\0" * (-len(stored) % 8)
    h = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x0101, 0x40, len(padded), len(stored), 0, 0, 0, sm, 0, 0,
                    flags, 0, uncompressed)
    assert len(h) == 0x40
    return h + padded


def container(entries):
    body = b"".join(entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


ELF, PTX = 2, 1
Base = 0x1 | 0x10  # 64-bit, Linux host
if mode == "zstd":
    # Padded with a skippable frame to 131 KB, as in the review (393 KB for three): 4096:1, which the
    # per-image bound allows; only the run's budget stops them.
    frame = zstd_rle(0, 512 << 20)
    pad = 131 * 1024 - len(frame) - 8
    frame += struct.pack("<II", 0x184D2A50, pad) + b"\0" * pad
    data = container([entry(ELF, 90, Base | 0x8000, frame, 512 << 20) for _ in range(3)])
elif mode == "lz4":
    junk = bytes((i * 131 + 7) & 0xFF for i in range(512 * 1024))
    data = container([entry(ELF, 90, Base | 0x2000, junk, 2100 * 1000 * 1000)])
elif mode == "many":
    block = lz4_zeros(4 << 20)
    data = container([entry(ELF, 90, Base | 0x2000, block, 4 << 20) for _ in range(64)])
else:
    sys.exit("unknown mode " + mode)

path = os.path.join(work, mode + ".fatbin")
with open(path, "wb") as f:
    f.write(data)
dump = shutil.which("ptxlink-dump")
p = subprocess.Popen([dump] + options + [path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = p.stderr.read().decode(errors="replace")
_, status, usage = os.wait4(p.pid, 0)
p.returncode = os.waitstatus_to_exitcode(status)
sys.stdout.write(err)
peak = usage.ru_maxrss * 1024
bound = 2 * len(data) + (100 << 20) + (50 << 20)
print("rc %d, input %d bytes, peak %d MB" % (p.returncode, len(data), peak >> 20), file=sys.stderr)
if p.returncode < 0 or "LLVM ERROR" in err:
    sys.exit("ptxlink-dump crashed (rc %d)" % p.returncode)
if peak > bound:
    sys.exit("peak %d MB exceeds %d MB" % (peak >> 20, bound >> 20))
print("peak within bound")
