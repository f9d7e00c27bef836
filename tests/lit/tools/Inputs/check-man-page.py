#!/usr/bin/env python3
"""Checks a tool's generated man page against its --help: every option spelling --help lists must appear
in the page's OPTIONS section, and the page must name the tool. The two are printed from the same option
table, so a failure means the generator drops something (an alias, a group, a value)."""
import re
import subprocess
import sys

tool, page_path = sys.argv[1], sys.argv[2]
help_text = subprocess.run([tool, "--help"], check=True, capture_output=True, text=True).stdout
page = open(page_path, encoding="utf-8").read()
# roff escapes: "\-" is a minus, "\&" a zero-width guard, "\e" a backslash.
plain = page.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
if f".TH {tool.rsplit('/', 1)[-1].upper()} 1" not in plain:
    sys.exit(f"{page_path}: no .TH line for {tool}")
options = plain.split(".SH OPTIONS", 1)
if len(options) != 2:
    sys.exit(f"{page_path}: no OPTIONS section")
documented = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w.+-]*)", options[1]))

in_options = False
listed = []
for line in help_text.splitlines():
    if re.match(r"^\S.*:$", line):  # a group heading ("OPTIONS:", "VIEWS (... --headers):") opens a list
        in_options = True
        continue
    if not line.strip():
        continue
    if in_options and not line.startswith(" "):
        in_options = False
    if in_options:
        m = re.match(r"^\s+(-[^\s=<,]+)", line)
        if m:
            listed.append(m.group(1))
if not listed:
    sys.exit(f"{tool} --help lists no options")
missing = [o for o in listed if o not in documented]
if missing:
    sys.exit(f"{page_path}: options in --help but not in the man page: {', '.join(missing)}")
print(f"{len(listed)} options documented")
