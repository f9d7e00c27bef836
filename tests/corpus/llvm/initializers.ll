; Module-scope variables with initializers, as LLVM's NVPTX back end writes them: nested structs,
; arrays of structs, pointers to variables and functions (generic(x), x+offset), packed structs holding
; pointers at unaligned offsets (mask(): 0xFF00(generic(x)), PTX >= 7.1), constant-space tables,
; strings, floating-point and vector data, i128, and shared/local-less globals.
; LLC: sm80 -mcpu=sm_80 -mattr=+ptx71
; LLC: sm86 -mcpu=sm_86 -mattr=+ptx78
; LLC: sm90 -mcpu=sm_90 -mattr=+ptx85
target triple = "nvptx64-nvidia-cuda"

%Inner = type { i16, [3 x i8], double }
%Outer = type { i32, [2 x %Inner], float, ptr, ptr }
%Packed = type <{ i8, ptr, i16, ptr, i8 }>

@in_int = addrspace(1) global i32 42, align 4
@in_arr = addrspace(1) global [6 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5, i32 6], align 4
@in_outer = addrspace(1) global %Outer {
  i32 7,
  [2 x %Inner] [%Inner { i16 1, [3 x i8] c"abc", double 1.5 }, %Inner { i16 -2, [3 x i8] c"x\00z", double -2.5e-1 }],
  float 3.25,
  ptr @in_twice,
  ptr addrspacecast (ptr addrspace(1) @in_int to ptr) }, align 8
@in_outers = addrspace(1) global [2 x %Outer] [
  %Outer { i32 1, [2 x %Inner] zeroinitializer, float 0.0, ptr @in_thrice,
           ptr addrspacecast (ptr addrspace(1) getelementptr (i8, ptr addrspace(1) @in_arr, i64 8) to ptr) },
  %Outer { i32 2, [2 x %Inner] [%Inner { i16 3, [3 x i8] c"\01\02\03", double 4.0 }, %Inner zeroinitializer],
           float 1.0, ptr null, ptr null } ], align 8
@in_packed = addrspace(1) global %Packed <{ i8 12, ptr addrspacecast (ptr addrspace(1) @in_int to ptr), i16 -1,
  ptr addrspacecast (ptr addrspace(1) getelementptr (i8, ptr addrspace(1) @in_arr, i64 4) to ptr), i8 56 }>, align 1
@in_packed_fn = addrspace(1) global <{ i8, ptr }> <{ i8 1, ptr @in_twice }>, align 1
@in_ptr = addrspace(1) global ptr addrspacecast (ptr addrspace(1) getelementptr (i8, ptr addrspace(1) @in_arr, i64 12) to ptr), align 8
@in_gptr = addrspace(1) global ptr addrspace(1) @in_int, align 8
@in_fnptrs = addrspace(1) global [3 x ptr] [ptr @in_twice, ptr @in_thrice, ptr null], align 8
@in_str = private unnamed_addr addrspace(1) constant [15 x i8] c"ptxlink corpus\00", align 1
@in_msg = addrspace(1) global ptr addrspacecast (ptr addrspace(1) @in_str to ptr), align 8
@in_dbl = addrspace(1) global [3 x double] [double 1.0, double -0.0, double 0x44DFE185CA57C517], align 8
@in_flt = addrspace(1) global [4 x float] [float 0x7FF0000000000000, float 0x36A0000000000000, float 0.5, float -1.0], align 16
@in_half = addrspace(1) global [2 x half] [half 0xH3C00, half 0xHC000], align 2
@in_vec = addrspace(1) global <4 x i32> <i32 1, i32 -1, i32 2147483647, i32 -2147483648>, align 16
@in_i128 = addrspace(1) global i128 170141183460469231731687303715884105727, align 16
@in_big = addrspace(1) global i64 -81985529216486896, align 8
@in_zero = addrspace(1) global [1024 x float] zeroinitializer, align 4
@in_const_tab = addrspace(4) constant [8 x float] [float 0.5, float 0.25, float 0.125, float 6.25e-2, float 1.0, float 2.0, float 4.0, float 8.0], align 4
@in_const_outer = addrspace(4) constant %Outer { i32 3, [2 x %Inner] zeroinitializer, float 0.5, ptr @in_twice,
  ptr addrspacecast (ptr addrspace(1) @in_int to ptr) }, align 8
