#!/usr/bin/env python3
"""Writes small corrupt inputs for ptxlink-dump's error paths, derived from a valid fatbinary or cubin.

usage: corrupt.py KIND INPUT OUTPUT
"""
import struct
import sys

kind, src, dst = sys.argv[1:4]
d = bytearray(open(src, "rb").read())


def first_entry():
    return 16


if kind == "truncate-half":
    d = d[: len(d) // 2]
elif kind == "truncate-header":
    d = d[:12]
elif kind == "lying-payload":      # first entry's payload size: 2^40
    struct.pack_into("<Q", d, 16 + 8, 1 << 40)
elif kind == "lying-uncompressed":  # first entry's uncompressed size: 2^62
    struct.pack_into("<Q", d, 16 + 0x38, 1 << 62)
elif kind == "bad-entry-header":   # first entry's header size: 8
    struct.pack_into("<I", d, 16 + 4, 8)
elif kind == "corrupt-zstd":       # flip bytes inside the first entry's compressed payload
    hs = struct.unpack_from("<I", d, 16 + 4)[0]
    for i in range(8, 24):
        d[16 + hs + i] ^= 0xA5
elif kind == "bad-magic-second":   # a second container with a bad magic after a valid one
    d = d + b"\x51\xed\x55\xba" + bytes(12)
elif kind == "cubin-bad-shoff":    # section header table beyond the file
    struct.pack_into("<Q", d, 0x28, 1 << 50)
elif kind == "cubin-truncate":
    d = d[: len(d) * 2 // 3]
else:
    sys.exit("unknown kind " + kind)
open(dst, "wb").write(bytes(d))
