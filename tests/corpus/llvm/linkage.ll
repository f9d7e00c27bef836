; Linkage forms of LLVM's NVPTX back end: .alias (`@a = alias`), .weak (weak, weak_odr, linkonce_odr,
; linkonce), .common (common globals, PTX >= 5.0), .extern functions and variables (incl. unsized
; shared and global arrays), internal (no directive) and hidden symbols, and the 32-bit form.
; LLC: sm75 -mcpu=sm_75 -mattr=+ptx64
; LLC: sm80 -mcpu=sm_80 -mattr=+ptx70
; LLC: sm90a -mcpu=sm_90a -mattr=+ptx80
; LLC-NOPTXAS: nvptx32 -march=nvptx -mcpu=sm_75 -mattr=+ptx70
target triple = "nvptx64-nvidia-cuda"

@lk_common_i = common addrspace(1) global i32 0, align 4
@lk_common_arr = common addrspace(1) global [64 x i8] zeroinitializer, align 16
@lk_weak_var = weak addrspace(1) global i32 7, align 4
@lk_weakodr_var = weak_odr addrspace(1) global [2 x float] [float 1.0, float 2.0], align 8
@lk_linkonce_var = linkonce_odr addrspace(1) global i64 99, align 8
@lk_internal_var = internal addrspace(1) global i32 3, align 4
@lk_hidden_var = hidden addrspace(1) global i16 5, align 2
@lk_extern_var = external addrspace(1) global i32, align 4
@lk_extern_arr = external addrspace(1) global [0 x float], align 16
@lk_extern_const = external addrspace(4) global [4 x double], align 8
@lk_extern_shared = external addrspace(3) global [0 x i8], align 16
@lk_shared = internal addrspace(3) global [128 x float] undef, align 4

declare i32 @lk_extern_fn(i32, float)
declare void @lk_extern_void()
declare { i32, i32 } @lk_extern_pair(ptr)

define i32 @lk_base(i32 %a) {
  %r = mul i32 %a, 3
  ret i32 %r
}
@lk_alias = alias i32 (i32), ptr @lk_base
@lk_alias2 = alias i32 (i32), ptr @lk_alias

define weak i32 @lk_weak(i32 %a) {
  %r = add i32 %a, 1
  ret i32 %r
}
define weak_odr i32 @lk_weak_odr(i32 %a) {
  %r = add i32 %a, 2
  ret i32 %r
}
define linkonce_odr i32 @lk_linkonce_odr(i32 %a) noinline {
  %r = add i32 %a, 3
  ret i32 %r
}
define internal i32 @lk_internal(i32 %a) noinline {
  %r = xor i32 %a, 5
  ret i32 %r
}
define hidden i32 @lk_hidden(i32 %a) noinline {
  %r = sub i32 %a, 7
  ret i32 %r
}

define ptx_kernel void @lk_kernel(ptr addrspace(1) %out, i32 %i) {
  %a = call i32 @lk_alias(i32 %i)
  %b = call i32 @lk_alias2(i32 %a)
  %c = call i32 @lk_weak(i32 %b)
  %d = call i32 @lk_weak_odr(i32 %c)
  %e = call i32 @lk_linkonce_odr(i32 %d)
  %f = call i32 @lk_internal(i32 %e)
  %g = call i32 @lk_hidden(i32 %f)
  %h = call i32 @lk_extern_fn(i32 %g, float 1.5)
  call void @lk_extern_void()
  %p = call { i32, i32 } @lk_extern_pair(ptr addrspacecast (ptr addrspace(1) @lk_common_arr to ptr))
  %p0 = extractvalue { i32, i32 } %p, 0
  %v1 = load i32, ptr addrspace(1) @lk_extern_var
  %v2 = load i32, ptr addrspace(1) @lk_common_i
  %v3 = load i32, ptr addrspace(1) @lk_weak_var
  %fp = getelementptr [0 x float], ptr addrspace(1) @lk_extern_arr, i32 0, i32 %i
  %v4 = load float, ptr addrspace(1) %fp
  %v4i = fptosi float %v4 to i32
  %dp = getelementptr [4 x double], ptr addrspace(4) @lk_extern_const, i32 0, i32 %i
  %v5 = load double, ptr addrspace(4) %dp
  %v5i = fptosi double %v5 to i32
  %sp = getelementptr [0 x i8], ptr addrspace(3) @lk_extern_shared, i32 0, i32 %i
  %v6 = load i8, ptr addrspace(3) %sp
  %v6i = zext i8 %v6 to i32
  %tp = getelementptr [128 x float], ptr addrspace(3) @lk_shared, i32 0, i32 %i
  store float 1.0, ptr addrspace(3) %tp
  %v7 = load i64, ptr addrspace(1) @lk_linkonce_var
  %v7i = trunc i64 %v7 to i32
  %v8 = load i32, ptr addrspace(1) @lk_internal_var
  %v9 = load i16, ptr addrspace(1) @lk_hidden_var
  %v9i = sext i16 %v9 to i32
  %wp = getelementptr [2 x float], ptr addrspace(1) @lk_weakodr_var, i32 0, i32 %i
  %v10 = load float, ptr addrspace(1) %wp
  %v10i = fptosi float %v10 to i32
  %s1 = add i32 %h, %p0
  %s2 = add i32 %s1, %v1
  %s3 = add i32 %s2, %v2
  %s4 = add i32 %s3, %v3
  %s5 = add i32 %s4, %v4i
  %s6 = add i32 %s5, %v5i
  %s7 = add i32 %s6, %v6i
  %s8 = add i32 %s7, %v7i
  %s9 = add i32 %s8, %v8
  %s10 = add i32 %s9, %v9i
  %s11 = add i32 %s10, %v10i
  store i32 %s11, ptr addrspace(1) %out
  ret void
}
