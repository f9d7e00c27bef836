#!/usr/bin/env python3
"""A property test of `ptxlink --sass`'s compile cache (sass-cache-property.test): whatever is in the
cache, and whatever other links and a saboteur do to it meanwhile, every link's output is byte for byte
the output of the same link with --no-cache, and every link succeeds.

Each round starts several links at once on one cache (a small --cache-limit, so that every link that
stores something also prunes), each of a program drawn from a few (four modules, two of them in two
versions, one sometimes left out: eight programs, so entries of other programs are always about), while
a saboteur damages random entries: truncates them, fills them with random bytes, replaces them with
another entry's bytes (a valid entry under the wrong key), flips a byte, appends bytes, removes them,
leaves stray temporaries. With --remote, the links share a remote cache (the nginx WebDAV server of
sass-remote-cache.test) and each has an empty local cache of its own, so units and nvlink's results come
from the server, whose stored blobs the saboteur damages the same way.

  cache_property.py WORK_DIR [--remote URL STORE_DIR]
Environment: PTXLINK_CACHE_PROPERTY_SECONDS (default 20: rounds are started until this much time has
passed, at least 3), PTXLINK_CACHE_PROPERTY_SEED (default: random; printed, to replay a failure).
"""
import os
import random
import shutil
import subprocess
import sys
import threading
import time

work = os.path.abspath(sys.argv[1])
remote = len(sys.argv) >= 5 and sys.argv[2] == "--remote"
url, store = (sys.argv[3], os.path.abspath(sys.argv[4])) if remote else (None, None)
budget = float(os.environ.get("PTXLINK_CACHE_PROPERTY_SECONDS", "20"))
seed = int(os.environ.get("PTXLINK_CACHE_PROPERTY_SEED", str(random.randrange(1 << 30))))
rng = random.Random(seed)
print("seed %d (PTXLINK_CACHE_PROPERTY_SEED replays this run)" % seed)
ptxlink = shutil.which("ptxlink")
os.makedirs(work, exist_ok=True)


def module(name, const, calls):
    """A kernel with a few dozen instructions that calls a function another module defines."""
    body = ["\tld.global.f32 \t%f1, [%rd2];"]
    for k in range(24):
        body.append("\tfma.rn.f32 \t%%f1, %%f1, 0f3F8%05X, 0f%08X;" % (k * 7 + 1, const))
    lines = [".version 8.0", ".target sm_80", ".address_size 64", "",
             ".extern .func (.param .b32 r) %s(.param .b32 x);" % calls,
             ".visible .func (.param .b32 r) f_%s(.param .b32 x)" % name, "{", "\t.reg .b32 %r<3>;",
             "\tld.param.u32 \t%r1, [x];", "\tadd.s32 \t%%r2, %%r1, %d;" % (const & 0xff),
             "\tst.param.b32 \t[r], %r2;", "\tret;", "}", "",
             ".visible .entry k_%s(.param .u64 p)" % name, "{", "\t.reg .f32 \t%f<2>;", "\t.reg .b32 \t%r<3>;",
             "\t.reg .b64 \t%rd<3>;", "\tld.param.u64 \t%rd1, [p];", "\tcvta.to.global.u64 \t%rd2, %rd1;"]
    lines += body
    lines += ["\tst.global.f32 \t[%rd2], %f1;", "\tmov.u32 \t%r1, 3;", "\t{", "\t.param .b32 a;", "\t.param .b32 b;",
              "\tst.param.b32 \t[a], %r1;", "\tcall.uni (b), %s, (a);" % calls, "\tld.param.b32 \t%r2, [b];", "\t}",
              "\tst.global.u32 \t[%rd2+4], %r2;", "\tret;", "}", ""]
    return "\n".join(lines)


# Modules m0..m3, each calling the next one's function (m3 calls m0's); m0 and m1 in two versions.
src = os.path.join(work, "src")
os.makedirs(src, exist_ok=True)
names = ["m0", "m1", "m2", "m3"]
for i, n in enumerate(names):
    for v in (0, 1) if i < 2 else (0,):
        with open(os.path.join(src, "%s_v%d.ptx" % (n, v)), "w") as f:
            f.write(module(n, 0x3F000000 + 0x1000 * (i * 2 + v + 1), "f_" + names[(i + 1) % 4]))


def program_files(p):
    v0, v1, drop3 = p
    files = ["m0_v%d.ptx" % v0, "m1_v%d.ptx" % v1, "m2_v0.ptx"]
    if not drop3:  # m2 then calls m3's function, which no module defines: m3 supplies it as an extern stub
        files.append("m3_v0.ptx")
    return [os.path.join(src, f) for f in files]


stub = os.path.join(src, "stub.ptx")
with open(stub, "w") as f:  # f_m3 for the programs without m3, and f_m0 is always there
    f.write(".version 8.0\n.target sm_80\n.address_size 64\n"
            ".visible .func (.param .b32 r) f_m3(.param .b32 x)\n{\n\t.reg .b32 %r<2>;\n"
            "\tld.param.u32 \t%r1, [x];\n\tst.param.b32 \t[r], %r1;\n\tret;\n}\n")


