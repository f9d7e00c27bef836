#!/usr/bin/env python3
"""Generates large, realistic PTX programs for benchmarking ptxlink (deterministic from a seed).

The problem: the real PTX we have is small (a few hundred KB), while linkers are judged on programs of
hundreds of modules and thousands of functions. This script writes such programs, shaped like
`nvcc -rdc=true -ptx` output so that ptxas and nvlink accept them too (the benchmark compares against
them on the same input):

  * N modules, each with device functions, kernels, module variables and a call table;
  * cross-module calls (`.extern .func` prototypes) and cross-module variables (`.extern .global`),
    always from a module to modules with lower numbers, so every reference resolves and there is no
    recursion across modules;
  * `.weak` template instantiations shared by many modules, `.common` counters, `.alias` names,
    call tables (`.global .u64 t[4] = {f, g, ...}`) and indirect calls through `.callprototype`;
  * bodies modelled on nvcc -O3 output: register declarations, ld.param, index arithmetic, loops with
    $L__BB labels, fma chains, brace-scoped call sequences ({ // callseq ... });
  * a fraction of the modules compiled "with -G": `.target sm_XX, debug`, `.file`/`.loc`,
    $L__func_begin/$L__func_end labels and DWARF (`.debug_abbrev`, `.debug_info`) referring to them.

Library mode (--library N) writes N one-function members plus a main module that calls 1% of them,
for the static-archive benchmark.

Usage:
  gen_program.py OUT_DIR [--modules 200] [--funcs 20] [--kernels 3] [--seed 1] [--debug-every 10]
  gen_program.py OUT_DIR --library 10000 [--needed-percent 1] [--seed 1]
"""

import argparse
import os
import random
import sys

VERSION = "8.0"
TARGET = "sm_80"
FLOAT_CONSTS = ["0f3F800000", "0f3F000000", "0f40000000", "0fBF800000", "0f3E800000", "0f41200000",
                "0f3DCCCCCD", "0f3F333333"]


def mangle(name, sig):
    return "_Z%d%s%s" % (len(name), name, sig)


DEV_SIG = "fPKfi"            # float f(float, const float *, int)
KERN_SIG = "PfPKfi"          # void k(float *, const float *, int)
WEAK_SIG = "ff"              # template<int K> float tclamp(float)


def weak_name(k):
    return "_Z6tclampILi%dEEff" % k


