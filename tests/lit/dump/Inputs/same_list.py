#!/usr/bin/env python3
"""Compares `ptxlink-dump --list --json` of two fatbinaries: the same images with the same fields,
except the sizes and offsets of PTX images (fatbinary strips comments and indentation from PTX text, we
store it verbatim) and the compressed sizes (different compressor settings).

usage: same_list.py OURS THEIRS
"""
import json
import subprocess
import sys

IGNORED_ALWAYS = {"offset", "compressedSize", "storedSize"}
IGNORED_PTX = {"uncompressedSize", "payloadSize"}


def listing(path):
    out = subprocess.run(["ptxlink-dump", "--list", "--json", path], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["inputs"][0]["list"]


ours, theirs = listing(sys.argv[1]), listing(sys.argv[2])
if len(ours) != len(theirs):
    sys.exit("image count differs: %d vs %d" % (len(ours), len(theirs)))
for a, b in zip(ours, theirs):
    ignored = IGNORED_ALWAYS | (IGNORED_PTX if a["kind"] == "ptx" else set())
    for key in sorted(set(a) | set(b)):
        if key in ignored:
            continue
        if a.get(key) != b.get(key):
            sys.exit("image %s: %s differs: ours %r, fatbinary %r" % (a["index"], key, a.get(key), b.get(key)))
print("same %d images" % len(ours))
