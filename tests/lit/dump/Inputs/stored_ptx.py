#!/usr/bin/env python3
"""Checks an extracted PTX image against an uncompressed fatbinary: the file must be exactly the text the
fatbinary stores for some PTX entry (bytes up to the NUL that ends it), with no NUL inside.

usage: stored_ptx.py FATBIN EXTRACTED
"""
import struct
import sys

fatbin = open(sys.argv[1], "rb").read()
text = open(sys.argv[2], "rb").read()
assert b"\0" not in text, "extracted PTX contains NUL bytes"
pos = 16
while pos < len(fatbin):
    kind, _, hs, size = struct.unpack_from("<HHIQ", fatbin, pos)
    payload = fatbin[pos + hs: pos + hs + size]
    if kind == 1 and payload.split(b"\0")[0] == text and payload[len(text):].strip(b"\0") == b"":
        print("stored PTX matches")
        sys.exit(0)
    pos += hs + size
sys.exit("no PTX entry stores exactly this text")