class Body:
    """Accumulates one function body with nvcc's register naming; declarations are written last."""

    def __init__(self, rng, debug_file=None, first_line=1):
        self.rng = rng
        self.lines = []
        self.count = {"p": 0, "r": 0, "f": 0, "rd": 0}
        self.labels = 0
        self.callseq = 0
        self.debug_file = debug_file
        self.line = first_line
        # Line-table decisions draw from their own generator so a -G copy of a function has exactly the
        # instructions of the plain copy (a template instantiated in both kinds of module must not look
        # like an ODR violation to the linker's weak-definition check).
        self.loc_rng = random.Random(first_line)

    def reg(self, kind):
        self.count[kind] += 1
        return "%%%s%d" % (kind, self.count[kind])

    def emit(self, text):
        if self.debug_file is not None and self.loc_rng.random() < 0.25:
            self.line += self.loc_rng.randint(0, 2)
            self.lines.append("\t.loc\t%d %d %d" % (self.debug_file, self.line, self.loc_rng.randint(1, 60)))
        self.lines.append("\t" + text)

    def label(self, fn_index):
        self.labels += 1
        return "$L__BB%d_%d" % (fn_index, self.labels)

    def arith(self, f, n):
        """n instructions of float/int arithmetic starting from float register f; returns the result."""
        cur = f
        for _ in range(n):
            choice = self.rng.random()
            if choice < 0.45:
                nf = self.reg("f")
                self.emit("fma.rn.f32 \t%s, %s, %s, %s;" % (nf, cur, cur, self.rng.choice(FLOAT_CONSTS)))
                cur = nf
            elif choice < 0.65:
                nf = self.reg("f")
                op = self.rng.choice(["mul.f32", "add.f32", "sub.f32", "max.f32", "min.f32"])
                self.emit("%s \t%s, %s, %s;" % (op, nf, cur, self.rng.choice(FLOAT_CONSTS)))
                cur = nf
            elif choice < 0.80:
                r = self.reg("r")
                r2 = self.reg("r")
                nf = self.reg("f")
                self.emit("cvt.rzi.s32.f32 \t%s, %s;" % (r, cur))
                self.emit("%s \t%s, %s, %d;" % (self.rng.choice(["shl.b32", "xor.b32", "and.b32", "add.s32"]),
                                                r2, r, self.rng.randint(1, 31)))
                self.emit("cvt.rn.f32.s32 \t%s, %s;" % (nf, r2))
                cur = nf
            elif choice < 0.90:
                p = self.reg("p")
                nf = self.reg("f")
                self.emit("setp.gt.f32 \t%s, %s, %s;" % (p, cur, self.rng.choice(FLOAT_CONSTS)))
                self.emit("selp.f32 \t%s, %s, %s, %s;" % (nf, cur, self.rng.choice(FLOAT_CONSTS), p))
                cur = nf
            else:
                nf = self.reg("f")
                self.emit("%s \t%s, %s;" % (self.rng.choice(["abs.f32", "neg.f32", "sqrt.rn.f32", "rcp.rn.f32"]), nf, cur))
                cur = nf
        return cur

    def call(self, callee, args, ret_kind, proto=None, target_reg=None):
        """A brace-scoped call sequence like nvcc's; args = [(ptx type, register)]."""
        self.callseq += 1
        n = self.callseq - 1
        self.lines.append("\t{ // callseq %d, 0" % n)
        self.lines.append("\t.reg .b32 temp_param_reg;")
        for i, (ty, reg) in enumerate(args):
            width = "b64" if ty == "u64" else "b32"
            self.lines.append("\t.param .%s param%d;" % (width, i))
            self.lines.append("\tst.param.%s \t[param%d+0], %s;" % ("b64" if ty == "u64" else ty, i, reg))
        self.lines.append("\t.param .b32 retval0;")
        if proto is not None:
            params = ", ".join(".param .%s _" % ("b64" if ty == "u64" else "b32") for ty, _ in args)
            self.lines.append("\tprototype_%d : .callprototype (.param .b32 _) _ (%s);" % (n, params))
            self.lines.append("\tcall (retval0), ")
            self.lines.append("\t%s, " % target_reg)
        else:
            self.lines.append("\tcall.uni (retval0), ")
            self.lines.append("\t%s, " % callee)
        self.lines.append("\t(")
        self.lines.append(",\n".join("\tparam%d" % i for i in range(len(args))))
        if proto is not None:
            self.lines.append("\t)")
            self.lines.append("\t, prototype_%d;" % n)
        else:
            self.lines.append("\t);")
        out = self.reg(ret_kind)
        self.lines.append("\tld.param.%s \t%s, [retval0+0];" % ("f32" if ret_kind == "f" else "b32", out))
        self.lines.append("\t} // callseq %d" % n)
        return out

    def declarations(self):
        decl = []
        names = {"p": ".pred", "r": ".b32", "f": ".f32", "rd": ".b64"}
        for kind in ("p", "r", "f", "rd"):
            if self.count[kind]:
                decl.append("\t.reg %s \t%%%s<%d>;" % (names[kind], kind, self.count[kind] + 1))
        return decl


def func_header(linkage, name, params, ret=True, terminator=""):
    head = "%s .func  %s%s(" % (linkage, "(.param .b32 func_retval0) " if ret else "", name)
    return [head] + [",\n".join("\t.param .%s %s_param_%d" % (ty, name, i) for i, ty in enumerate(params))] + [")" + terminator]


