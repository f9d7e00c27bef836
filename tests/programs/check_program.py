#!/usr/bin/env python3
"""Builds one of the multi-file CUDA test programs under tests/programs with nvcc and links it with
ptxlink and with NVIDIA's own tools, the way a user of `nvcc -rdc=true` would, and says whether they agree.

The problem it solves: ptxlink must link what real compilers emit (templates and inline functions in
headers, static kernels, `__constant__` arrays shared through `extern`, device libraries, curand) with no
false diagnostics and the same result as nvlink. For each program:

  1. every translation unit is compiled with `nvcc -rdc=true -ptx` (plus --flags, e.g. -G, and per-unit
     defines written `file.cu:-DNAME=1`); the units of --lib become a ptxlink-ar library;
  2. ptxlink links the modules and the library (`--emit ptx`); it must print nothing (no warning);
  3. ptxas (with -g for -G) must accept the linked module;
  4. the same modules through NVIDIA's route: `ptxas -c` per module, `nvlink` over the cubins;
  5. kernels (with module-local ones, whose link-made `$N` suffix is dropped: nvlink keeps such twins
     under one name) and visible variables of both cubins must be the same.

Prints `PROGRAM <name>: ...` lines for FileCheck; exits 1 at the first disagreement.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


def fail(msg):
    print("PROGRAM FAIL: " + msg)
    sys.exit(1)


def symbols(cubin):
    """Kernels (a multiset of names, `$N` link suffixes dropped) and visible variables of a cubin."""
    rc, out = run(["llvm-readelf", "--symbols", "--wide", cubin])
    if rc != 0:
        fail("llvm-readelf failed on %s:\n%s" % (cubin, out))
    kernels, variables = collections.Counter(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":") or f[6] == "UND":
            continue
        name = f[-1]
        if f[3] == "FUNC" and "other: 0x10" in line:
            kernels[re.sub(r"\$\d+$", "", name)] += 1
        elif f[3] == "OBJECT" and f[4] in ("GLOBAL", "WEAK"):
            variables.add(name)
    return kernels, variables


def ptx_symbols(ptx):
    """The same as symbols(), read from the text of a linked PTX module (ptxas keeps every kernel and
    every visible variable of a whole-program module)."""
    kernels, variables = collections.Counter(), set()
    for line in open(ptx):
        m = re.match(r"(?:\.visible |\.weak )?\.entry ([\w$]+)", line)
        if m:
            kernels[re.sub(r"\$\d+$", "", m.group(1))] += 1
        m = re.match(r"\.(?:visible|weak) \.(?:global|const)\b[^;=]*?([\w$]+)\s*(?:\[[^\]]*\]\s*)*(?:=|;)", line)
        if m:
            variables.add(m.group(1))
    return kernels, variables


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--src", required=True, help="the program's folder")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--flags", default="", help="more nvcc flags for every unit, e.g. -G")
    ap.add_argument("--lib", action="append", default=[], help="a unit of the device library")
    ap.add_argument("--out", help="keep the build here (default: a temporary folder)")
    ap.add_argument("--no-ptxas-on-linked", action="store_true",
                    help="read ptxlink's kernels and variables from the linked PTX instead of from ptxas's cubin "
                         "(for -G programs while ptxas crashes on merged DWARF: issue 11, item 3)")
    ap.add_argument("units", nargs="+", help="file.cu or file.cu:-DNAME=VALUE,...")
    a = ap.parse_args()
    tmp = a.out or tempfile.mkdtemp(prefix="ptxlink-program-")
    os.makedirs(tmp, exist_ok=True)
    flags = a.flags.split()
    debug = "-G" in flags
    number = a.arch.split("_")[1]

    # 1. Compile (two at a time: the machines running the suite are small).
    jobs = []
    for i, unit in enumerate(a.units + a.lib):
        src, _, defines = unit.partition(":")
        ptx = os.path.join(tmp, "%d_%s.ptx" % (i, os.path.basename(src)[:-3]))
        cmd = ["nvcc", "-rdc=true", "-ptx", "-arch=compute_" + number, *flags,
               *[d for d in defines.split(",") if d], os.path.join(a.src, src), "-o", ptx]
        jobs.append((unit in a.lib, ptx, cmd))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for (lib, ptx, cmd), (rc, out) in zip(jobs, pool.map(lambda j: run(j[2]), jobs)):
            if rc != 0:
                fail("nvcc failed: %s\n%s" % (" ".join(cmd), out))
    modules = [ptx for lib, ptx, _ in jobs if not lib]
    library = [ptx for lib, ptx, _ in jobs if lib]
    inputs = list(modules)
    if library:
        objs = []
        for ptx in library:
            obj = ptx[:-4] + ".o"
            rc, out = run(["ptxlink-as", ptx, "-o", obj])
            if rc != 0:
                fail("ptxlink-as failed on %s:\n%s" % (ptx, out))
            objs.append(obj)
        archive = os.path.join(tmp, "libdevice.a")
        rc, out = run(["ptxlink-ar", "rcs", archive, *objs])
        if rc != 0:
            fail("ptxlink-ar failed:\n" + out)
        inputs.append(archive)

    # 2. Link with ptxlink: not one word on standard error.
    linked = os.path.join(tmp, "linked.ptx")
    rc, out = run(["ptxlink", "-arch", a.arch, "--emit", "ptx", *inputs, "-o", linked])
    if rc != 0 or out.strip():
        fail("ptxlink (rc %d) said:\n%s" % (rc, out))

    # 3. ptxas accepts the linked module.
    ours = os.path.join(tmp, "ptxlink.cubin")
    if not a.no_ptxas_on_linked:
        rc, out = run(["ptxas", "-arch=" + a.arch, *(["-g"] if debug else []), linked, "-o", ours])
        if rc != 0:
            fail("ptxas rejects the linked module:\n" + out)

    # 4. NVIDIA's route over the same modules.
    cubins = []
    for ptx in modules + library:
        cubin = ptx[:-4] + ".cubin"
        rc, out = run(["ptxas", "-c", "-arch=" + a.arch, *(["-g"] if debug else []), ptx, "-o", cubin])
        if rc != 0:
            fail("ptxas -c rejects %s:\n%s" % (ptx, out))
        cubins.append(cubin)
    theirs = os.path.join(tmp, "nvlink.cubin")
    rc, out = run(["nvlink", "-arch=" + a.arch, *(["-g"] if debug else []), *cubins, "-o", theirs])
    if rc != 0:
        fail("nvlink failed:\n" + out)

    # 5. The same kernels and visible variables.
    k1, v1 = ptx_symbols(linked) if a.no_ptxas_on_linked else symbols(ours)
    k2, v2 = symbols(theirs)
    if k1 != k2 or v1 != v2:
        fail("ptxlink and nvlink disagree:\n  kernels only ptxlink: %s\n  kernels only nvlink: %s\n"
             "  variables only ptxlink: %s\n  variables only nvlink: %s"
             % (sorted((k1 - k2).elements()), sorted((k2 - k1).elements()), sorted(v1 - v2), sorted(v2 - v1)))
    print("PROGRAM %s%s: %d modules, %d kernels (%d module-local twins), %d visible variables: "
          "no diagnostics, %s, same as nvlink"
          % (a.name, " -G" if debug else "", len(modules) + len(library), sum(k1.values()),
             sum(n - 1 for n in k1.values() if n > 1), len(v1),
             "ptxas not run" if a.no_ptxas_on_linked else "ptxas accepts"))
    if not a.out:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
