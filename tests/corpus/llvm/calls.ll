; Calls as LLVM's NVPTX back end writes them: indirect calls through loaded function pointers (one
; `.callprototype` per call site, with scalar, vector, aggregate and void signatures), call tables in
; global and constant memory, tail-position calls, and .noreturn functions and declarations.
; LLC: sm75 -mcpu=sm_75 -mattr=+ptx65
; LLC: sm80 -mcpu=sm_80 -mattr=+ptx75
target triple = "nvptx64-nvidia-cuda"

%Pair = type { float, i32 }

@ca_table = addrspace(1) global [4 x ptr] [ptr @ca_add, ptr @ca_sub, ptr @ca_mul, ptr @ca_neg_first], align 8
@ca_ctable = addrspace(4) constant [2 x ptr] [ptr @ca_pair, ptr @ca_pair2], align 8
@ca_vtable = addrspace(1) global { ptr, ptr, i64 } { ptr @ca_void, ptr @ca_vec, i64 2 }, align 8

define i32 @ca_add(i32 %a, i32 %b) noinline {
  %r = add i32 %a, %b
  ret i32 %r
}
define i32 @ca_sub(i32 %a, i32 %b) noinline {
  %r = sub i32 %a, %b
  ret i32 %r
}
define i32 @ca_mul(i32 %a, i32 %b) noinline {
  %r = mul i32 %a, %b
  ret i32 %r
}
define i32 @ca_neg_first(i32 %a, i32 %b) noinline {
  %r = sub i32 0, %a
  ret i32 %r
}
define %Pair @ca_pair(float %x, ptr %p) noinline {
  %i = load i32, ptr %p
  %r0 = insertvalue %Pair undef, float %x, 0
  %r1 = insertvalue %Pair %r0, i32 %i, 1
  ret %Pair %r1
}
define %Pair @ca_pair2(float %x, ptr %p) noinline {
  %r0 = insertvalue %Pair undef, float 0.0, 0
  %r1 = insertvalue %Pair %r0, i32 0, 1
  ret %Pair %r1
}
define void @ca_void() noinline {
  ret void
}
define <4 x float> @ca_vec(<4 x float> %v, double %d) noinline {
  %f = fptrunc double %d to float
  %s = insertelement <4 x float> %v, float %f, i32 0
  ret <4 x float> %s
}

declare void @ca_abort(i32) noreturn
define void @ca_fail(i32 %code) noreturn noinline {
  call void @ca_abort(i32 %code)
  unreachable
}

define ptx_kernel void @ca_kernel(ptr addrspace(1) %out, i32 %i, float %x) {
  %idx = and i32 %i, 3
  %fpp = getelementptr [4 x ptr], ptr addrspace(1) @ca_table, i32 0, i32 %idx
  %fn = load ptr, ptr addrspace(1) %fpp
  %r = call i32 %fn(i32 %i, i32 7)
  %cidx = and i32 %i, 1
  %cpp = getelementptr [2 x ptr], ptr addrspace(4) @ca_ctable, i32 0, i32 %cidx
  %cfn = load ptr, ptr addrspace(4) %cpp
  %tmp = addrspacecast ptr addrspace(1) %out to ptr
  %p = call %Pair %cfn(float %x, ptr %tmp)
  %pi = extractvalue %Pair %p, 1
  %vfn = load ptr, ptr addrspace(1) @ca_vtable
  call void %vfn()
  %vecp = getelementptr { ptr, ptr, i64 }, ptr addrspace(1) @ca_vtable, i32 0, i32 1
  %vecfn = load ptr, ptr addrspace(1) %vecp
  %v = call <4 x float> %vecfn(<4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, double 0.5)
  %ve = extractelement <4 x float> %v, i32 0
  %vi = fptosi float %ve to i32
  %s1 = add i32 %r, %pi
  %s2 = add i32 %s1, %vi
  %bad = icmp slt i32 %s2, 0
  br i1 %bad, label %fail, label %ok
fail:
  call void @ca_fail(i32 %s2)
  unreachable
ok:
  store i32 %s2, ptr addrspace(1) %out
  ret void
}