class Module:
    def __init__(self, index, args, rng):
        self.index = index
        self.args = args
        self.rng = rng
        self.debug = args.debug_every > 0 and index % args.debug_every == args.debug_every - 1
        self.prefix = "m%04d" % index
        self.funcs = [mangle("%s_f%02d" % (self.prefix, k), DEV_SIG) for k in range(args.funcs)]
        self.kernels = [mangle("%s_k%d" % (self.prefix, k), KERN_SIG) for k in range(args.kernels)]
        self.data = "%s_data" % self.prefix
        self.table = "%s_ops" % self.prefix
        self.alias = "%s_entry" % self.prefix     # .alias of the module's last function
        self.func_info = []                       # (name, begin label, end label, line) for DWARF


def module_exports(index, args):
    prefix = "m%04d" % index
    return {
        "funcs": [mangle("%s_f%02d" % (prefix, k), DEV_SIG) for k in range(args.funcs)],
        "data": "%s_data" % prefix,
        "alias": "%s_entry" % prefix,
    }


def write_device_function(mod, out, fi, name, callees, weak_used, rng, linkage=".visible"):
    body = Body(rng, debug_file=1 if mod.debug else None, first_line=10 + fi * 20)
    p = lambda i: "%s_param_%d" % (name, i)
    fx, rdp, rn = body.reg("f"), body.reg("rd"), body.reg("r")
    body.emit("ld.param.f32 \t%s, [%s];" % (fx, p(0)))
    body.emit("ld.param.u64 \t%s, [%s];" % (rdp, p(1)))
    body.emit("ld.param.u32 \t%s, [%s];" % (rn, p(2)))
    cur = body.arith(fx, rng.randint(3, 12))
    if rng.random() < 0.6:                       # a loop over the array, as nvcc writes it
        pz = body.reg("p")
        done = body.label(fi)
        loop = body.label(fi)
        body.emit("setp.lt.s32 \t%s, %s, 1;" % (pz, rn))
        body.emit("@%s bra \t%s;" % (pz, done))
        ri = body.reg("r")
        body.emit("mov.u32 \t%s, 0;" % ri)
        acc = body.reg("f")
        body.emit("mov.f32 \t%s, %s;" % (acc, cur))
        body.lines.append("%s:" % loop)
        off, addr, val = body.reg("rd"), body.reg("rd"), body.reg("f")
        body.emit("mul.wide.s32 \t%s, %s, 4;" % (off, ri))
        body.emit("add.s64 \t%s, %s, %s;" % (addr, rdp, off))
        body.emit("ld.f32 \t%s, [%s];" % (val, addr))
        body.emit("fma.rn.f32 \t%s, %s, %s, %s;" % (acc, val, acc, rng.choice(FLOAT_CONSTS)))
        body.emit("add.s32 \t%s, %s, 1;" % (ri, ri))
        pl = body.reg("p")
        body.emit("setp.lt.s32 \t%s, %s, %s;" % (pl, ri, rn))
        body.emit("@%s bra \t%s;" % (pl, loop))
        body.lines.append("%s:" % done)
        cur = body.arith(acc, rng.randint(2, 8))
    for callee in callees:
        cur = body.call(callee, [("f32", cur), ("u64", rdp), ("b32", rn)], "f")
        cur = body.arith(cur, rng.randint(1, 6))
    for k in weak_used:
        cur = body.call(weak_name(k), [("f32", cur)], "f")
    cur = body.arith(cur, rng.randint(2, 10))
    body.emit("st.param.f32 \t[func_retval0+0], %s;" % cur)
    body.emit("ret;")
    write_function(out, mod, func_header(linkage, name, ["f32", "u64", "u32"]), body, fi)


def write_function(out, mod, header, body, fi):
    out.extend(header)
    out.append("{")
    out.extend(body.declarations())
    if mod is not None and mod.debug:
        begin, end = "$L__func_begin%d" % fi, "$L__func_end%d" % fi
        out.append("\t.loc\t1 %d 0" % body.line)
        out.append("%s:" % begin)
        out.extend(body.lines)
        out.append("%s:" % end)
        mod.func_info.append((header[0].split()[-1].rstrip("("), begin, end, 10 + fi * 20))
    else:
        out.append("")
        out.extend(body.lines)
    out.append("}")


