#!/usr/bin/env python3
"""Compatibility campaign: build public separate-compilation CUDA programs with nvcc's device link and
with ptxlink's, the way a user would, and compare what the two device links produce.

  scripts/compat/run.py --src /work/compat-src --ptxlink-build build [--work /tmp/ptxlink-compat]
                        [--recipes scripts/compat/recipes.toml] [--only NAME ...] [--report OUT.md]

--src holds one checkout per recipe (recipe `dir` is relative to it; `fetch` in the recipe says where the
checkout comes from). --ptxlink-build is a built ptxlink tree; it is installed into WORK/prefix so that
CMake projects get the installed package's UsePtxlink.cmake, as docs/host-link.md tells users.

Per recipe (kind):
- cmake: configured and built four times, {Ninja, Unix Makefiles} x {nvcc's device link, ptxlink's
  through -DCMAKE_PROJECT_INCLUDE=PREFIX/lib/cmake/ptxlink/UsePtxlink.cmake}, and, when `debug` is set,
  twice more with -G (Ninja). Every cmake_device_link.o of the nvcc tree is compared with the ptxlink
  tree's at the same path.
- make: the directory is copied twice; `patch` (regex, replacement pairs on `makefile`) applied to both
  ports the project to this toolkit (an old -arch); `ptxlink_patch` applied to the ptxlink copy is the
  documented change (nvcc -dlink -> ptxlink -dlink, or the implicit device link split into ptxlink -dlink
  and a host link). Then `make`.
- script: `steps` (shell, in a copy of the directory) with {DLINK} = `nvcc -dlink` or `ptxlink -dlink`,
  {ARCH} = the recipe's arch (sm_80), {G} = '' or '-G' (the debug variant).

Then, for every device link of the nvcc build (cmake: the nvcc -dlink commands of the Ninja tree; make and
script: `dlink_inputs`), the runner links the same inputs itself: nvcc -dlink; ptxlink -dlink (PTX only);
ptxlink --sass -dlink; ptxlink --emit ptx, given to ptxas (-g under -G). It compares: the
__cudaRegisterLinkedBinary_* functions defined (one per module), and the kernels and global variables of
the linked images (nvcc's cubin against ptxlink's PTX and cubin, read with ptxlink-dump --symbols --json);
ptxlink's warnings are listed (each must be explained). The device-link time ratio is ptxlink's PTX-only
link over nvcc's, medians of three runs.

Results: WORK/results/NAME.json per recipe, and with --report a markdown table of all of them.
"""

