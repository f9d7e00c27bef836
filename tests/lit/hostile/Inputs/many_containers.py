"""Issue 29, item 8: ptxlink-dump's memory per fatbinary container. Writes a fatbinary of COUNT containers
of one small LTO-IR image each (9.6 MB for 100,000), dumps it with the given options and checks the peak
against twice the input plus 100 MB (dump_peak.py). The headers view held its container list as one JSON
array: 561 MB for 100,000 containers.

  many_containers.py WORK_DIR COUNT [DUMP OPTION...]
"""
import os
import struct
import sys

from dump_peak import dump_and_check_peak

work, count = sys.argv[1], int(sys.argv[2])
options = sys.argv[3:]

LTOIR = 8
payload = b"\x7fLTO-IR!" * 2
entry = struct.pack("<HHIQIIHHIIIQQQ", LTOIR, 0x0101, 0x40, len(payload), 0, 0, 0, 1, 90, 0, 0, 0x11, 0, 0) + payload
container = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry)) + entry
path = os.path.join(work, "containers.fatbin")
with open(path, "wb") as f:
    f.write(container * count)


def describe(doc):
    headers = doc["inputs"][0]["headers"]
    return "json: %d containers, %d images, last at offset %d" % (
        len(headers["containers"]), headers["images"], headers["containers"][-1]["offset"])


dump_and_check_peak(path, options, first_lines=8, last_lines=3, describe_json=describe)
