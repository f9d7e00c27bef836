"""Compares two device-link objects (nvcc -dlink's and ptxlink's): the same section names, except those
nvcc's host compiler adds that carry nothing (.data is empty, .comment), and the same global symbols, defined and undefined. Exit status 1 with the differences."""
import subprocess
import sys

OPTIONAL = {".data", ".comment"}


def sections(path):
    out = subprocess.run(["llvm-readelf", "-S", "-W", path], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("[") and "]" in line and not line.startswith("[Nr]"):
            fields = line.split("]", 1)[1].split()
            if fields and fields[0] != "NULL":
                names.add(fields[0])
    return names


def globals_(path):
    out = subprocess.run(["llvm-nm", "-g", path], check=True, capture_output=True, text=True).stdout
    return {" ".join(line.split()[-2:]) for line in out.splitlines() if line.strip()}


nvcc, ours = sys.argv[1], sys.argv[2]
problems = []
missing = sections(nvcc) - sections(ours) - OPTIONAL
extra = sections(ours) - sections(nvcc)
if missing:
    problems.append("sections only in nvcc's: " + ", ".join(sorted(missing)))
if extra:
    problems.append("sections only in ours: " + ", ".join(sorted(extra)))
gn, go = globals_(nvcc), globals_(ours)
if gn != go:
    problems.append("global symbols only in nvcc's: " + ", ".join(sorted(gn - go)))
    problems.append("global symbols only in ours: " + ", ".join(sorted(go - gn)))
for p in problems:
    print(p)
print(f"{len(gn)} global symbols, {len(sections(ours))} sections compared")
sys.exit(1 if problems else 0)
