#!/usr/bin/env python3
"""Checks that two builds of ptxlink write byte-identical objects, links and dumps.

The problem: a refactoring (moving code between layers, splitting the link into passes, moving output
writing to its own file) must not change a single output byte, and the lit tests only look at the
parts of an output they name. So this script runs both builds over the same real inputs and compares
everything they write, byte for byte:

  * every PTX file of the test corpus (tests/corpus, compiled by generate.sh with this machine's nvcc
    and llc-19), of ../shared/corpus/public (real PTX from public projects) and of a program written by
    bench/gen_program.py: assembled (ptxlink-as), the object and the PTX dumped (ptxlink-dump --all,
    text and --json; the object's --ptx and --callgraph --format dot views), the object linked alone
    (fatbinary, --emit ptx, -r, and --verify, which runs ptxas over the linked module and maps its
    messages back to the inputs, when ptxas is on PATH) and the fatbinary dumped;
  * the generated program linked whole (fatbinary for two architectures, --emit ptx, --emit c, -r,
    --verify, and with --sass when asked), its fatbinary extracted (--extract), two of its modules
    compared (--abi-diff), its linked PTX wrapped again (--create-fatbin --embed-source), and a generated
    library archived by ptxlink-ar and linked against;
  * when nvcc is on PATH, a CUDA program (tests/lit/hostlink/Inputs: `nvcc -dc` objects with a template
    kernel, static kernels, a device library from `nvcc -lib`, a plain host object) device-linked with
    --emit host-object (plain and -G), --emit c and --emit ptx, and the device-link objects dumped.

Each command's exit status, standard output, standard error and output file (or every file of an output
folder, with its name) are hashed. Both builds run
in twin folders with the same relative paths and are called by name through PATH, so a path or the
tool's name printed in a message is the same on both sides. A failing command is fine if it fails the
same way on both sides (some corpus files are refused on purpose).

Usage:
  scripts/check-identical.py --before OLD/bin --after NEW/bin [--work DIR] [--corpus DIR]... [--sass]
  scripts/check-identical.py --before-rev REV --after build/bin ...
--before-rev builds the four tools of commit REV in a scratch worktree under the work folder (Release,
only the tool targets, so neither GoogleTest nor lit is needed). Exit status 0 when everything is
identical, 1 when something differs (each difference is listed), 2 on a usage or setup error.
"""

import argparse
import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ("ptxlink", "ptxlink-as", "ptxlink-ar", "ptxlink-dump")


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def build_revision(rev, work):
    """Builds the tools of `rev` in a scratch worktree; returns its bin folder."""
    src = os.path.join(work, "before-src")
    if not os.path.isdir(src):
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", src, rev], check=True)
    else:
        subprocess.run(["git", "-C", src, "checkout", "-q", "--detach", rev], check=True)
    build = os.path.join(src, "build")
    subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["ninja", "-C", build, "-j2", *TOOLS], check=True)
    return os.path.join(build, "bin")


def target_arch(ptx_path):
    """The first sm_XX of the file's .target line (sm_52 when it names none we can link for)."""
    with open(ptx_path, "rb") as f:
        head = f.read(1 << 16).decode("latin-1")
    m = re.search(r"^\s*\.target\s+([^\n]*)", head, re.M)
    if m:
        arch = re.search(r"sm_\d+[af]?", m.group(1))
        if arch:
            return arch.group(0)
    return "sm_52"


def collect_inputs(args, work):
    """Copies every input PTX file to work/in (flat, prefixed by its corpus); returns the names."""
    inputs = os.path.join(work, "in")
    os.makedirs(inputs, exist_ok=True)
    corpora = list(args.corpus)
    if not args.corpus:
        generated = os.path.join(work, "corpus")
        if not os.path.isdir(generated) or not os.listdir(generated):
            subprocess.run([os.path.join(ROOT, "tests", "corpus", "generate.sh"), generated], check=True)
        corpora.append(generated)
        public = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "public")
        if os.path.isdir(public):
            corpora.append(public)
    names = []
    for ci, corpus in enumerate(corpora):
        for name in sorted(os.listdir(corpus)):
            if name.endswith(".ptx"):
                dest = f"c{ci}-{name}"
                shutil.copyfile(os.path.join(corpus, name), os.path.join(inputs, dest))
                names.append(dest[:-4])
    return corpora, names


