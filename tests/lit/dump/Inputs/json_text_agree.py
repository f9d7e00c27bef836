#!/usr/bin/env python3
"""Checks that ptxlink-dump's text output shows every value its JSON output has, for the views given.

usage: json_text_agree.py TOOL [FLAGS...] -- FILE...
Runs TOOL FLAGS FILE... and TOOL FLAGS --json FILE...; both must exit with the same status; every
scalar leaf of every view in the JSON (strings without newlines, numbers, booleans) must appear in the
text. Prints the number of values compared; fails if it is zero.
"""
import json
import subprocess
import sys

VIEWS = ("ptxHeader", "headers", "sections", "symbols", "relocs", "nvinfo", "abi", "callgraph", "debug",
         "list", "select")


def leaves(value, out):
    if isinstance(value, dict):
        if set(value) == {"hex"}:
            out.append("hex:" + value["hex"])
            return
        for v in value.values():
            leaves(v, out)
    elif isinstance(value, list):
        if value and all(not isinstance(v, (dict, list)) for v in value):
            out.append(",".join(text_of(v) for v in value))
        else:
            for v in value:
                leaves(v, out)
    elif value is not None:
        out.append(text_of(value))


def text_of(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def nodes(node):
    yield node
    for child in node.get("children", []):
        yield from nodes(child)


def main():
    args = sys.argv[1:]
    split = args.index("--")
    tool, flags, files = args[0], args[1:split], args[split + 1:]
    text = subprocess.run([tool] + flags + files, capture_output=True, text=True)
    js = subprocess.run([tool] + flags + ["--json"] + files, capture_output=True, text=True)
    if text.returncode != js.returncode:
        sys.exit("exit status differs: text %d, json %d" % (text.returncode, js.returncode))
    doc = json.loads(js.stdout)
    assert doc["schema"] == "ptxlink-dump" and isinstance(doc["schemaVersion"], int)
    values = []
    for top in doc["inputs"]:
        for node in nodes(top):
            for view in VIEWS:
                if view in node:
                    leaves(node[view], values)
    # --ptx: each PTX text in the JSON appears verbatim in the text output.
    for top in doc["inputs"]:
        for node in nodes(top):
            for entry in node.get("ptx", []):
                if entry["text"] not in text.stdout:
                    sys.exit("PTX text of %s is not in the text output" % node["name"])
                values.append("ptx:" + node["name"])
    values = [v for v in values if "\n" not in v and v != ""]
    missing = [v for v in values if not v.startswith("ptx:") and v not in text.stdout]
    if missing:
        sys.exit("in the JSON but not in the text: %r" % missing[:10])
    if not values:
        sys.exit("nothing compared")
    print("agree: %d values" % len(values))


main()