@in_const_addr = addrspace(4) constant ptr addrspace(4) @in_const_tab, align 8
@in_shared = addrspace(3) global [256 x i32] undef, align 16
@in_shared2 = addrspace(3) global [2 x double] undef, align 8

define i32 @in_twice(i32 %x) noinline {
  %r = shl i32 %x, 1
  ret i32 %r
}
define i32 @in_thrice(i32 %x) noinline {
  %r = mul i32 %x, 3
  ret i32 %r
}

define ptx_kernel void @in_kernel(ptr addrspace(1) %out, i32 %i) {
  %fpp = getelementptr [3 x ptr], ptr addrspace(1) @in_fnptrs, i32 0, i32 %i
  %fn = load ptr, ptr addrspace(1) %fpp
  %r = call i32 %fn(i32 %i)
  %pp = load ptr, ptr addrspace(1) @in_ptr
  %pv = load i32, ptr %pp
  %gp = load ptr addrspace(1), ptr addrspace(1) @in_gptr
  %gv = load i32, ptr addrspace(1) %gp
  %sp = getelementptr [256 x i32], ptr addrspace(3) @in_shared, i32 0, i32 %i
  store i32 %r, ptr addrspace(3) %sp
  %sp2 = getelementptr [2 x double], ptr addrspace(3) @in_shared2, i32 0, i32 %i
  store double 1.0, ptr addrspace(3) %sp2
  %cp = getelementptr [8 x float], ptr addrspace(4) @in_const_tab, i32 0, i32 %i
  %cv = load float, ptr addrspace(4) %cp
  %cvi = fptosi float %cv to i32
  %m = load ptr, ptr addrspace(1) @in_msg
  %mc = load i8, ptr %m
  %mci = zext i8 %mc to i32
  %pk = load i8, ptr addrspace(1) @in_packed
  %pki = zext i8 %pk to i32
  %of = getelementptr %Outer, ptr addrspace(1) @in_outer, i32 0, i32 3
  %ofn = load ptr, ptr addrspace(1) %of
  %ofr = call i32 %ofn(i32 %pki)
  %co = getelementptr %Outer, ptr addrspace(4) @in_const_outer, i32 0, i32 0
  %coi = load i32, ptr addrspace(4) %co
  %os = getelementptr [2 x %Outer], ptr addrspace(1) @in_outers, i32 0, i32 1, i32 0
  %osi = load i32, ptr addrspace(1) %os
  %ca = load ptr addrspace(4), ptr addrspace(4) @in_const_addr
  %cav = load float, ptr addrspace(4) %ca
  %cavi = fptosi float %cav to i32
  %pf = getelementptr i8, ptr addrspace(1) @in_packed_fn, i32 0
  %pfv = load i8, ptr addrspace(1) %pf
  %pfi = zext i8 %pfv to i32
  %d = load double, ptr addrspace(1) @in_dbl
  %di = fptosi double %d to i32
  %f = load float, ptr addrspace(1) getelementptr ([4 x float], ptr addrspace(1) @in_flt, i32 0, i32 2)
  %fi = fptosi float %f to i32
  %h = load half, ptr addrspace(1) @in_half
  %hi = fptosi half %h to i32
  %v = load <4 x i32>, ptr addrspace(1) @in_vec
  %v0 = extractelement <4 x i32> %v, i32 1
  %q = load i128, ptr addrspace(1) @in_i128
  %qi = trunc i128 %q to i32
  %b = load i64, ptr addrspace(1) @in_big
  %bi = trunc i64 %b to i32
  %zp = getelementptr [1024 x float], ptr addrspace(1) @in_zero, i32 0, i32 %i
  store float 2.0, ptr addrspace(1) %zp
  %s1 = add i32 %r, %pv
  %s2 = add i32 %s1, %gv
  %s3 = add i32 %s2, %cvi
  %s4 = add i32 %s3, %mci
  %s5 = add i32 %s4, %ofr
  %s6 = add i32 %s5, %coi
  %s7 = add i32 %s6, %osi
  %s8 = add i32 %s7, %cavi
  %s9 = add i32 %s8, %pfi
  %s10 = add i32 %s9, %di
  %s11 = add i32 %s10, %fi
  %s12 = add i32 %s11, %hi
  %s13 = add i32 %s12, %v0
  %s14 = add i32 %s13, %qi
  %s15 = add i32 %s14, %bi
  store i32 %s15, ptr addrspace(1) %out
  ret void
}