import argparse
import fnmatch
import glob
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, cwd, logf, env, timeout=1800):
    """Runs cmd (str: shell; list: argv), appends its output to logf; returns (status, seconds, output)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        status, out = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        status, out = 124, (e.stdout or b"").decode(errors="replace") + "\n[timed out]\n"
    dt = time.monotonic() - t0
    with open(logf, "a") as f:
        f.write(f"$ {cmd if isinstance(cmd, str) else shlex.join(cmd)}   (cwd {cwd})\n{out}[status {status}, {dt:.2f}s]\n")
    return status, dt, out


def load_recipes(path):
    with open(path, "rb") as f:
        if path.endswith(".json"):
            return json.load(f)["program"]
        if tomllib is None:
            sys.exit("run.py: reading TOML needs Python 3.11 (tomllib); give a .json recipe file")
        return tomllib.load(f)["program"]


# ---------------------------------------------------------------------------------------------------
# What a device-link object holds


def registrations(obj):
    """The __cudaRegisterLinkedBinary_<id> functions an object defines: one per module it links."""
    p = subprocess.run(["nm", "--defined-only", obj], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    names = set()
    for line in p.stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TW" and parts[2].startswith("__cudaRegisterLinkedBinary_"):
            names.add(parts[2])
    return names


def images(dump, obj):
    """{image kind: {'kernels': set, 'variables': set}} of the fatbinary in a device-link object."""
    # nvcc -dlink -G of a large program stores a compressed cubin of hundreds of MB (era-bellman-cuda: 205 MB),
    # past ptxlink-dump's default decompression budget.
    p = subprocess.run([dump, "--symbols", "--json", "--max-decompressed", "4G", obj], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    try:
        doc = json.loads(p.stdout.decode())
    except ValueError:
        return {"error": p.stderr.decode()[:300]}
    out = {}

    def walk(node):
        kind = node.get("kind")
        if kind in ("cubin", "ptx") and "symbols" in node:
            key = f"{kind}:{node.get('arch', '?')}"
            entry = out.setdefault(key, {"kernels": set(), "variables": set()})
            for s in node["symbols"]:
                name = s["name"]
                # Module-local kernels and variables (static, __nv_static_*) are registered by name too;
                # compiler-made constants ($str, __unnamed_1, .const data) are not.
                if name.startswith(("$", ".", "__unnamed")) or s.get("binding") not in ("global", "weak", "local"):
                    continue
                # Shared memory (a kernel's __shared__, extern __shared__) is per block, never registered;
                # -G cubins name it (.nv.shared.*, .nv_debug.shared), PTX images do not list it.
                if "shared" in str(s.get("section", "")) or "shared" in str(s.get("space", "")):
                    continue
                if s.get("kind") == "kernel":
                    entry["kernels"].add(name)
                elif s.get("kind") in ("variable", "object"):  # PTX images say variable, cubins object
                    entry["variables"].add(name)
        for c in node.get("children", []):
            walk(c)

    for i in doc.get("inputs", []):
        walk(i)
    return out


MODULE_HASH = re.compile(r"(?<![0-9a-f])[0-9a-f]{8}(?=_\d+_)|(?<=_cu_)[0-9a-f]{8}|(?<=_cpp_)[0-9a-f]{8}")


# Some module ids end in a number that changes from one compilation to the next: _11_Material_cu_<hash>_5764.
MODULE_SERIAL = re.compile(r"(?<=_cu_H|cpp_H)_\d+")


def normalized(names):
    """Names with the hashes of nvcc's module ids blanked: two builds of the same sources (in different
    folders) give their modules different ids, and module-local names (__nv_static_*) carry them."""
    out = set()
    for n in names:
        n = MODULE_SERIAL.sub("", MODULE_HASH.sub("H", n))
        # A name that holds a module id also holds lengths that count its digits (__nv_static_45__,
        # _ZN54_INTERNAL_..., 56_GLOBAL__N_...): its digits are compared as one class.
        out.add(re.sub(r"\d+", "N", n) if "_H_" in n else n)
    return out


def host_references(dump, inputs, cwd):
    """Every kernel, variable and constant that host code of the inputs refers to (.nvHR* sections of
    nvcc -rdc objects): what nvlink --use-host-info keeps, and what the runtime registers."""
    refs = set()
    if not inputs:
        return refs
    p = subprocess.run([dump, "--headers", "--json"] + inputs, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        doc = json.loads(p.stdout.decode())
    except ValueError:
        return refs

    def walk(node):
        for h in node.get("headers", {}).get("hostReferences", []) if isinstance(node.get("headers"), dict) else []:
            refs.update(h.get("names", []))
        for c in node.get("children", []):
            walk(c)

    for i in doc.get("inputs", []):
        walk(i)
    return normalized(refs)


_DEVRT = {}


def device_runtime_names(dump):
    """Kernels and variables of the CUDA device runtime (libcudadevrt.a, SASS only): nvlink links them into
    a cubin where a program uses it; a PTX image cannot hold them."""
    if "names" not in _DEVRT:
        names = set()
        lib = os.path.join(CUDA, "lib64", "libcudadevrt.a")
        if os.path.exists(lib):
            for v in images(dump, lib).values():
                names |= v["kernels"] | v["variables"]
        _DEVRT["names"] = normalized(names)
    return _DEVRT["names"]


def image_arch(key):
    """The architecture of an images() key, as its number: 'cubin:sm_90a' and 'ptx:compute_90a' give '90a'."""
    m = re.search(r"_(\d+[a-z]?)$", key)
    return m.group(1) if m else key


def compare_objects(dump, nvcc_obj, ptx_obj, extras=None):
    """Differences between two device-link objects of the same inputs: [] when they agree. Names only
    ptxlink's object has go to extras (nvlink drops kernels and variables no host code refers to; the
    caller decides with the host references whether that is a difference)."""
    diffs = []
    rn, rp = normalized(registrations(nvcc_obj)), normalized(registrations(ptx_obj))
    if rn != rp:
        diffs.append(f"modules registered: nvcc only {sorted(rn - rp)[:3]}, ptxlink only {sorted(rp - rn)[:3]}")
    inv, ipt = images(dump, nvcc_obj), images(dump, ptx_obj)
    if "error" in inv or "error" in ipt:
        diffs.append(f"ptxlink-dump: {inv.get('error', '')}{ipt.get('error', '')}")
        return diffs
    # Each image is compared with nvcc's for the same architecture (its cubin, else its PTX): a -G link or
    # one whose SASS stands in for PTX differs by arch, and every arch of nvcc's object must be in ptxlink's.
    # An arch only ptxlink's object has (with no -arch, ptxlink links every arch the objects carry, nvcc
    # its default sm_75: finding 1) is compared with nvcc's first cubin.
    by_arch = {}
    for k, v in sorted(inv.items(), key=lambda kv: not kv[0].startswith("cubin")):
        by_arch.setdefault(image_arch(k), v)
    first = next((v for k, v in sorted(inv.items()) if k.startswith("cubin")), None) or \
        next((v for v in inv.values()), None)
    if first is None:
        return diffs + ["nvcc's object has no image"]
    if not ipt:
        return diffs + ["ptxlink's object has no image"]
    ours = {image_arch(k) for k in ipt}
    for arch in sorted(a for a in by_arch if a not in ours):
        diffs.append(f"no image for sm_{arch} in ptxlink's (nvcc's has one)")
    for key, got in sorted(ipt.items()):
        ref = by_arch.get(image_arch(key), first)
        for what in ("kernels", "variables"):
            want, have = normalized(ref[what]), normalized(got[what])
            if key.startswith("ptx"):  # the device runtime (libcudadevrt) is SASS only: never in a PTX image
                want = {n for n in want if "cuda_device_runtime" not in n and n not in device_runtime_names(dump)}
            only_n = sorted(want - have)
            if only_n:
                diffs.append(f"{key} {what} missing in ptxlink's: {only_n[:4]}{'...' if len(only_n) > 4 else ''}")
            if extras is not None:
                extras.update((what, n) for n in have - want)
    return diffs


def summary_counts(dump, obj):
    ims = images(dump, obj)
    k = v = 0
    for key, got in ims.items():
        if key.startswith("cubin") or len(ims) == 1:
            k, v = len(got["kernels"]), len(got["variables"])
            break
    return len(registrations(obj)), k, v


WARN_RE = re.compile(r"^(ptxlink[^:\n]*|ptxlink-device-link): warning: .*$", re.M)


def ptxlink_warnings(text):
    return sorted(set(m.group(0) for m in WARN_RE.finditer(text)))


# ---------------------------------------------------------------------------------------------------
# Direct device links of the same inputs


def parse_dlink(cmd):
    """(inputs, arch numbers, debug, dlto) of an nvcc -dlink command line."""
    toks = shlex.split(cmd)
    inputs, archs, skip = [], [], False
    for i, t in enumerate(toks):
        if skip:
            skip = False
            continue
        if t == "-o":
            skip = True
            continue
        m = re.search(r"(?:compute|sm)_(\d+[af]?)", t) if ("arch" in t or "code" in t or t.startswith("-gencode")) else None
        if m and m.group(1) not in archs:
            archs.append(m.group(1))
        if not t.startswith("-") and re.search(r"\.(o|a|obj)$", t) and i > 0:
            inputs.append(t)
    debug = "-G" in toks or "--device-debug" in toks
    dlto = "-dlto" in toks or "--dlto" in toks or any("lto_" in t for t in toks)
    return inputs, archs, debug, dlto


def direct_links(ctx, name, cwd, inputs, arch, debug, tag, dlto=False):
    """Links inputs with nvcc -dlink and with ptxlink (PTX, --sass, --emit ptx + ptxas); a result dict.
    A device link with -dlto (CMake's INTERPROCEDURAL_OPTIMIZATION) is linked with -dlto by both, and the
    --sass and --emit ptx links are left out: the SASS is nvJitLink's."""
    out = os.path.join(ctx.work, name, "direct", tag)
    os.makedirs(out, exist_ok=True)
    logf = os.path.join(out, "log.txt")
    env = ctx.env
    g = ["-G"] if debug else []
    r = {"inputs": len(inputs), "arch": arch}
    ctx.refs |= host_references(ctx.dump, inputs, cwd)
    n_obj, p_obj, s_obj, ptx = (os.path.join(out, f) for f in ("nvcc.o", "ptxlink.o", "ptxlink-sass.o", "linked.ptx"))
    lto = ["-dlto"] if dlto else []
    nvcc_cmd = [f"{CUDA}/bin/nvcc", "-dlink", f"-arch=sm_{arch}"] + lto + g + inputs + ["-o", n_obj]
    pl_cmd = [ctx.ptxlink, "-arch", f"sm_{arch}", "-dlink"] + lto + inputs + ["-o", p_obj]
    times_n, times_p = [], []
    for _ in range(ctx.repeat):
        st, dt, o = sh(nvcc_cmd, cwd, logf, env)
        times_n.append(dt)
        r["nvcc"] = "ok" if st == 0 else f"FAIL ({last_line(o)})"
        if st:
            break
    for _ in range(ctx.repeat):
        st, dt, o = sh(pl_cmd, cwd, logf, env)
        times_p.append(dt)
        r["ptxlink"] = "ok" if st == 0 else f"FAIL ({last_line(o)})"
        r["warnings"] = ptxlink_warnings(o)
        if st:
            r["ptxlink_output"] = o[-2000:]
            break
    if dlto:
        r["sass"] = "n/a (-dlto)"
        r["ptxas"] = "n/a (-dlto)"
        r["nvcc_seconds"] = round(statistics.median(times_n), 3)
        r["ptxlink_seconds"] = round(statistics.median(times_p), 3)
        r["diffs"] = []
        if r["nvcc"] == "ok" and r["ptxlink"] == "ok":
            r["diffs"] = [f"-dlto link: {d}" for d in compare_objects(ctx.dump, n_obj, p_obj, ctx.extras)]
            r["modules"], r["kernels"], r["variables"] = summary_counts(ctx.dump, n_obj)
        return r
    st, dt, o = sh([ctx.ptxlink, "-arch", f"sm_{arch}", "--sass", "-dlink"] + inputs + ["-o", s_obj], cwd, logf, env)
    r["sass"] = "ok" if st == 0 else f"FAIL ({last_line(o)})"
    r["sass_seconds"] = round(dt, 3)
    r["warnings"] = sorted(set(r.get("warnings", [])) | set(ptxlink_warnings(o)))
    if st:
        r["sass_output"] = o[-2000:]
    st, dt, o = sh([ctx.ptxlink, "-arch", f"sm_{arch}", "--emit", "ptx"] + inputs + ["-o", ptx], cwd, logf, env)
    if st == 0:
        pst, _, po = sh([f"{CUDA}/bin/ptxas", f"-arch=sm_{arch}"] + (["-g"] if debug else []) + [ptx, "-o", os.path.join(out, "ptxas.cubin")], cwd, logf, env)
        if pst and "__cudaCDP2" in po:  # the device runtime is linked by nvlink, not in the PTX
            pst, _, po = sh([f"{CUDA}/bin/ptxas", "-c", f"-arch=sm_{arch}"] + (["-g"] if debug else []) + [ptx, "-o", os.path.join(out, "ptxas.cubin")], cwd, logf, env)
            r["ptxas"] = "ok (-c: device runtime)" if pst == 0 else f"FAIL ({last_line(po)})"
        else:
            r["ptxas"] = "ok" if pst == 0 else f"FAIL ({last_line(po)})"
        if pst and ".version 0.0" in open(ptx, errors="replace").read(4096):
            r["ptxas"] = "FAIL (ptxlink wrote an empty module: .version 0.0)"
    elif "SASS stands in only" in o:
        # Objects with SASS and no PTX for the arch (code=sm_XX): there is no linked PTX to give ptxas; the
        # device links above linked their SASS (finding 15).
        r["ptxas"] = "n/a (SASS only: no PTX for the arch)"
    elif "no device code to link" in o:
        # Every module sits unused in a static library (finding 12): there is no PTX to give ptxas, as
        # there is no cubin of them in nvcc's link.
        r["ptxas"] = "ok (nothing linked: no module was needed)"
    else:
        r["ptxas"] = f"no PTX ({last_line(o)})"
    r["nvcc_seconds"] = round(statistics.median(times_n), 3)
    r["ptxlink_seconds"] = round(statistics.median(times_p), 3)
    diffs = []
    if r["nvcc"] == "ok" and r["ptxlink"] == "ok":
        diffs += [f"PTX link: {d}" for d in compare_objects(ctx.dump, n_obj, p_obj, ctx.extras)]
        r["modules"], r["kernels"], r["variables"] = summary_counts(ctx.dump, n_obj)
    if r["nvcc"] == "ok" and r["sass"] == "ok":
        diffs += [f"--sass link: {d}" for d in compare_objects(ctx.dump, n_obj, s_obj, ctx.extras)]
    r["diffs"] = diffs
    return r


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip() and not l.startswith(">>>")]
    err = [l for l in lines if "error" in l.lower() or "undefined reference" in l]
    return (err[0] if err else lines[-1] if lines else "")[:240]


