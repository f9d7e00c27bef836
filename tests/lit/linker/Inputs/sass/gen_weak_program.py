#!/usr/bin/env python3
"""Writes two PTX modules shaped like nvcc output of two .cu files that instantiate the same templates
(sass-shared-units.test): each defines the same 40 `.weak .entry` kernels (about 80K of code in all, as a
header's CUB-style templates give), a `.weak .func` that calls a file-local function (which must stay in
its module's unit), and a kernel of its own whose constant the test edits (CONST).

Usage: gen_weak_program.py OUT_DIR [CONST]
"""
import os
import sys


def weak_kernel(i):
    body = ["\tld.param.u64 \t%rd1, [tk{0}_param_0];".format(i), "\tcvta.to.global.u64 \t%rd2, %rd1;",
            "\tld.global.f32 \t%f1, [%rd2];"]
    for k in range(60):
        body.append("\tfma.rn.f32 \t%f1, %f1, 0f3F8{0:05X}, 0f3F000000;".format(i * 64 + k))
    body.append("\tst.global.f32 \t[%rd2], %f1;")
    return "\n".join([".weak .entry tk{0}(".format(i), "\t.param .u64 tk{0}_param_0".format(i), ")", "{",
                      "\t.reg .f32 \t%f<2>;", "\t.reg .b64 \t%rd<3>;", ""] + body + ["\tret;", "}", ""])


def module(name, const):
    out = ["//", "// gen_weak_program.py: module " + name, "//", "", ".version 8.0", ".target sm_80",
           ".address_size 64", "",
           # A file-local helper, and a weak function calling it: the weak one stays in this module's unit.
           ".func  (.param .b32 func_retval0) local_twice(", "\t.param .b32 local_twice_param_0", ")", "{",
           "\t.reg .b32 \t%r<3>;", "\tld.param.u32 \t%r1, [local_twice_param_0];", "\tadd.s32 \t%r2, %r1, %r1;",
           "\tst.param.b32 \t[func_retval0], %r2;", "\tret;", "}", "",
           ".weak .func  (.param .b32 func_retval0) pinned_weak(", "\t.param .b32 pinned_weak_param_0", ")", "{",
           "\t.reg .b32 \t%r<3>;", "\tld.param.u32 \t%r1, [pinned_weak_param_0];",
           "\t{", "\t.param .b32 param0;", "\tst.param.b32 \t[param0], %r1;", "\t.param .b32 retval0;",
           "\tcall.uni (retval0), local_twice, (param0);", "\tld.param.b32 \t%r2, [retval0];", "\t}",
           "\tst.param.b32 \t[func_retval0], %r2;", "\tret;", "}", ""]
    out += [weak_kernel(i) for i in range(40)]
    out += [".visible .entry own_{0}(".format(name), "\t.param .u64 own_{0}_param_0".format(name), ")", "{",
            "\t.reg .f32 \t%f<2>;", "\t.reg .b32 \t%r<3>;", "\t.reg .b64 \t%rd<3>;",
            "\tld.param.u64 \t%rd1, [own_{0}_param_0];".format(name), "\tcvta.to.global.u64 \t%rd2, %rd1;",
            "\tld.global.f32 \t%f1, [%rd2];", "\tmul.f32 \t%f1, %f1, {0};".format(const),
            "\tst.global.f32 \t[%rd2], %f1;", "\tcvt.rzi.s32.f32 \t%r1, %f1;",
            "\t{", "\t.param .b32 param0;", "\tst.param.b32 \t[param0], %r1;", "\t.param .b32 retval0;",
            "\tcall.uni (retval0), pinned_weak, (param0);", "\tld.param.b32 \t%r2, [retval0];", "\t}",
            "\tst.global.u32 \t[%rd2+4], %r2;", "\tret;", "}", ""]
    return "\n".join(out)


def main():
    out = sys.argv[1]
    const = sys.argv[2] if len(sys.argv) > 2 else "0f40000000"
    os.makedirs(out, exist_ok=True)
    for name in ("a", "b"):
        with open(os.path.join(out, name + ".ptx"), "w") as f:
            f.write(module(name, const if name == "a" else "0f40400000"))


if __name__ == "__main__":
    main()
