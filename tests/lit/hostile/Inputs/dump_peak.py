"""Runs ptxlink-dump over one generated input and checks issue 15's memory bound on it (peak resident
memory at most twice the input plus 100 MB), for the hostile tests' generators (archive_memory.py,
many_images.py). The output is read as it comes (the child's output is not held here either): the number
of lines, the first and last few, the peak, and with --json whether the streamed document is still one
valid JSON document; "peak within bound", or exit status 1.

The generator must import this module before it builds large data: a child's peak RSS counts what it
shared with its parent before exec.
"""
import json
import os
import shutil
import subprocess
import sys


def dump_and_check_peak(path, options, first_lines=8, last_lines=14, describe_json=None):
    size = os.path.getsize(path)
    p = subprocess.Popen([shutil.which("ptxlink-dump")] + options + [path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    lines = 0
    first, last = [], []
    document = [] if describe_json is not None and "--json" in options else None
    for line in p.stdout:
        lines += 1
        if len(first) < first_lines:
            first.append(line)
        last = (last + [line])[-last_lines:]
        if document is not None:
            document.append(line)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    peak = usage.ru_maxrss * 1024
    sys.stdout.write(b"".join(first).decode())
    print("...")
    sys.stdout.write(b"".join(last).decode())
    print("%d lines, rc %d, input %d bytes, peak %d MB" % (lines, os.waitstatus_to_exitcode(status), size,
                                                          peak >> 20))
    sys.stdout.write(err.decode(errors="replace")[:2000])
    if document is not None:  # the streamed document must still be one valid JSON document
        print(describe_json(json.loads(b"".join(document))))
    if peak > 2 * size + (100 << 20):
        sys.exit("peak %d MB exceeds twice the input plus 100 MB" % (peak >> 20))
    print("peak within bound")


def dump_within_bound(path, options):
    """One ptxlink-dump run of several in a test: prints one line (options, input, exit status, line
    count, last line, peak) and returns whether the peak is within twice the input plus 100 MB."""
    size = os.path.getsize(path)
    p = subprocess.Popen([shutil.which("ptxlink-dump")] + options + [path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    lines, last = 0, b""
    for line in p.stdout:
        lines += 1
        last = line
    _, status, usage = os.wait4(p.pid, 0)
    peak = usage.ru_maxrss * 1024
    print("%s %s: rc %d, %d lines, last: %s; input %d bytes, peak %d MB" % (
        " ".join(options), os.path.basename(path), os.waitstatus_to_exitcode(status), lines,
        last.decode().strip(), size, peak >> 20))
    if peak > 2 * size + (100 << 20):
        print("  peak exceeds twice the input plus 100 MB")
        return False
    return True
