#!/usr/bin/env python3
"""Prints the kernels and visible global variables of a linked result, one per line, sorted:
"kernel NAME" / "variable NAME". Reads either a cubin (ELF: a kernel is a global STT_FUNC with st_other
bit 0x10, a variable a defined global STT_OBJECT) or a PTX module (.visible .entry / .visible .global or
.const definitions), so nvlink's output and ptxlink's can be compared."""
import re
import struct
import sys


def from_elf(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out = set()
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 24):
            name, info, other, shndx, _value, _size = struct.unpack_from("<IBBHQQ", data, off)
            bind, typ = info >> 4, info & 0xF
            start = strtab[4] + name
            sym = data[start:data.index(b"\0", start)].decode()
            if bind != 1 or shndx == 0 or sym.startswith("."):
                continue
            if typ == 2 and other & 0x10:
                out.add("kernel " + sym)
            elif typ == 1:
                out.add("variable " + sym)
    return out


def from_ptx(text):
    out = set()
    for m in re.finditer(r"^\s*\.visible\s+\.entry\s+([\w$]+)", text, re.M):
        out.add("kernel " + m.group(1))
    for m in re.finditer(r"^\s*\.visible\s+\.(?:global|const)\s+[^;=]*?([\w$]+)\s*(?:\[[^\]]*\]\s*)*(?:=|;)",
                         text, re.M):
        out.add("variable " + m.group(1))
    return out


data = open(sys.argv[1], "rb").read()
symbols = from_elf(data) if data.startswith(b"\x7fELF") else from_ptx(data.decode())
for line in sorted(symbols):
    print(line)
