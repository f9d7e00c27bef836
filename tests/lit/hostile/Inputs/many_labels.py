"""many_labels.py N > f.ptx: one kernel with N labels and N branches to them, the shape of nvcc -G code at scale
(one object of a public program had 214,069 labels in 20 functions)."""
import sys
n = int(sys.argv[1])
print(".version 9.0\n.target sm_80\n.address_size 64\n")
print(".visible .entry k(\n\t.param .u32 k_param_0\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<3>;\n")
print("\tld.param.u32 \t%r1, [k_param_0];\n\tsetp.eq.s32 \t%p1, %r1, 0;")
for i in range(n):
    print(f"\t@%p1 bra \t$L__BB0_{i};\n\tadd.s32 \t%r1, %r1, {i};\n$L__BB0_{i}:")
print("\tret;\n}")