def write_weak(out, k, rng_seed, mod=None, fi=0):
    # Identical in every module that instantiates it (seeded by k only), as a template would be.
    rng = random.Random(1000 + k)
    name = weak_name(k)
    body = Body(rng, debug_file=1 if mod is not None and mod.debug else None)
    f = body.reg("f")
    body.emit("ld.param.f32 \t%s, [%s_param_0];" % (f, name))
    cur = body.arith(f, 4 + k % 5)
    body.emit("st.param.f32 \t[func_retval0+0], %s;" % cur)
    body.emit("ret;")
    out.append("\t// .weak\t%s" % name)
    write_function(out, mod, func_header(".weak", name, ["f32"]), body, fi)


def dwarf_bytes(text):
    return [ord(c) for c in text] + [0]


def write_dwarf(out, mod, path):
    """nvcc -G style DWARF 2: a compile unit and one subprogram per function, with low/high pc labels."""
    abbrev = [1, 17, 1, 37, 8, 19, 5, 3, 8, 16, 6, 27, 8, 17, 1, 0, 0,
              2, 46, 0, 17, 1, 18, 1, 3, 8, 58, 11, 59, 5, 63, 12, 0, 0, 0]
    out.append("\t.section\t.debug_abbrev")
    out.append("\t{")
    out.extend(".b8 %d" % b for b in abbrev)
    out.append("\t}")
    producer, directory = "lgenfe: EDG 6.6 (ptxlink bench)", "/bench/src"
    items = []                      # (directive, value, size)
    items.append((".b8", "1", 1))
    for b in dwarf_bytes(producer):
        items.append((".b8", str(b), 1))
    items += [(".b8", "4", 1), (".b8", "0", 1)]
    for b in dwarf_bytes(path):
        items.append((".b8", str(b), 1))
    items.append((".b32", ".debug_line", 4))
    for b in dwarf_bytes(directory):
        items.append((".b8", str(b), 1))
    items.append((".b64", "0", 8))
    for name, begin, end, line in mod.func_info:
        items += [(".b8", "2", 1), (".b64", begin, 8), (".b64", end, 8)]
        for b in dwarf_bytes(name):
            items.append((".b8", str(b), 1))
        items += [(".b8", "1", 1), (".b8", str(line & 0xFF), 1), (".b8", str(line >> 8), 1), (".b8", "1", 1)]
    items.append((".b8", "0", 1))
    length = 2 + 4 + 1 + sum(size for _, _, size in items)
    out.append("\t.section\t.debug_info")
    out.append("\t{")
    out.append(".b32 %d" % length)
    out.append(".b8 2")
    out.append(".b8 0")
    out.append(".b32 .debug_abbrev")
    out.append(".b8 8")
    out.extend("%s %s" % (d, v) for d, v, _ in items)
    out.append("\t}")
    out.append("\t.section\t.debug_macinfo")
    out.append("\t{")
    out.append(".b8 0")
    out.append("\t}")


