"""A --sass link whose compile cache lies on a full or read-only file system (sass-cache-full.test).

Mounts small tmpfs file systems under WORK (root only; the test REQUIRES tmpfs-mount), runs ptxlink and
prints, per case, its exit status, the notes it wrote, and whether its output equals the cache-less
link's. Everything mounted is unmounted again, whatever happens.
"""
import glob
import os
import subprocess
import sys

work, inputs = sys.argv[1], sys.argv[2:]
mounts = []


def mount(path, size, options=""):
    os.makedirs(path, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size + options, "tmpfs", path], check=True)
    mounts.append(path)


def fill(path):
    # Until no byte more fits (dd stops with ENOSPC).
    subprocess.run(["dd", "if=/dev/zero", "of=" + os.path.join(path, "fill"), "bs=1k"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def link(name, cache, *extra):
    out = os.path.join(work, name + ".fatbin")
    cmd = ["ptxlink", "--sass", "--sass-batch-below", "0", "-arch", "sm_80", *inputs, "-o", out, *extra]
    cmd += ["--no-cache"] if cache is None else ["--cache-dir", cache]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    same = os.path.exists(out) and open(out, "rb").read() == open(os.path.join(work, "ref.fatbin"), "rb").read()
    print(name + ": exit", p.returncode, "identical" if same else "DIFFERENT")
    for line in p.stdout.splitlines():
        if "note" in line or "error" in line:
            print(name + ": " + line)


try:
    subprocess.run(["ptxlink", "--sass", "--sass-batch-below", "0", "-arch", "sm_80", *inputs, "-o",
                    os.path.join(work, "ref.fatbin"), "--no-cache"], check=True)
    # A full disk from the start: no unit can be stored, and nvlink's result is not offered.
    full = os.path.join(work, "full")
    mount(full, "64k")
    fill(full)
    link("full", os.path.join(full, "cache"))
    # The units cached, then the disk full: nvlink cannot write its result into the cache's folder.
    part = os.path.join(work, "part")
    mount(part, "1m")
    link("fill-cache", os.path.join(part, "cache"))
    for f in glob.glob(os.path.join(part, "cache", "*", "*.link")):
        os.remove(f)
    fill(part)
    link("nvlink-full", os.path.join(part, "cache"), "-v")
    # A read-only cache folder.
    ro = os.path.join(work, "ro")
    mount(ro, "1m")
    os.makedirs(os.path.join(ro, "cache"))
    subprocess.run(["mount", "-o", "remount,ro", ro], check=True)
    link("read-only", os.path.join(ro, "cache"))
finally:
    for m in reversed(mounts):
        subprocess.run(["umount", m])