# ---------------------------------------------------------------------------------------------------
# Build systems


def run_cmake(ctx, rec, res):
    src = os.path.join(ctx.src, rec["dir"])
    name = rec["name"]
    if rec.get("patch"):  # a port to this toolkit (an architecture it no longer has), in a copy
        copy = os.path.join(ctx.work, name, "src")
        copy_tree(src, copy)
        apply_patches(copy, rec, "patch")
        src = copy
    use = os.path.join(ctx.prefix, "lib/cmake/ptxlink/UsePtxlink.cmake")
    # nvcc's device link is built once per flag set (Ninja): CMake writes the same rule and object paths
    # for both generators, so the Unix Makefiles tree of ptxlink is compared with the Ninja tree of nvcc.
    variants = [("ninja", "Ninja", False, ("nvcc", "ptxlink")), ("make", "Unix Makefiles", False, ("ptxlink",))]
    if rec.get("debug"):
        variants.append(("ninja-G", "Ninja", True, ("nvcc", "ptxlink")))
    builds = res.setdefault("builds", {})
    nvcc_tree = {}
    for short, gen, debug, linkers in variants:
        trees = {}
        if "nvcc" not in linkers:
            trees["nvcc"] = nvcc_tree.get(debug)
        for linker in linkers:
            bdir = os.path.join(ctx.work, name, f"{short}-{linker}")
            logf = bdir + ".log"
            key = f"{short}/{linker}"
            if ctx.previous is not None:  # --recompare: the trees as the last run left them
                builds[key] = ctx.previous.get("builds", {}).get(key, "FAIL (not built)")
                trees[linker] = bdir if builds[key] == "ok" and os.path.isdir(bdir) else None
                if linker == "nvcc":
                    nvcc_tree[debug] = trees[linker]
                continue
            shutil.rmtree(bdir, ignore_errors=True)
            if os.path.exists(logf):
                os.remove(logf)
            args = ["cmake", "-S", src, "-B", bdir, "-G", gen, f"-DCMAKE_CUDA_COMPILER={CUDA}/bin/nvcc",
                    "-DCMAKE_BUILD_TYPE=" + rec.get("build_type", "Release")] + rec.get("cmake_args", [])
            flags = rec.get("cuda_flags", "")
            if debug:
                flags = (flags + " -G").strip()
            if flags:
                args.append(f"-DCMAKE_CUDA_FLAGS={flags}")
            if linker == "ptxlink":
                args.append(f"-DCMAKE_PROJECT_INCLUDE={use}")
            st, _, out = sh(args, ctx.work, logf, ctx.env)
            if st == 0:
                bargs = ["cmake", "--build", bdir, "-j", str(ctx.jobs)]
                for t in rec.get("targets", []):
                    bargs += ["--target", t]
                if gen == "Unix Makefiles":
                    bargs += ["--", "VERBOSE=1"]
                st, dt, bout = sh(bargs, ctx.work, logf, ctx.env, timeout=3600)
                out += bout
            builds[key] = "ok" if st == 0 else f"FAIL ({last_line(out)})"
            if linker == "ptxlink":
                res.setdefault("warnings", [])
                res["warnings"] = sorted(set(res["warnings"]) | set(ptxlink_warnings(out)))
                if st == 0 and "ptxlink" not in open(logf).read().split("cmake --build", 1)[-1]:
                    builds[key] = "FAIL (the device link did not run ptxlink)"
            trees[linker] = bdir if st == 0 else None
            if linker == "nvcc":
                nvcc_tree[debug] = trees[linker]
        if trees["nvcc"] and trees["ptxlink"]:
            objs = sorted(glob.glob(os.path.join(trees["nvcc"], "**/cmake_device_link.o"), recursive=True))
            res.setdefault("dlink_objects", {})[short] = len(objs)
            for o in objs:
                rel = os.path.relpath(o, trees["nvcc"])
                other = os.path.join(trees["ptxlink"], rel)
                if not os.path.exists(other):  # the generators place a subdirectory's targets differently
                    found = glob.glob(os.path.join(trees["ptxlink"], "**", os.path.basename(os.path.dirname(rel)),
                                                   "cmake_device_link.o"), recursive=True)
                    other = found[0] if len(found) == 1 else other
                if not os.path.exists(other):
                    res.setdefault("diffs", []).append(f"{short}: {rel}: no such object in the ptxlink build")
                    continue
                for d in compare_objects(ctx.dump, o, other, ctx.extras):
                    res.setdefault("diffs", []).append(f"{short}: {rel}: {d}")
        if "nvcc" in linkers and trees["nvcc"]:
            p = subprocess.run(["ninja", "-C", trees["nvcc"], "-t", "commands"] + rec.get("targets", []), stdout=subprocess.PIPE)
            cmds = [c for c in p.stdout.decode().splitlines() if " -dlink " in c and "nvcc" in c]
            for i, c in enumerate(cmds):
                inputs, archs, dbg, dlto = parse_dlink(c)
                tag = f"{short}-{i}"
                d = direct_links(ctx, name, trees["nvcc"], inputs, archs[0] if archs else rec.get("arch", "80"),
                                 dbg or debug, tag, dlto)
                res.setdefault("direct", {})[tag] = d


