#!/usr/bin/env python3
"""Differential oracle: link the same PTX modules with ptxlink and with NVIDIA's tools and compare.

ptxlink: `ptxlink -arch A --emit ptx MODULES`. NVIDIA: `ptxas -c -arch=A` per module, then `nvlink -arch=A`.
They must agree on success. When both link: ptxas must accept ptxlink's module, and the kernels and
visible variables (GLOBAL/WEAK symbols in the cubins, read with llvm-readelf) must be the same.
Prints one line `ORACLE: ...` for FileCheck; exits 1 on disagreement.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout + p.stderr


def exported(cubin):
    rc, out = run(["llvm-readelf", "--symbols", cubin])
    if rc != 0:
        sys.exit("llvm-readelf failed on %s:\n%s" % (cubin, out))
    kernels, variables = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":") or f[4] not in ("GLOBAL", "WEAK") or f[6] == "UND":
            continue
        name = f[-1]
        if f[3] == "FUNC" and "other: 0x10" in line:
            kernels.add(name)
        elif f[3] in ("OBJECT", "<unknown>:", "13") or (f[3] not in ("FUNC", "SECTION", "NOTYPE", "FILE")):
            variables.add(name)
    return kernels, variables


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--ptxlink-arg", action="append", default=[])
    ap.add_argument("--nvlink-arg", action="append", default=[])
    ap.add_argument("modules", nargs="+")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ptxlink-oracle-")
    linked = os.path.join(tmp, "linked.ptx")
    rc_ours, out_ours = run(["ptxlink", "-arch", a.arch, "--emit", "ptx", *a.ptxlink_arg, *a.modules, "-o", linked])
    cubins = []
    for i, m in enumerate(a.modules):
        c = os.path.join(tmp, "m%d.cubin" % i)
        rc, out = run(["ptxas", "-c", "-arch=" + a.arch, m, "-o", c])
        if rc != 0:
            print("ORACLE: ptxas -c rejects input %s (scenario unusable)\n%s" % (m, out))
            return 1
        cubins.append(c)
    nv = os.path.join(tmp, "nvlink.cubin")
    rc_nv, out_nv = run(["nvlink", "-arch=" + a.arch, *a.nvlink_arg, *cubins, "-o", nv])
    if (rc_ours == 0) != (rc_nv == 0):
        print("ORACLE: DISAGREE ptxlink rc=%d nvlink rc=%d\n--- ptxlink:\n%s--- nvlink:\n%s" % (rc_ours, rc_nv, out_ours, out_nv))
        return 1
    if rc_ours != 0:
        print("ORACLE: agree: both reject")
        return 0
    ours = os.path.join(tmp, "ours.cubin")
    rc, out = run(["ptxas", "-arch=" + a.arch, linked, "-o", ours])
    if rc != 0:
        print("ORACLE: ptxas rejects ptxlink's output\n" + out)
        return 1
    k1, v1 = exported(ours)
    k2, v2 = exported(nv)
    if k1 != k2 or v1 != v2:
        print("ORACLE: DISAGREE on symbols: ptxlink kernels=%s variables=%s; nvlink kernels=%s variables=%s"
              % (sorted(k1), sorted(v1), sorted(k2), sorted(v2)))
        return 1
    print("ORACLE: agree: both link; kernels=%s variables=%s" % (",".join(sorted(k1)), ",".join(sorted(v1))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
