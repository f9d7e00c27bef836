"""Issue 15, finding 3 (memory per entry), for the archive views that were still built whole: writes a GNU
archive of MEMBERS copies of OBJECT (m0.o, m1.o, ...) whose symbol index has SYMBOLS entries per member
(C++-like names of 33 bytes; at most 10^7 members), dumps it with the options given, and checks the dump's peak resident
memory against twice the input plus 100 MB.

  archive_memory.py WORK_DIR OBJECT MEMBERS SYMBOLS [DUMP OPTION...]

Prints the number of lines written, the first and last few, the peak, and "peak within bound" (or exits 1).
"""
import os
import struct
import sys

from dump_peak import dump_and_check_peak

work, obj, members, symbols = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
options = sys.argv[5:]
data = open(obj, "rb").read()


def header(name, size):
    return ("%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, "644", size)).encode()


def name(member, symbol):
    return b"_Z25kernel_function_%07d_%dPfi\0" % (member, symbol)


# Written piece by piece: this process stays small, since a child's peak RSS counts what it shared with
# its parent before exec.
count = members * symbols
table_size = sum(len(name(m, s)) for m in range(min(members, 1)) for s in range(symbols)) * members
index_size = 4 + 4 * count + table_size
pad = index_size % 2
first_member = 8 + 60 + index_size + pad
member_size = 60 + len(data) + len(data) % 2
path = os.path.join(work, "big.a")
with open(path, "wb") as f:
    f.write(b"!<arch>\n")
    f.write(header("/", index_size))
    f.write(struct.pack(">I", count))
    for m in range(members):
        f.write(struct.pack(">I", first_member + m * member_size) * symbols)
    written = 0
    for m in range(members):
        chunk = b"".join(name(m, s) for s in range(symbols))
        written += len(chunk)
        f.write(chunk)
    assert written == table_size
    f.write(b"\n" * pad)
    for m in range(members):
        f.write(header("m%d.o/" % m, len(data)))
        f.write(data)
        if len(data) % 2:
            f.write(b"\n")
dump_and_check_peak(path, options)
