"""Puts odd things at the compile cache's entry paths (sass-cache-entries.test).

odd DIR: each unit's entry (.cubin) becomes a FIFO or a symbolic link to /dev/zero, nvlink's (.link) a FIFO.
pad DIR N: each unit's entry grows to N bytes (zeros before its trailer: a plausible size no more).
flip DIR: each unit's entry has a byte of its payload changed in place (same inode, trailer kept).
"""
import glob
import os
import struct
import sys

mode, cache = sys.argv[1], sys.argv[2]
units = sorted(glob.glob(os.path.join(cache, "*", "*.cubin")))
links = sorted(glob.glob(os.path.join(cache, "*", "*.link")))
if mode == "odd":
    for i, path in enumerate(units):
        os.remove(path)
        if i % 2 == 0:
            os.mkfifo(path)
        else:
            os.symlink("/dev/zero", path)
    for path in links:
        os.remove(path)
        os.mkfifo(path)
elif mode == "pad":
    n = int(sys.argv[3])
    for path in units:
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        data = open(path, "rb").read()
        open(path, "wb").write(data[:-32] + bytes(n - len(data)) + data[-32:])
elif mode == "flip":
    # A byte of code (the first .text section's 9th byte): nvlink copies it into its output as it is.
    for path in units:
        with open(path, "r+b") as f:
            elf = f.read()
            shoff, = struct.unpack_from("<Q", elf, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
            def section(i):
                name, _, _, _, off, size = struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize)
                return name, off, size
            strtab = section(shstrndx)[1]
            for i in range(shnum):
                name, off, size = section(i)
                if elf[strtab + name:].startswith(b".text.") and size > 8:
                    f.seek(off + 8)
                    f.write(bytes([elf[off + 8] ^ 0x01]))
                    break
else:
    sys.exit("unknown mode " + mode)
