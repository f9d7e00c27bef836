#!/usr/bin/env python3
"""Prints the compile units and subprogram names llvm-dwarfdump --debug-info finds in a cubin, sorted,
so two links of the same modules (ptxlink + ptxas -g, nvlink -g) can be compared with diff."""
import subprocess
import sys

out = subprocess.run(["llvm-dwarfdump", "--debug-info", sys.argv[1]], stdout=subprocess.PIPE, text=True, check=True).stdout
names, tag = [], None
for line in out.splitlines():
    s = line.strip()
    if s.startswith("0x") and "DW_TAG_" in s:
        tag = s.split(":", 1)[1].split()[0]
    elif s.startswith("DW_AT_name") and tag in ("DW_TAG_compile_unit", "DW_TAG_subprogram"):
        names.append("%s %s" % (tag[7:], s.split("(", 1)[1].rstrip(")")))
        tag = None
for n in sorted(names):
    print(n)
