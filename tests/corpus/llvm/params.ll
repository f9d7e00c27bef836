; Parameter and return forms from LLVM's NVPTX back end: scalars of every width (i1..i128, half,
; bfloat, float, double), vectors (<2 x float>, <4 x i32>, <3 x half>), arrays, byval structs with
; .align, aggregate returns ({i32, float, double} -> .param .align 8 .b8 func_retval0[16]), kernel
; byval parameters, and variadic
; functions (unsized trailing `.param .align 8 .b8 x_vararg[]`). Half-precision call arguments are
; loaded rather than constant: llc 19 crashes on half/bfloat immediates passed to a call.
; LLC: sm80 -mcpu=sm_80 -mattr=+ptx70 --expand-variadics-override=disable
; LLC: sm89 -mcpu=sm_89 -mattr=+ptx78 --expand-variadics-override=disable
target triple = "nvptx64-nvidia-cuda"

%S = type { i32, float, double }
%Arr = type { [5 x i32], i8 }

define i1 @pa_bool(i1 %a, i8 %b, i16 %c) noinline {
  %t = trunc i8 %b to i1
  %u = trunc i16 %c to i1
  %x = xor i1 %a, %t
  %r = and i1 %x, %u
  ret i1 %r
}
define i128 @pa_wide(i128 %a, i64 %b) noinline {
  %bb = zext i64 %b to i128
  %r = add i128 %a, %bb
  ret i128 %r
}
define half @pa_half(half %a, bfloat %b) noinline {
  %be = fpext bfloat %b to float
  %bh = fptrunc float %be to half
  %r = fadd half %a, %bh
  ret half %r
}
define <2 x float> @pa_vec2(<2 x float> %a, <2 x float> %b) noinline {
  %r = fadd <2 x float> %a, %b
  ret <2 x float> %r
}
define <4 x i32> @pa_vec4(<4 x i32> %a) noinline {
  %r = shl <4 x i32> %a, <i32 1, i32 2, i32 3, i32 4>
  ret <4 x i32> %r
}
define <3 x half> @pa_vec3h(<3 x half> %a) noinline {
  ret <3 x half> %a
}
define [4 x i32] @pa_array(i32 %a, [2 x double] %b) noinline {
  %r0 = insertvalue [4 x i32] undef, i32 %a, 0
  %r1 = insertvalue [4 x i32] %r0, i32 %a, 3
  ret [4 x i32] %r1
}
define %S @pa_struct_ret(i32 %a) noinline {
  %f = sitofp i32 %a to float
  %d = sitofp i32 %a to double
  %r0 = insertvalue %S undef, i32 %a, 0
  %r1 = insertvalue %S %r0, float %f, 1
  %r2 = insertvalue %S %r1, double %d, 2
  ret %S %r2
}
define i32 @pa_byval(ptr byval(%Arr) align 4 %p, ptr byval(%S) align 16 %q) noinline {
  %a = load i32, ptr %p
  %b = load i32, ptr %q
  %r = add i32 %a, %b
  ret i32 %r
}
define void @pa_void() noinline {
  ret void
}
define i32 @pa_sum(i32 %n, ...) noinline {
  %ap = alloca ptr
  call void @llvm.va_start(ptr %ap)
  %a = va_arg ptr %ap, i32
  %b = va_arg ptr %ap, double
  call void @llvm.va_end(ptr %ap)
  %bi = fptosi double %b to i32
  %r = add i32 %a, %bi
  ret i32 %r
}
declare void @llvm.va_start(ptr)
declare void @llvm.va_end(ptr)
declare i32 @pa_ext_vararg(ptr, ...)
declare %S @pa_ext_struct(<4 x float>, ptr byval(%Arr) align 8)

define ptx_kernel void @pa_kernel(ptr addrspace(1) align 16 %out, ptr byval(%S) align 8 %s, <2 x float> %v,
                                  i8 signext %c, i16 zeroext %h, i64 %l, float %f, double %d, ptr noalias %g) {
  %sv = load i32, ptr %s
  %a = call i1 @pa_bool(i1 true, i8 %c, i16 %h)
  %ai = zext i1 %a to i32
  %w = call i128 @pa_wide(i128 1, i64 %l)
  %wi = trunc i128 %w to i32
  %hin = load half, ptr %g
  %bin = load bfloat, ptr %g
  %hf = call half @pa_half(half %hin, bfloat %bin)
  %hfi = fptosi half %hf to i32
  %v2 = call <2 x float> @pa_vec2(<2 x float> %v, <2 x float> <float 1.0, float 2.0>)
  %v2e = extractelement <2 x float> %v2, i32 0
  %v2i = fptosi float %v2e to i32
  %v4 = call <4 x i32> @pa_vec4(<4 x i32> <i32 1, i32 2, i32 3, i32 4>)
  %v4e = extractelement <4 x i32> %v4, i32 3
  %v3in = load <3 x half>, ptr %g
  %v3 = call <3 x half> @pa_vec3h(<3 x half> %v3in)
  %v3e = extractelement <3 x half> %v3, i32 2
  %v3i = fptosi half %v3e to i32
  %ar = call [4 x i32] @pa_array(i32 %sv, [2 x double] [double 1.0, double 2.0])
  %are = extractvalue [4 x i32] %ar, 3
  %st = call %S @pa_struct_ret(i32 %sv)
  %ste = extractvalue %S %st, 0
  %tmp = alloca %Arr, align 4
  store i32 5, ptr %tmp
  %bv = call i32 @pa_byval(ptr byval(%Arr) align 4 %tmp, ptr byval(%S) align 16 %s)
  call void @pa_void()
  %va = call i32 (i32, ...) @pa_sum(i32 2, i32 %sv, double %d)
  %ve = call i32 (ptr, ...) @pa_ext_vararg(ptr %g, i32 1, float %f, i64 %l)
  %es = call %S @pa_ext_struct(<4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, ptr byval(%Arr) align 8 %tmp)
  %ese = extractvalue %S %es, 0
  %s1 = add i32 %ai, %wi
  %s2 = add i32 %s1, %hfi
  %s3 = add i32 %s2, %v2i
  %s4 = add i32 %s3, %v4e
  %s5 = add i32 %s4, %v3i
  %s6 = add i32 %s5, %are
  %s7 = add i32 %s6, %ste
  %s8 = add i32 %s7, %bv
  %s9 = add i32 %s8, %va
  %s10 = add i32 %s9, %ve
  %s11 = add i32 %s10, %ese
  store i32 %s11, ptr addrspace(1) %out
  ret void
}
