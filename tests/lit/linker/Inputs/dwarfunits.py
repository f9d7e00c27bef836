#!/usr/bin/env python3
"""What two links of the same modules (ptxlink + ptxas -g, nvlink -g) should agree on, printed from a
cubin so the two can be compared with diff.

  dwarfunits.py CUBIN           per compile unit, in order: every DIE that names a source file
                                (`unit | tag name | decl_file FILE`, also call_file) and every
                                subprogram's code range (`unit | subprogram name | pc LOW HIGH`);
                                llvm-dwarfdump resolves file numbers through each unit's own line
                                table, so files are compared, not numbers
  dwarfunits.py --loc CUBIN     the .debug_loc entries (ranges and locations), list by list
  dwarfunits.py --verify CUBIN  the kinds of error llvm-dwarfdump --verify reports (offsets removed)
"""
import re
import subprocess
import sys


def dwarfdump(*args):
    return subprocess.run(["llvm-dwarfdump", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True).stdout


def units(cubin):
    rows, unit, die = [], None, None

    def flush():
        if not die:
            return
        tag, attrs = die
        name = attrs.get("name", "")
        if tag == "subprogram" and "high_pc" in attrs:
            rows.append("%s | subprogram %s | pc %s %s" % (unit, name, attrs.get("low_pc"), attrs["high_pc"]))
        for key in ("decl_file", "call_file"):
            if key in attrs:
                rows.append("%s | %s %s | %s %s" % (unit, tag, name, key, attrs[key]))

    for line in dwarfdump("--debug-info", cubin).splitlines():
        s = line.strip()
        if s.startswith("0x") and "DW_TAG_" in s:
            flush()
            die = (s.split(":", 1)[1].split()[0][7:], {})
            continue
        m = re.match(r"DW_AT_(\w+)\s+\((.*)\)$", s)
        if m and die:
            die[1][m.group(1)] = m.group(2)
            if die[0] == "compile_unit" and m.group(1) == "name":
                unit = m.group(2)
    flush()
    return rows


def loc(cubin):
    return [l.strip() for l in dwarfdump("--debug-loc", cubin).splitlines() if l.strip().startswith("(0x")]


def verify(cubin):
    kinds = set()
    for l in dwarfdump("--verify", cubin).splitlines():
        if l.startswith("error:") and "failed to compute relocation" not in l:
            kinds.add(re.sub(r"0x[0-9a-fA-F]+", "X", l))
    return sorted(kinds)


if sys.argv[1] == "--loc":
    rows = loc(sys.argv[2])
elif sys.argv[1] == "--verify":
    rows = verify(sys.argv[2])
else:
    rows = units(sys.argv[1])
print("\n".join(rows))