def copy_tree(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)


def apply_patches(root, rec, key):
    for fname, pairs in rec.get(key, {}).items():
        path = os.path.join(root, fname)
        with open(path, encoding="latin-1") as f:  # byte for byte: sources are not all UTF-8
            text = f.read()
        for pat, repl in pairs:
            new = re.sub(pat, repl, text, flags=re.M)
            if new == text:
                raise RuntimeError(f"{key}: '{pat}' does not match in {fname}")
            text = new
        with open(path, "w", encoding="latin-1") as f:
            f.write(text)


def run_make_or_script(ctx, rec, res):
    src = os.path.join(ctx.src, rec["dir"])
    name = rec["name"]
    arch = rec.get("arch", "80")
    builds = res.setdefault("builds", {})
    variants = [("plain", False)] + ([("G", True)] if rec.get("debug") else [])
    for short, debug in variants:
        trees = {}
        for linker in ("nvcc", "ptxlink"):
            bdir = os.path.join(ctx.work, name, f"{short}-{linker}")
            logf = bdir + ".log"
            if ctx.previous is not None:  # --recompare: the trees as the last run left them
                key = f"{short}/{linker}"
                builds[key] = ctx.previous.get("builds", {}).get(key, "FAIL (not built)")
                trees[linker] = bdir if builds[key] == "ok" and os.path.isdir(bdir) else None
                if rec["kind"] == "script" and linker == "ptxlink" and trees[linker]:
                    # the device links (and the host links after them) again, with today's ptxlink
                    out = ""
                    for step in rec["steps"]:
                        if "{DLINK}" in step or step.startswith("g++"):
                            cmd = step.replace("{DLINK}", "ptxlink -dlink").replace("{ARCH}", f"sm_{arch}").replace("{G}", "-G" if debug else "")
                            st, _, o = sh(cmd, bdir, logf, ctx.env)
                            out += o
                            if st:
                                builds[key] = f"FAIL ({last_line(out)})"
                                trees[linker] = None
                                break
                    res["warnings"] = sorted(set(res.get("warnings", [])) | set(ptxlink_warnings(out)))
                continue
            if os.path.exists(logf):
                os.remove(logf)
            copy_tree(src, bdir)
            try:
                apply_patches(bdir, rec, "patch")
                if debug:
                    apply_patches(bdir, rec, "debug_patch")
                if linker == "ptxlink":
                    apply_patches(bdir, rec, "ptxlink_patch")
            except RuntimeError as e:
                builds[f"{short}/{linker}"] = f"FAIL (recipe: {e})"
                trees[linker] = None
                continue
            if rec["kind"] == "make":
                steps = [" ".join(["make", "-j", str(ctx.jobs)] + rec.get("make_args", []) +
                                  (rec.get("debug_make_args", []) if debug else []))]
            else:
                dl = "nvcc -dlink" if linker == "nvcc" else "ptxlink -dlink"
                steps = [s.replace("{DLINK}", dl).replace("{ARCH}", f"sm_{arch}").replace("{G}", "-G" if debug else "")
                         for s in rec["steps"]]
            st, out = 0, ""
            for s in steps:
                st, _, o = sh(s, bdir, logf, ctx.env)
                out += o
                if st:
                    break
            builds[f"{short}/{linker}"] = "ok" if st == 0 else f"FAIL ({last_line(out)})"
            if linker == "ptxlink":
                res["warnings"] = sorted(set(res.get("warnings", [])) | set(ptxlink_warnings(out)))
            trees[linker] = bdir if st == 0 else None
        if trees.get("nvcc") and trees.get("ptxlink"):
            for o in rec.get("dlink_outputs", []):
                a, b = os.path.join(trees["nvcc"], o), os.path.join(trees["ptxlink"], o)
                if os.path.exists(a) and os.path.exists(b):
                    for d in compare_objects(ctx.dump, a, b, ctx.extras):
                        res.setdefault("diffs", []).append(f"{short}: {o}: {d}")
                else:
                    res.setdefault("diffs", []).append(f"{short}: {o}: missing")
        if trees.get("nvcc") and rec.get("dlink_inputs"):
            inputs = []
            for pat in rec["dlink_inputs"]:
                found = sorted(glob.glob(pat, root_dir=trees["nvcc"]))
                inputs += found or [pat]
            res.setdefault("direct", {})[short] = direct_links(ctx, name, trees["nvcc"], inputs, arch, debug, short)