def generate_module(index, args, out_dir):
    rng = random.Random(args.seed * 1000003 + index)
    mod = Module(index, args, rng)
    path = "/bench/src/%s.cu" % mod.prefix
    # Calls and variable references go to lower-numbered modules only.
    imports = []
    if index > 0:
        for _ in range(rng.randint(2, 6)):
            imports.append(module_exports(rng.randrange(0, index), args))
    weak_used = sorted(rng.sample(range(args.weak_pool), min(args.weak_pool, rng.randint(1, 4))))
    commons = sorted(rng.sample(range(args.common_pool), min(args.common_pool, rng.randint(1, 3))))

    out = ["//", "// Generated by NVIDIA NVVM Compiler", "//", "// Compiler Build ID: ptxlink bench gen_program.py",
           "// Based on NVVM 7.0.1", "//", "",
           ".version %s" % VERSION, ".target %s%s" % (TARGET, ", debug" if mod.debug else ""), ".address_size 64", "",
           "\t// .globl\t%s" % mod.funcs[0]]
    # Prototypes: weak instantiations, external functions, and the alias (declared before use).
    for k in weak_used:
        out.extend(func_header(".weak", weak_name(k), ["f32"], terminator="\n;"))
    ext_funcs, ext_data = [], []
    for imp in imports:
        for f in rng.sample(imp["funcs"], min(len(imp["funcs"]), rng.randint(1, 3))):
            if f not in ext_funcs:
                ext_funcs.append(f)
        if rng.random() < 0.5 and imp["alias"] not in ext_funcs:
            ext_funcs.append(imp["alias"])
        if imp["data"] not in ext_data:
            ext_data.append(imp["data"])
    for f in ext_funcs:
        out.extend(func_header(".extern", f, ["f32", "u64", "u32"], terminator="\n;"))
    out.extend(func_header(".visible", mod.alias, ["f32", "u64", "u32"], terminator="\n;"))
    for f in mod.funcs:
        out.extend(func_header(".visible", f, ["f32", "u64", "u32"], terminator="\n;"))
    for d in ext_data:
        out.append(".extern .global .align 4 .b8 %s[%d];" % (d, args.data_bytes))
    out.append(".visible .global .align 4 .b8 %s[%d];" % (mod.data, args.data_bytes))
    for c in commons:
        out.append(".common .global .align 4 .u32 bench_counter%d;" % c)
    table = rng.sample(mod.funcs, min(4, len(mod.funcs)))
    out.append(".visible .global .align 8 .u64 %s[%d] = {%s};" % (mod.table, len(table), ", ".join(table)))
    out.append(".global .align 4 .u32 %s_state = %d;" % (mod.prefix, rng.randint(0, 1 << 20)))
    out.append("")
    if mod.debug:
        out.append("\t.file\t1 \"%s\"" % path)
        out.append("\t.file\t2 \"/bench/include/common.h\"")
    fi = 0
    for k in weak_used:
        write_weak(out, k, args.seed, mod, fi)
        fi += 1
    for local, name in enumerate(mod.funcs):
        callees = []
        if local > 0 and rng.random() < 0.7:       # calls into this module, to lower-numbered functions
            callees += rng.sample(mod.funcs[:local], min(local, rng.randint(1, 2)))
        if ext_funcs and rng.random() < 0.5:
            callees.append(rng.choice(ext_funcs))
        used = [k for k in weak_used if rng.random() < 0.3]
        out.append("\t// .globl\t%s" % name)
        write_device_function(mod, out, fi, name, callees, used, rng)
        fi += 1
    for kname in mod.kernels:
        fi = write_kernel(out, mod, kname, fi, rng, ext_data, commons)
    out.append(".alias %s, %s;" % (mod.alias, mod.funcs[-1]))
    if mod.debug:
        write_dwarf(out, mod, path)
    text = "\n".join(out) + "\n"
    with open(os.path.join(out_dir, "%s.ptx" % mod.prefix), "w") as f:
        f.write(text)
    return len(text)


