"""Issue 15, finding 3 (memory per entry) for an NVIDIA cubin's views and a host object's section list:
writes a module of COUNT trivial device functions and a kernel (PTX), compiles it with `ptxas -c` into a
relocatable cubin (COUNT * 730 bytes: a section, symbols, relocations and .nv.info records per function),
writes an x86-64 relocatable object with COUNT * 6.5 empty sections, and dumps the cubin (--all, text and
--json) and the host object (--sections, text and --json), checking every run's peak resident memory
against twice its input plus 100 MB. These views were JSON arrays built whole (10,000 functions: 615 MB
for the cubin's --all, 295 MB for 65,000 host sections).

  cubin_views.py WORK_DIR COUNT

Prints, per run, its input, exit status, line count, last line and peak, then "peaks within bound".
"""
import os
import shutil
import struct
import subprocess
import sys

from dump_peak import dump_within_bound

work, count = sys.argv[1], int(sys.argv[2])
ptx = os.path.join(work, "flat.ptx")
with open(ptx, "w") as f:
    f.write(".version 8.5\n.target sm_80\n.address_size 64\n\n")
    f.writelines(".visible .func f%d(){ret;}\n" % i for i in range(count))
    f.write(".visible .entry k(){call f0; ret;}\n")
cubin = os.path.join(work, "flat.cubin")
subprocess.run([shutil.which("ptxas"), "-c", "-arch", "sm_80", ptx, "-o", cubin], check=True)

# A host object of many sections (below 0xff00, so no extended section numbering): ELF header, the
# section name table, then the section headers (.shstrtab and empty .text.function_N).
sections = count * 13 // 2
names = [b"\0.shstrtab\0"]
offsets, size = [], len(names[0])
for i in range(sections):
    name = b".text.function_%d\0" % i
    offsets.append(size)
    size += len(name)
    names.append(name)
names = b"".join(names)
table = (64 + len(names) + 7) & ~7
header = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + b"\0" * 9, 1, 62, 1, 0, 0, table, 0, 64,
                     0, 0, 64, sections + 2, 1)
def section_header(name, kind, flags, offset, size, align):
    return struct.pack("<IIQQQQIIQQ", name, kind, flags, 0, offset, size, 0, 0, align, 0)
host = os.path.join(work, "many-sections.o")
with open(host, "wb") as f:
    f.write(header + names + b"\0" * (table - 64 - len(names)))
    f.write(section_header(0, 0, 0, 0, 0, 0) + section_header(1, 3, 0, 64, len(names), 1))
    f.write(b"".join(section_header(o, 1, 6, 64, 0, 16) for o in offsets))

within = [dump_within_bound(path, options)
          for options, path in ((["--all"], cubin), (["--json", "--all"], cubin),
                                (["--sections"], host), (["--json", "--sections"], host))]
if not all(within):
    sys.exit(1)
print("peaks within bound")