def link_command(p, out, cache):
    files = program_files(p) + ([] if not p[2] else [stub])
    cmd = [ptxlink, "--sass", "--sass-batch-below", "0", "-arch", "sm_80"] + files + ["-o", out]
    if cache is None:
        return cmd + ["--no-cache"]
    cmd += ["--cache-dir", cache, "--cache-limit", "48K"]
    if remote:
        cmd += ["--remote-cache", url]
    return cmd


references = {}


def reference(p):
    if p not in references:
        out = os.path.join(work, "ref-%d%d%d.fatbin" % p)
        r = subprocess.run(link_command(p, out, None), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            sys.exit("the --no-cache link of program %s failed:\n%s" % (p, r.stdout.decode()))
        references[p] = open(out, "rb").read()
    return references[p]


def entries():
    """The files the saboteur works on: the cache's entries, or the server's blobs. Not the temporaries
    (tmp-*) a link is writing: no cache user touches another's (prune removes only those older than an
    hour), and a process that rewrites one while nvlink's result is in it changes that link's output, as
    one writing into the link's private temporary folder would."""
    found = []
    roots = [os.path.join(store, "cache")] if remote else [os.path.join(work, "cache")]
    for root in roots:
        for d, _, fs in os.walk(root):
            found += [os.path.join(d, f) for f in fs if not f.startswith("tmp-")]
    return found


damage_counts = {}


def damage_once():
    files = entries()
    if not files:
        return
    path = rng.choice(files)
    kind = rng.choice(["truncate", "random", "other", "flip", "append", "remove", "stray"])
    try:
        if kind == "truncate":
            size = os.path.getsize(path)
            with open(path, "r+b") as f:
                f.truncate(rng.randrange(size + 1) if size else 0)
        elif kind == "random":
            with open(path, "wb") as f:
                f.write(rng.randbytes(rng.choice([0, 7, 32, 100, 4096])))
        elif kind == "other":  # another entry's bytes, trailer and all: valid, but not this key's
            other = rng.choice(files)
            data = open(other, "rb").read()
            tmp = path + ".saboteur"
            with open(tmp, "wb") as f:
                f.write(data)
            os.rename(tmp, path)
        elif kind == "flip":
            size = os.path.getsize(path)
            if size:
                with open(path, "r+b") as f:
                    f.seek(rng.randrange(size))
                    b = f.read(1)
                    f.seek(-1, 1)
                    f.write(bytes([b[0] ^ (1 << rng.randrange(8))]))
        elif kind == "append":
            with open(path, "ab") as f:
                f.write(rng.randbytes(rng.choice([1, 32, 999])))
        elif kind == "remove":
            os.remove(path)
        elif kind == "stray":
            with open(os.path.join(os.path.dirname(path), "tmp-saboteur%06d" % rng.randrange(10 ** 6)), "wb") as f:
                f.write(rng.randbytes(64))
    except OSError:
        return  # a link or a pruner removed or replaced it first
    damage_counts[kind] = damage_counts.get(kind, 0) + 1


programs = [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (False, True)]
start = time.time()
rounds = links = 0
failures = []
while rounds < 3 or time.time() - start < budget:
    rounds += 1
    jobs = []
    for j in range(3):
        p = rng.choice(programs)
        reference(p)
        cache = os.path.join(work, "cache") if not remote else os.path.join(work, "local-%d-%d" % (rounds, j))
        out = os.path.join(work, "out-%d-%d.fatbin" % (rounds, j))
        jobs.append((p, out, subprocess.Popen(link_command(p, out, cache), stdout=subprocess.PIPE,
                                              stderr=subprocess.STDOUT)))
    stop = threading.Event()

    def saboteur():
        while not stop.is_set():
            damage_once()
            time.sleep(rng.uniform(0.0, 0.03))

    t = threading.Thread(target=saboteur, daemon=True)
    t.start()
    try:
        for p, out, proc in jobs:
            log = proc.communicate()[0].decode(errors="replace")
            links += 1
            if proc.returncode != 0:
                failures.append("round %d: program %s: exit %d\n%s" % (rounds, p, proc.returncode, log))
            elif open(out, "rb").read() != references[p]:
                failures.append("round %d: program %s: output differs from --no-cache's\n%s" % (rounds, p, log))
                shutil.copy(out, out + ".differs")
            if os.path.exists(out):
                os.remove(out)
    finally:
        stop.set()
        t.join()
    # Between rounds, some damage with nothing running, so that links also start on a damaged cache.
    for _ in range(rng.randrange(1, 6)):
        damage_once()

print("%d rounds, %d links of %d programs, %d damage operations (%s)" % (
    rounds, links, len(references), sum(damage_counts.values()),
    ", ".join("%s %d" % kv for kv in sorted(damage_counts.items()))))
if failures:
    print("\n".join(failures[:5]))
    sys.exit("%d of %d links failed or differed (seed %d)" % (len(failures), links, seed))
print("every output byte-identical to --no-cache's")
