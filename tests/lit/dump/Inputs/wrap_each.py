#!/usr/bin/env python3
"""Wraps each of the cubins b, many, funcs and a (DIR/NAME.cubin) into a fatbinary of its own,
DIR/PREFIX-NAME.fatbin, with ptxlink-dump --create-fatbin or NVIDIA's fatbinary and the options given,
for nvlink, which links only one image per architecture from each fatbinary.

usage: wrap_each.py DIR PREFIX ptxlink-dump|fatbinary OPTION...
"""
import os
import subprocess
import sys

directory, prefix, tool = sys.argv[1:4]
options = sys.argv[4:]
for name in ("b", "many", "funcs", "a"):
    cubin = os.path.join(directory, name + ".cubin")
    out = os.path.join(directory, "%s-%s.fatbin" % (prefix, name))
    if tool == "fatbinary":
        command = ["fatbinary", "--create=" + out] + options + ["--image3=kind=elf,sm=90,file=" + cubin]
    else:
        command = ["ptxlink-dump", "--create-fatbin", out] + options + [cubin]
    subprocess.run(command, check=True)