def generate_program(work, modules):
    program = os.path.join(work, "in", "prog")
    library = os.path.join(work, "in", "lib")
    gen = os.path.join(ROOT, "bench", "gen_program.py")
    if not os.path.isdir(program):
        subprocess.run([sys.executable, gen, program, "--modules", str(modules), "--funcs", "12",
                        "--debug-every", "5", "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
    if not os.path.isdir(library):
        subprocess.run([sys.executable, gen, library, "--library", "200", "--needed-percent", "5",
                        "--seed", "3"], check=True, stdout=subprocess.DEVNULL)
    modules_ptx = sorted(n for n in os.listdir(program) if n.endswith(".ptx"))
    members = sorted(n for n in os.listdir(os.path.join(library, "lib")) if n.endswith(".ptx"))
    return modules_ptx, members


def compile_cuda_program(work):
    """nvcc -dc objects of tests/lit/hostlink/Inputs (plain and -G), a device library and a plain host
    object, compiled once into work/in/cuda (both builds link the same files); None without nvcc."""
    nvcc, cxx = shutil.which("nvcc"), shutil.which("g++") or shutil.which("c++")
    if not nvcc or not cxx:
        return None
    src = os.path.join(ROOT, "tests", "lit", "hostlink", "Inputs")
    out = os.path.join(work, "in", "cuda")
    done = os.path.join(out, "done")
    if not os.path.exists(done):
        shutil.rmtree(out, ignore_errors=True)
        for flavour, extra in (("plain", []), ("g", ["-G"])):
            folder = os.path.join(out, flavour)
            os.makedirs(folder)
            units = [os.path.join(src, f) for f in ("vec.cu", "app.cu", "reduce.cu", "devonly.cu")]
            subprocess.run([nvcc, "-dc", "-gencode", "arch=compute_80,code=[sm_80,compute_80]", *extra,
                            "-I" + src, *units], cwd=folder, check=True)
            subprocess.run([nvcc, "-lib", "reduce.o", "devonly.o", "-o", "libred.a"], cwd=folder, check=True)
        subprocess.run([cxx, "-c", os.path.join(src, "main.cpp"), "-o", os.path.join(out, "main.o")], check=True)
        open(done, "w").close()
    return ["plain", "g"]


def plan(names, modules_ptx, members, sass, cuda, verify):
    """The commands, in order, as (key, argv, output file or None). Paths are relative to the side's
    folder; inputs are under ../in."""
    steps = []
    for n in names:
        arch = target_arch(os.path.join(ARGS.work, "in", n + ".ptx"))
        ptx, obj = f"../in/{n}.ptx", f"obj/{n}.o"
        steps.append((f"as {n}", ["ptxlink-as", ptx, "-o", obj], obj))
        steps.append((f"dump {n}.o", ["ptxlink-dump", "--all", obj], None))
        steps.append((f"dump-json {n}.o", ["ptxlink-dump", "--all", "--json", obj], None))
        steps.append((f"dump-ptx {n}.o", ["ptxlink-dump", "--ptx", obj], None))
        steps.append((f"dump-dot {n}.o", ["ptxlink-dump", "--callgraph", "--format", "dot", obj], None))
        steps.append((f"dump {n}.ptx", ["ptxlink-dump", "--all", ptx], None))
        steps.append((f"link-fatbin {n}", ["ptxlink", "-arch", arch, obj, "-o", f"link/{n}.fatbin"],
                      f"link/{n}.fatbin"))
        steps.append((f"link-ptx {n}", ["ptxlink", "-arch", arch, "--emit", "ptx", obj, "-o", f"link/{n}.ptx"],
                      f"link/{n}.ptx"))
        steps.append((f"link-r {n}", ["ptxlink", "-arch", arch, "-r", obj, "-o", f"link/{n}.r.o"],
                      f"link/{n}.r.o"))
        steps.append((f"dump {n}.fatbin", ["ptxlink-dump", "--all", f"link/{n}.fatbin"], None))
        if verify:
            steps.append((f"link-verify {n}", ["ptxlink", "-arch", arch, "--verify", obj, "-o",
                                               f"link/{n}.v.fatbin"], f"link/{n}.v.fatbin"))
    prog_objs = []
    for m in modules_ptx:
        obj = f"obj/prog-{m[:-4]}.o"
        steps.append((f"as prog/{m}", ["ptxlink-as", f"../in/prog/{m}", "-o", obj], obj))
        prog_objs.append(obj)
    steps.append(("prog fatbin", ["ptxlink", "-arch", "sm_80,sm_90", *prog_objs, "-o", "link/prog.fatbin"],
                  "link/prog.fatbin"))
    steps.append(("prog ptx", ["ptxlink", "-arch", "sm_80", "--emit", "ptx", *prog_objs, "-o", "link/prog.ptx"],
                  "link/prog.ptx"))
    steps.append(("prog -r", ["ptxlink", "-arch", "sm_80,sm_90", "-r", *prog_objs, "-o", "link/prog.r.o"],
                  "link/prog.r.o"))
    steps.append(("prog -r relinked", ["ptxlink", "-arch", "sm_80", "--emit", "ptx", "link/prog.r.o", "-o",
                                       "link/prog-r.ptx"], "link/prog-r.ptx"))
    steps.append(("prog --emit c", ["ptxlink", "-arch", "sm_80", "--emit", "c", *prog_objs, "-o", "link/prog.c"],
                  "link/prog.c"))
    steps.append(("dump prog.fatbin", ["ptxlink-dump", "--all", "link/prog.fatbin"], None))
    steps.append(("dump prog.r.o", ["ptxlink-dump", "--all", "link/prog.r.o"], None))
    steps.append(("dump-json prog.r.o", ["ptxlink-dump", "--all", "--json", "link/prog.r.o"], None))
    steps.append(("extract prog.fatbin", ["ptxlink-dump", "--extract", "link/prog-extract", "link/prog.fatbin"],
                  "link/prog-extract"))
    if len(prog_objs) >= 2:
        steps.append(("abi-diff prog", ["ptxlink-dump", "--abi-diff", prog_objs[0], prog_objs[1]], None))
        steps.append(("abi-diff-json prog", ["ptxlink-dump", "--abi-diff", prog_objs[0], prog_objs[1], "--json"],
                      None))
    steps.append(("create-fatbin prog", ["ptxlink-dump", "--create-fatbin", "link/prog-wrapped.fatbin",
                                         "--embed-source", "link/prog-wrapped.c", "--relocatable",
                                         "link/prog.ptx"], "link/prog-wrapped.fatbin"))
    steps.append(("create-fatbin prog .c", ["cat", "link/prog-wrapped.c"], None))
    if verify:
        steps.append(("prog --verify", ["ptxlink", "-arch", "sm_80", "--verify", *prog_objs, "-o",
                                        "link/prog-v.fatbin"], "link/prog-v.fatbin"))
    if sass:
        steps.append(("prog --sass", ["ptxlink", "-arch", "sm_80", "--sass", "--cache-dir", "sass-cache",
                                      *prog_objs, "-o", "link/prog-sass.fatbin"], "link/prog-sass.fatbin"))
    steps.append(("ar libgen.a", ["ptxlink-ar", "rcs", "link/libgen.a",
                                  *[f"../in/lib/lib/{m}" for m in members]], "link/libgen.a"))
    steps.append(("as lib main", ["ptxlink-as", "../in/lib/main.ptx", "-o", "obj/lib-main.o"], "obj/lib-main.o"))
    steps.append(("link main+libgen.a", ["ptxlink", "-arch", "sm_80", "--emit", "ptx", "obj/lib-main.o",
                                         "link/libgen.a", "-o", "link/libprog.ptx"], "link/libprog.ptx"))
    steps.append(("dump libgen.a", ["ptxlink-dump", "--all", "link/libgen.a"], None))
    for flavour in cuda or []:
        d = f"../in/cuda/{flavour}"
        objs = ["../in/cuda/main.o", f"{d}/app.o", f"{d}/vec.o", f"{d}/libred.a"]
        out = f"link/cuda-{flavour}"
        steps.append((f"cuda-{flavour} host-object", ["ptxlink", "-arch", "sm_80,sm_90", "--emit", "host-object",
                                                      *objs, "-o", f"{out}.dlink.o"], f"{out}.dlink.o"))
        steps.append((f"cuda-{flavour} dump host-object", ["ptxlink-dump", "--all", f"{out}.dlink.o"], None))
        steps.append((f"cuda-{flavour} dump-json host-object", ["ptxlink-dump", "--all", "--json",
                                                                f"{out}.dlink.o"], None))
        steps.append((f"cuda-{flavour} emit c", ["ptxlink", "-arch", "sm_80", "--emit", "c", *objs, "-o",
                                                 f"{out}.c"], f"{out}.c"))
        steps.append((f"cuda-{flavour} emit ptx", ["ptxlink", "-arch", "sm_80", "--emit", "ptx", *objs, "-o",
                                                   f"{out}.ptx"], f"{out}.ptx"))
        if verify:
            steps.append((f"cuda-{flavour} host-object --verify",
                          ["ptxlink", "-arch", "sm_80", "--verify", "--emit", "host-object", *objs, "-o",
                           f"{out}.v.dlink.o"], f"{out}.v.dlink.o"))
        if sass:
            steps.append((f"cuda-{flavour} host-object --sass",
                          ["ptxlink", "-arch", "sm_80", "--sass", "--cache-dir", "sass-cache", "--emit",
                           "host-object", *objs, "-o", f"{out}.sass.dlink.o"], f"{out}.sass.dlink.o"))
    return steps


def digest_output(path):
    """The digest of an output file, or of every file of an output folder with its relative name."""
    if os.path.isdir(path):
        h = hashlib.sha256()
        for folder, dirs, files in sorted(os.walk(path)):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(folder, name)
                h.update(os.path.relpath(full, path).encode() + b"\0")
                with open(full, "rb") as f:
                    h.update(digest(f.read()).encode())
        return h.hexdigest()[:16]
    with open(path, "rb") as f:
        return digest(f.read())


def run_side(side_dir, bin_dir, steps):
    """Runs the steps in order in side_dir; returns {key: (status, stdout, stderr, file) digests}."""
    for sub in ("obj", "link"):
        shutil.rmtree(os.path.join(side_dir, sub), ignore_errors=True)
        os.makedirs(os.path.join(side_dir, sub))
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    results = {}
    for key, argv, out in steps:
        p = subprocess.run(argv, cwd=side_dir, env=env, capture_output=True, timeout=600)
        file_digest = "-"
        if out and os.path.exists(os.path.join(side_dir, out)):
            file_digest = digest_output(os.path.join(side_dir, out))
        results[key] = (p.returncode, digest(p.stdout), digest(p.stderr), file_digest)
    return results


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="bin folder of the old build")
    parser.add_argument("--before-rev", help="build the tools of this commit as the old build")
    parser.add_argument("--after", default=os.path.join(ROOT, "build", "bin"), help="bin folder of the new build")
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "check-identical"))
    parser.add_argument("--corpus", action="append", default=[],
                        help="a folder of .ptx files (default: tests/corpus generated, ../shared/corpus/public)")
    parser.add_argument("--modules", type=int, default=40, help="modules of the generated program")
    parser.add_argument("--sass", action="store_true", help="also link the generated program with --sass")
    parser.add_argument("--no-verify", action="store_true",
                        help="leave out the --verify links (they run ptxas; left out anyway without ptxas)")
    parser.add_argument("--no-cuda", action="store_true",
                        help="leave out the CUDA program (nvcc objects, --emit host-object)")
    ARGS = parser.parse_args()
    ARGS.work = os.path.abspath(ARGS.work)
    os.makedirs(ARGS.work, exist_ok=True)
    if bool(ARGS.before) == bool(ARGS.before_rev):
        parser.error("give exactly one of --before and --before-rev")
    before = os.path.abspath(ARGS.before) if ARGS.before else build_revision(ARGS.before_rev, ARGS.work)
    after = os.path.abspath(ARGS.after)
    for b in (before, after):
        missing = [t for t in TOOLS if not os.access(os.path.join(b, t), os.X_OK)]
        if missing:
            print(f"check-identical: {b} lacks {', '.join(missing)}", file=sys.stderr)
            return 2

    corpora, names = collect_inputs(ARGS, ARGS.work)
    modules_ptx, members = generate_program(ARGS.work, ARGS.modules)
    cuda = None if ARGS.no_cuda else compile_cuda_program(ARGS.work)
    verify = not ARGS.no_verify and shutil.which("ptxas") is not None
    steps = plan(names, modules_ptx, members, ARGS.sass, cuda, verify)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        old = pool.submit(run_side, os.path.join(ARGS.work, "before"), before, steps)
        new = pool.submit(run_side, os.path.join(ARGS.work, "after"), after, steps)
        old, new = old.result(), new.result()

    differ = [key for key, _, _ in steps if old[key] != new[key]]
    failed = sum(1 for key, _, _ in steps if old[key][0] != 0)
    files = sum(1 for key, _, out in steps if out and old[key][3] != "-")
    print(f"inputs: {len(names)} PTX files from {', '.join(corpora)}; generated program of "
          f"{len(modules_ptx)} modules and a library of {len(members)} members; CUDA program: "
          f"{'nvcc -dc objects, plain and -G' if cuda else 'none (no nvcc)'}; --verify links: "
          f"{'yes' if verify else 'no (no ptxas)'}")
    print(f"commands: {len(steps)} per build ({files} output files; {failed} commands fail, "
          f"which must fail the same way in both builds)")
    for key in differ:
        print(f"DIFFERS: {key}: before (status, stdout, stderr, file) = {old[key]}, after = {new[key]}")
    print("identical" if not differ else f"{len(differ)} of {len(steps)} commands differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