# ---------------------------------------------------------------------------------------------------


def explain_diffs(rec, res):
    """Moves the differences that the recipe's `explained` list ([regex, finding number], ...) accounts for
    into res["explained"] ("F18: ..."): a difference docs/compatibility.md explains as harmless for that
    program only, not a failure of the comparison."""
    pats = [(re.compile(p), n) for p, n in rec.get("explained", [])]
    if not pats:
        return
    def keep(diffs):
        kept = []
        for d in diffs:
            hit = next((n for p, n in pats if p.search(d)), None)
            if hit is None:
                kept.append(d)
            else:
                res.setdefault("explained", []).append(f"F{hit}: {d}")
        return kept
    res["diffs"] = keep(res.get("diffs", []))
    for d in res.get("direct", {}).values():
        d["diffs"] = keep(d.get("diffs", []))


def verdict(res):
    bad = [k for k, v in res.get("builds", {}).items() if v != "ok"]
    for tag, d in res.get("direct", {}).items():
        for k in ("nvcc", "ptxlink", "sass", "ptxas"):
            if not str(d.get(k, "")).startswith(("ok", "n/a")):
                bad.append(f"{tag}:{k}")
    if res.get("diffs") or any(d.get("diffs") for d in res.get("direct", {}).values()):
        bad.append("differences")
    return bad


