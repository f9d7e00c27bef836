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


def section_header(sh_type):
    """File offset of the first section header of type sh_type in an ELF64 file."""
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shnum, = struct.unpack_from("<H", d, 0x3C)
    for i in range(shnum):
        if struct.unpack_from("<I", d, shoff + 64 * i + 4)[0] == sh_type:
            return shoff + 64 * i
    sys.exit("no section of type %d" % sh_type)


if kind == "truncate-half":
    d = d[: len(d) // 2]
elif kind == "truncate-header":
    d = d[:12]
elif kind == "lying-payload":      # first entry's payload size: 2^40
    struct.pack_into("<Q", d, 16 + 8, 1 << 40)
elif kind == "lying-uncompressed":  # first entry's uncompressed size: 2^62
    struct.pack_into("<Q", d, 16 + 0x38, 1 << 62)
elif kind == "uncompressed-plus-8":  # first entry's uncompressed size: 8 bytes more than the truth
    struct.pack_into("<Q", d, 16 + 0x38, struct.unpack_from("<Q", d, 16 + 0x38)[0] + 8)
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
elif kind == "elf-section-past-end":  # the first SHT_PROGBITS section's contents at 2^40
    struct.pack_into("<Q", d, section_header(1) + 0x18, 1 << 40)
elif kind == "elf-rela-entsize":      # the first SHT_RELA section's entry size: 8
    struct.pack_into("<Q", d, section_header(4) + 0x38, 8)
elif kind == "elf-rela-size":         # the first SHT_RELA section's size: one byte more
    h = section_header(4)
    struct.pack_into("<Q", d, h + 0x20, struct.unpack_from("<Q", d, h + 0x20)[0] + 1)
else:
    sys.exit("unknown kind " + kind)
open(dst, "wb").write(bytes(d))
