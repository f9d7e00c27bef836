; The OpenCL ("nvcl") driver interface of LLVM's NVPTX back end: kernel pointer parameters carry their
; state space and alignment (`.param .u64 .ptr .global .align 8 p`), and functions get no .visible.
; LLC: sm75 -mtriple=nvptx64-nvidia-nvcl -mcpu=sm_75 -mattr=+ptx63
; LLC: sm80 -mtriple=nvptx64-nvidia-nvcl -mcpu=sm_80 -mattr=+ptx72
target triple = "nvptx64-nvidia-nvcl"

define i32 @cl_helper(i32 %a, i32 %b) noinline {
  %r = mul i32 %a, %b
  ret i32 %r
}

define ptx_kernel void @cl_spaces(ptr addrspace(1) align 8 %gl, ptr addrspace(3) %sh, ptr addrspace(4) %co, ptr %gen) {
  %a = load i32, ptr addrspace(3) %sh
  %b = load i32, ptr addrspace(4) %co
  %c = call i32 @cl_helper(i32 %a, i32 %b)
  %d = load i32, ptr %gen
  %e = add i32 %c, %d
  store i32 %e, ptr addrspace(1) %gl
  ret void
}
