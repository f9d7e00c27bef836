#!/usr/bin/env python3
"""Writes two PTX modules for sm_90 that together make a cubin large enough that its compressed image
spans many LZ4/zstd blocks: FUNCS.ptx defines N device functions (each a different chain of integer and
float arithmetic, so the code does not compress to nothing), KERNEL.ptx one kernel calling every one of
them across the module boundary.

usage: many_functions.py N FUNCS.ptx KERNEL.ptx
"""
import sys

n = int(sys.argv[1])
header = ".version 8.0\n.target sm_90\n.address_size 64\n"
with open(sys.argv[2], "w") as f:
    f.write(header)
    for i in range(n):
        f.write(".visible .func (.param .b32 r) f%d(.param .b32 x)\n{\n" % i)
        f.write("  .reg .b32 %r<20>;\n  .reg .f32 %f<8>;\n")
        f.write("  ld.param.b32 %r1, [x];\n")
        for k in range(2, 14):
            op = ("add.s32", "xor.b32", "mul.lo.s32", "shl.b32")[(i + k) % 4]
            imm = (i * 7919 + k * 104729) % (31 if op == "shl.b32" else 65521) + 1
            f.write("  %s %%r%d, %%r%d, %d;\n" % (op, k, k - 1, imm))
        f.write("  cvt.rn.f32.s32 %%f1, %%r13;\n  mul.f32 %%f2, %%f1, 0f%08X;\n" % (0x3F800000 + i * 977))
        f.write("  cvt.rzi.s32.f32 %r14, %f2;\n  add.s32 %r15, %r14, %r13;\n")
        f.write("  st.param.b32 [r], %r15;\n  ret;\n}\n")
with open(sys.argv[3], "w") as f:
    f.write(header)
    for i in range(n):
        f.write(".extern .func (.param .b32 r) f%d(.param .b32 x);\n" % i)
    f.write(".visible .entry many(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  .reg .b32 %r<4>;\n")
    f.write("  ld.param.u64 %rd1, [p];\n  ld.global.u32 %r1, [%rd1];\n")
    for i in range(n):
        f.write("  { .param .b32 a; .param .b32 b; st.param.b32 [a], %%r1;\n"
                "    call.uni (b), f%d, (a); ld.param.b32 %%r2, [b]; }\n  add.s32 %%r1, %%r1, %%r2;\n" % i)
    f.write("  st.global.u32 [%rd1], %r1;\n  ret;\n}\n")
