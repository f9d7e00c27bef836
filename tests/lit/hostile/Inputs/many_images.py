"""Issue 15, finding 3: ptxlink-dump's memory per fatbinary image. Writes a fatbinary of COUNT small images
(LTO-IR, cheap to describe, with a PTX and a cubin image first so every column of the list appears), dumps
it with the given options, and checks the dump's peak resident memory against twice the input plus
100 MB. Before streaming, the images, their list and their JSON nodes were all held until the end.

  many_images.py WORK_DIR COUNT [DUMP OPTION...]

Prints the number of lines written, the first and last few, for --json what the parsed document holds,
and "peak within bound" (or exits 1).
"""
import os
import struct
import sys

from dump_peak import dump_and_check_peak

work, count = sys.argv[1], int(sys.argv[2])
options = sys.argv[3:]

PTX, ELF, LTOIR = 1, 2, 8


def entry(kind, sm, payload, flags=0x11):
    padded = payload + b"\0" * (-len(payload) % 8)
    h = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x0101, 0x40, len(padded), 0, 0, 4 if kind == PTX else 0,
                    8 if kind == PTX else 1, sm, 0, 0, flags, 0, 0)
    return h + padded


ptx = b".version 8.4\n.target sm_90\n.address_size 64\n"
ltoir = entry(LTOIR, 90, b"\x7fLTO-IR!" * 2)
body = entry(PTX, 90, ptx) + ltoir * count
path = os.path.join(work, "many.fatbin")
with open(path, "wb") as f:
    f.write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body)


def describe(doc):
    node = doc["inputs"][0]
    return "json: %d inputs, %d diagnostics; first input: %d children, %d list rows, %d select candidates" % (
        len(doc["inputs"]), len(doc["diagnostics"]), len(node.get("children", [])), len(node.get("list", [])),
        len(node.get("select", {}).get("candidates", [])))


dump_and_check_peak(path, options, first_lines=12, last_lines=4, describe_json=describe)