# Known failures, by message: the number of the finding in docs/compatibility.md that explains each.
KNOWN = [
    (r"no architecture given", 1),
    (r"unable to find library -l", 3),
    (r"none of the inputs has a module id|an empty module", 4),
    (r"dynamic parallelism needs the CUDA device runtime|cuda_device_runtime_cu", 5),
    (r"the target has no CUDA architecture", 8),
    (r"appears twice: the same nvcc object", 10),
    (r"undefined reference to `__cudaRegisterLinkedBinary", 11),
    (r"modules registered: nvcc only \[.+\], ptxlink only \[\]|ptxlink's object has no image", 12),
]


def short(text, kind="cmake"):
    """ok, or the finding that explains a failure (F3 ...), or the failure's first words."""
    if text in (None, "", "-"):
        return "-"
    if str(text).startswith("ok"):
        return "ok"
    if str(text).startswith("n/a"):
        return str(text)
    for pat, n in KNOWN:
        if re.search(pat, str(text)):
            if n == 3 and kind != "cmake":
                n = 2
            return f"fails (F{n})"
    return "FAIL: " + str(text)[:90].replace("|", "/")


NVLINK_WARNING = re.compile(r"^ptxlink[^:]*: warning: nvlink (sm_\w+): (.*)$")


def warnings_cell(name, warns):
    """ptxlink's warnings for the table. nvlink's own (a --sass link forwards them, "Stack size ... cannot be
    statically determined") that nvcc -dlink printed too for the same inputs are said to be so, once per
    text with the architectures; any other warning is listed as printed."""
    said = set()
    for logf in glob.glob(os.path.join(WORK[0], name, "direct", "*", "log.txt")):
        for line in open(logf, errors="replace"):
            m = re.match(r"^nvlink warning : (.*?)(?: \(target: sm_\w+\))?$", line.rstrip("\n"))
            if m:
                said.add(m.group(1))
    shared, rest = {}, []
    for w in warns:
        m = NVLINK_WARNING.match(w)
        if m and m.group(2) in said:
            shared.setdefault(m.group(2), set()).add(m.group(1))
        else:
            rest.append(w)
    cells = rest + [f"nvlink's, as nvcc -dlink's ({', '.join(sorted(a))}): {t}" for t, a in sorted(shared.items())]
    return "; ".join(cells) or "none"


