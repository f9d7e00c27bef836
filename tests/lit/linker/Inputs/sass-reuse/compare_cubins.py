#!/usr/bin/env python3
"""Compares two cubins section by section: name, type, flags, size, link, info, alignment and contents.

Prints one line per section that differs and a last line 'sections: N, differing: names'; exits 0. Used to
show that ptxlink's image is nvcc -dlink's but for the record of nvlink's command line (.note.nv.tkinfo),
whose length moves the offsets of what follows it, so offsets are not compared."""
import struct
import sys


def sections(path):
    data = open(path, "rb").read()
    assert data[:4] == b"\x7fELF" and data[4] == 2, path + ": not a 64-bit ELF"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = []
    for name, typ, flags, _addr, off, size, link, info, align, entsize in heads:
        label = names[name:names.index(b"\0", name)].decode()
        body = b"" if typ == 8 else data[off:off + size]  # SHT_NOBITS has no contents
        out.append((label, (typ, flags, size, link, info, align, entsize, body)))
    return out


a, b = sections(sys.argv[1]), sections(sys.argv[2])
if [n for n, _ in a] != [n for n, _ in b]:
    print("section lists differ:", [n for n, _ in a], [n for n, _ in b])
    sys.exit(0)
differ = [n for (n, x), (_, y) in zip(a, b) if x != y]
print("sections: %d, differing: %s" % (len(a), " ".join(differ) if differ else "none"))