def write_kernel(out, mod, name, fi, rng, ext_data, commons):
    body = Body(rng, debug_file=1 if mod.debug else None, first_line=500 + fi * 10)
    p = lambda i: "%s_param_%d" % (name, i)
    ro, ri, rn = body.reg("rd"), body.reg("rd"), body.reg("r")
    body.emit("ld.param.u64 \t%s, [%s];" % (ro, p(0)))
    body.emit("ld.param.u64 \t%s, [%s];" % (ri, p(1)))
    body.emit("ld.param.u32 \t%s, [%s];" % (rn, p(2)))
    ctaid, ntid, tid, idx = body.reg("r"), body.reg("r"), body.reg("r"), body.reg("r")
    body.emit("mov.u32 \t%s, %%ctaid.x;" % ctaid)
    body.emit("mov.u32 \t%s, %%ntid.x;" % ntid)
    body.emit("mov.u32 \t%s, %%tid.x;" % tid)
    body.emit("mad.lo.s32 \t%s, %s, %s, %s;" % (idx, ctaid, ntid, tid))
    pexit = body.reg("p")
    exit_label = body.label(fi)
    body.emit("setp.ge.s32 \t%s, %s, %s;" % (pexit, idx, rn))
    body.emit("@%s bra \t%s;" % (pexit, exit_label))
    gin, gout, off, ain = body.reg("rd"), body.reg("rd"), body.reg("rd"), body.reg("rd")
    body.emit("cvta.to.global.u64 \t%s, %s;" % (gin, ri))
    body.emit("cvta.to.global.u64 \t%s, %s;" % (gout, ro))
    body.emit("mul.wide.s32 \t%s, %s, 4;" % (off, idx))
    body.emit("add.s64 \t%s, %s, %s;" % (ain, gin, off))
    x = body.reg("f")
    body.emit("ld.global.f32 \t%s, [%s];" % (x, ain))
    cur = body.arith(x, rng.randint(2, 6))
    callees = rng.sample(mod.funcs, min(len(mod.funcs), rng.randint(1, 3)))
    if name == mod.kernels[0]:
        # nvlink 13 dies ("Internal error: reference to deleted symbol") on an .alias nobody calls.
        callees.append(mod.alias)
    for callee in callees:
        cur = body.call(callee, [("f32", cur), ("u64", ri), ("b32", rn)], "f")
    # An indirect call through the module's call table.
    tsel, toff, tbase, taddr, fptr = body.reg("r"), body.reg("rd"), body.reg("rd"), body.reg("rd"), body.reg("rd")
    body.emit("and.b32 \t%s, %s, 3;" % (tsel, idx))
    body.emit("mul.wide.u32 \t%s, %s, 8;" % (toff, tsel))
    body.emit("mov.u64 \t%s, %s;" % (tbase, mod.table))
    body.emit("add.s64 \t%s, %s, %s;" % (taddr, tbase, toff))
    body.emit("ld.global.u64 \t%s, [%s];" % (fptr, taddr))
    cur = body.call(None, [("f32", cur), ("u64", ri), ("b32", rn)], "f", proto=True, target_reg=fptr)
    # Module data, imported data and a .common counter.
    for d in [mod.data] + ext_data[:2]:
        base, addr2, v = body.reg("rd"), body.reg("rd"), body.reg("f")
        body.emit("mov.u64 \t%s, %s;" % (base, d))
        body.emit("add.s64 \t%s, %s, %d;" % (addr2, base, 4 * rng.randint(0, mod.args.data_bytes // 4 - 1)))
        body.emit("ld.global.f32 \t%s, [%s];" % (v, addr2))
        nf = body.reg("f")
        body.emit("add.f32 \t%s, %s, %s;" % (nf, cur, v))
        cur = nf
    for c in commons[:1]:
        cb, old = body.reg("rd"), body.reg("r")
        body.emit("mov.u64 \t%s, bench_counter%d;" % (cb, c))
        body.emit("atom.global.add.u32 \t%s, [%s], 1;" % (old, cb))
    aout = body.reg("rd")
    body.emit("add.s64 \t%s, %s, %s;" % (aout, gout, off))
    body.emit("st.global.f32 \t[%s], %s;" % (aout, cur))
    body.lines.append("%s:" % exit_label)
    body.emit("ret;")
    out.append("\t// .globl\t%s" % name)
    header = [".visible .entry %s(" % name,
              ",\n".join("\t.param .u64 .ptr .align 1 %s" % p(i) for i in range(2)) + ",\n\t.param .u32 %s" % p(2),
              ")", ".maxntid 256, 1, 1" if rng.random() < 0.3 else ""]
    write_function(out, mod, header, body, fi)
    return fi + 1


def generate_library(args, out_dir):
    """N members of one function each (some calling an earlier member), and main.ptx needing 1%."""
    rng = random.Random(args.seed)
    lib_dir = os.path.join(out_dir, "lib")
    os.makedirs(lib_dir, exist_ok=True)
    total = 0
    names = [mangle("lib%05d" % k, DEV_SIG) for k in range(args.library)]
    for k, name in enumerate(names):
        mrng = random.Random(args.seed * 7919 + k)
        callee = names[mrng.randrange(0, k)] if k > 0 and mrng.random() < 0.3 else None
        out = [".version %s" % VERSION, ".target %s" % TARGET, ".address_size 64", ""]
        if callee:
            out.extend(func_header(".extern", callee, ["f32", "u64", "u32"], terminator="\n;"))
        out.append(".visible .global .align 4 .u32 lib%05d_uses;" % k)
        mod = None
        body = Body(mrng)
        f, rd, rn = body.reg("f"), body.reg("rd"), body.reg("r")
        body.emit("ld.param.f32 \t%s, [%s_param_0];" % (f, name))
        body.emit("ld.param.u64 \t%s, [%s_param_1];" % (rd, name))
        body.emit("ld.param.u32 \t%s, [%s_param_2];" % (rn, name))
        cur = body.arith(f, mrng.randint(5, 30))
        if callee:
            cur = body.call(callee, [("f32", cur), ("u64", rd), ("b32", rn)], "f")
        body.emit("st.param.f32 \t[func_retval0+0], %s;" % cur)
        body.emit("ret;")
        write_function(out, mod, func_header(".visible", name, ["f32", "u64", "u32"]), body, 0)
        text = "\n".join(out) + "\n"
        with open(os.path.join(lib_dir, "member%05d.ptx" % k), "w") as fh:
            fh.write(text)
        total += len(text)
    needed = sorted(rng.sample(range(args.library), max(1, args.library * args.needed_percent // 100)))
    out = [".version %s" % VERSION, ".target %s" % TARGET, ".address_size 64", ""]
    for k in needed:
        out.extend(func_header(".extern", names[k], ["f32", "u64", "u32"], terminator="\n;"))
    body = Body(rng)
    ro, ri, rn = body.reg("rd"), body.reg("rd"), body.reg("r")
    body.emit("ld.param.u64 \t%s, [main_kernel_param_0];" % ro)
    body.emit("ld.param.u64 \t%s, [main_kernel_param_1];" % ri)
    body.emit("ld.param.u32 \t%s, [main_kernel_param_2];" % rn)
    cur = body.reg("f")
    body.emit("mov.f32 \t%s, 0f3F800000;" % cur)
    for k in needed:
        cur = body.call(names[k], [("f32", cur), ("u64", ri), ("b32", rn)], "f")
    g = body.reg("rd")
    body.emit("cvta.to.global.u64 \t%s, %s;" % (g, ro))
    body.emit("st.global.f32 \t[%s], %s;" % (g, cur))
    body.emit("ret;")
    header = [".visible .entry main_kernel(", "\t.param .u64 main_kernel_param_0,\n\t.param .u64 main_kernel_param_1,\n"
              "\t.param .u32 main_kernel_param_2", ")"]
    write_function(out, None, header, body, 0)
    text = "\n".join(out) + "\n"
    with open(os.path.join(out_dir, "main.ptx"), "w") as fh:
        fh.write(text)
    return total + len(text), len(needed)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--modules", type=int, default=200)
    ap.add_argument("--funcs", type=int, default=20, help="device functions per module")
    ap.add_argument("--kernels", type=int, default=3, help="kernels per module")
    ap.add_argument("--weak-pool", type=int, default=40, help="distinct weak template instantiations")
    ap.add_argument("--common-pool", type=int, default=8, help="distinct .common counters")
    ap.add_argument("--data-bytes", type=int, default=256)
    ap.add_argument("--debug-every", type=int, default=10, help="every Nth module has debug info (0: none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--library", type=int, default=0, help="write an archive benchmark of N members instead")
    ap.add_argument("--needed-percent", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    if args.library:
        size, needed = generate_library(args, args.out_dir)
        print("gen_program: %d library members + main.ptx needing %d of them, %.1f MB of PTX"
              % (args.library, needed, size / 1e6))
        return 0
    total = sum(generate_module(i, args, args.out_dir) for i in range(args.modules))
    print("gen_program: %d modules, %d functions, %d kernels, %.1f MB of PTX"
          % (args.modules, args.modules * (args.funcs + args.kernels), args.modules * args.kernels, total / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