def report(results, recipes, out):
    byname = {r["name"]: r for r in recipes}
    rows = ["| program | repository @ commit | build | features | nvcc | ptxlink | -G (nvcc, ptxlink) | --sass | same modules, kernels, variables as nvcc's | ptxas | ptxlink warnings | device link nvcc / ptxlink (s) | ratio |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in [r["name"] for r in recipes]:
        res = results.get(name)
        if res is None:
            continue
        rec = byname[name]
        kind = rec["kind"]
        b = res.get("builds", {})
        isg = lambda k: "G" in k.split("/")[0]

        def cell(keys, label=True):
            if not keys:
                return "-"
            parts = []
            for k in sorted(keys):
                where = k.split("/")[0] if kind == "cmake" and not isg(k) else ""
                text = b[k]
                if "collect2" in text:  # the host link failed: its log says why
                    logf = os.path.join(WORK[0], name, k.replace("/", "-") + ".log")
                    if os.path.exists(logf) and "undefined reference to `__cudaRegisterLinkedBinary" in open(logf, errors="replace").read():
                        text = "undefined reference to `__cudaRegisterLinkedBinary"
                st = short(text, kind)
                parts.append(f"{where} {st}".strip() if label and where else st)
            uniq = sorted(set(parts))
            return ", ".join(uniq)

        nv = [k for k in b if k.endswith("/nvcc") and not isg(k)]
        pl = [k for k in b if k.endswith("/ptxlink") and not isg(k)]
        gk = [k for k in b if isg(k)]
        direct = res.get("direct", {})
        sass = sorted(set(short(d.get("sass"), kind) for d in direct.values())) or ["-"]
        diffs = list(res.get("diffs", [])) + [x for d in direct.values() for x in d.get("diffs", [])]
        kept = res.get("kept_unreferenced", [])
        linked = all(d.get("ptxlink") == "ok" or d.get("sass") == "ok" for d in direct.values())
        if direct and not diffs and not linked:
            same = "- (ptxlink's links failed)"
        elif direct and not diffs:
            d0 = max(direct.values(), key=lambda d: d.get("modules") or 0)
            explained = sorted(set(e.split(":")[0] for e in res.get("explained", [])))
            same = f"yes: {d0.get('modules', '?')} modules, {d0.get('kernels', '?')} kernels, {d0.get('variables', '?')} variables" + \
                (f" ({len(direct)} links)" if len(direct) > 1 else "") + \
                (f"; +{len(kept)} kernels no host code launches (nvlink drops them)" if kept else "") + \
                (f"; a difference explained ({', '.join(explained)})" if explained else "")
        elif diffs:
            known = sorted(set(short(x, kind) for x in diffs))
            same = "no: " + "; ".join(k if k.startswith("fails") else x[:160] for k, x in zip(known, diffs))
        else:
            same = "- (no device link)"
        ptxas = sorted(set(str(d.get("ptxas")) for d in direct.values()))
        ptxas_cell = ", ".join(p if p.startswith("ok") else short(p, kind) for p in ptxas) or "-"
        warns = warnings_cell(name, sorted(set(res.get("warnings", [])) | set(w for d in direct.values() for w in d.get("warnings", []))))
        tn = sum(d.get("nvcc_seconds", 0) for d in direct.values() if d.get("ptxlink") == "ok")
        tp = sum(d.get("ptxlink_seconds", 0) for d in direct.values() if d.get("ptxlink") == "ok")
        ratio = f"{tp / tn:.2f}" if tn and tp else "-"
        rows.append(" | ".join([
            f"| {name}", f"{rec['repo']} @ {rec['commit'][:8]}", kind, "; ".join(rec.get("features", [])),
            cell(nv, False), cell(pl), cell(gk, False), ", ".join(sass), same, ptxas_cell,
            warns, f"{tn:.2f} / {tp:.2f}" if tn else "-", ratio + " |"]))
    text = "\n".join(rows) + "\n"
    if out == "-":
        sys.stdout.write(text)
    else:
        with open(out, "w") as f:
            f.write(text)


WORK = ["/tmp/ptxlink-compat"]  # set by main; the report reads build logs there


class Ctx:
    pass


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True, help="folder of checkouts (recipe 'dir' is relative to it)")
    ap.add_argument("--ptxlink-build", required=True, help="a built ptxlink tree (installed into WORK/prefix)")
    ap.add_argument("--recipes", default=os.path.join(here, "recipes.toml"))
    ap.add_argument("--work", default="/tmp/ptxlink-compat")
    ap.add_argument("--only", nargs="*", help="recipe names to run (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each direct device link")
    ap.add_argument("--report", help="write the markdown table of all results in WORK/results here ('-': stdout)")
    ap.add_argument("--report-only", action="store_true", help="build nothing; only --report")
    ap.add_argument("--recompare", action="store_true",
                    help="build nothing: compare the trees the last run left (and link their inputs again)")
    a = ap.parse_args()

    ctx = Ctx()
    ctx.src, ctx.work, ctx.jobs, ctx.repeat = os.path.abspath(a.src), os.path.abspath(a.work), a.jobs, a.repeat
    ctx.prefix = os.path.join(ctx.work, "prefix")
    WORK[0] = ctx.work
    recipes = load_recipes(a.recipes)
    os.makedirs(os.path.join(ctx.work, "results"), exist_ok=True)
    if not a.report_only:
        st = subprocess.run(["cmake", "--install", os.path.abspath(a.ptxlink_build), "--prefix", ctx.prefix],
                            stdout=subprocess.DEVNULL)
        if st.returncode:
            sys.exit("run.py: cmake --install of the ptxlink build failed")
    ctx.ptxlink = os.path.join(ctx.prefix, "bin/ptxlink")
    ctx.dump = os.path.join(ctx.prefix, "bin/ptxlink-dump")
    ctx.env = dict(os.environ)
    ctx.env["PATH"] = f"{ctx.prefix}/bin:{CUDA}/bin:" + ctx.env.get("PATH", "")
    ctx.env.setdefault("CUDA_HOME", CUDA)
    ctx.env["CUDACXX"] = f"{CUDA}/bin/nvcc"

    if not a.report_only:
        for rec in recipes:
            if a.only and rec["name"] not in a.only:
                continue
            if not os.path.isdir(os.path.join(ctx.src, rec["dir"])):
                log(f"{rec['name']}: no checkout at {os.path.join(ctx.src, rec['dir'])}; skipped")
                continue
            log(f"== {rec['name']}")
            res = {"name": rec["name"], "commit": rec["commit"]}
            ctx.previous = None
            if a.recompare:
                prev = os.path.join(ctx.work, "results", rec["name"] + ".json")
                if not os.path.exists(prev):
                    log(f"{rec['name']}: no earlier result to recompare; skipped")
                    continue
                with open(prev) as f:
                    ctx.previous = json.load(f)
                res["warnings"] = ctx.previous.get("warnings", [])
            ctx.extras, ctx.refs = set(), set()
            t0 = time.monotonic()
            try:
                if rec["kind"] == "cmake":
                    run_cmake(ctx, rec, res)
                else:
                    run_make_or_script(ctx, rec, res)
            except Exception as e:  # one broken recipe must not end the campaign
                res["error"] = f"{type(e).__name__}: {e}"
            res["seconds"] = round(time.monotonic() - t0, 1)
            # Kernels and variables only ptxlink's image has: nvlink (--use-host-info) drops those no host
            # code refers to; one that host code does refer to would be nvlink's loss, listed apart.
            # (A host reference may be a pattern: _Z7prescan* for every instance of a template.)
            referenced = lambda n: any(fnmatch.fnmatchcase(n, r) for r in ctx.refs)
            res["kept_unreferenced"] = sorted(f"{w}: {n}" for w, n in ctx.extras if not referenced(n))
            res["kept_referenced"] = sorted(f"{w}: {n}" for w, n in ctx.extras if referenced(n))
            explain_diffs(rec, res)
            res["problems"] = verdict(res) + ([res["error"]] if "error" in res else [])
            with open(os.path.join(ctx.work, "results", rec["name"] + ".json"), "w") as f:
                json.dump(res, f, indent=1, sort_keys=True)
            log(f"   {'ok' if not res['problems'] else 'PROBLEMS: ' + ', '.join(res['problems'])} ({res['seconds']}s)")
    if a.report:
        results = {}
        for p in glob.glob(os.path.join(ctx.work, "results", "*.json")):
            with open(p) as f:
                r = json.load(f)
            results[r["name"]] = r
        report(results, recipes, a.report)


if __name__ == "__main__":
    main()
