; Kernel tuning directives from nvvm.annotations (.maxntid, .reqntid, .minnctapersm, .maxnreg,
; .maxclusterrank), kernels marked by annotation instead of the ptx_kernel calling convention,
; texture/surface/sampler references (.global .texref / .surfref / .samplerref, and as kernel
; parameters), and loops with unrolling disabled (`.pragma "nounroll";`).
; LLC: sm80 -mcpu=sm_80 -mattr=+ptx70
; LLC: sm90 -mcpu=sm_90 -mattr=+ptx80
target triple = "nvptx64-nvidia-cuda"

@an_tex = addrspace(1) global i64 0, align 8
@an_surf = addrspace(1) global i64 0, align 8

define void @an_maxntid(ptr addrspace(1) %p) {
  store i32 1, ptr addrspace(1) %p
  ret void
}
define void @an_reqntid(ptr addrspace(1) %p) {
  store i32 2, ptr addrspace(1) %p
  ret void
}
define void @an_tuned(ptr addrspace(1) %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %i
  store i32 %i, ptr addrspace(1) %q
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop, !llvm.loop !20
exit:
  ret void
}
define void @an_cluster(ptr addrspace(1) %p) {
  store i32 3, ptr addrspace(1) %p
  ret void
}

declare i64 @llvm.nvvm.texsurf.handle.internal.p1(ptr addrspace(1))
declare { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.s32(i64, i32)
declare void @llvm.nvvm.sust.b.1d.i32.trap(i64, i32, i32)

define void @an_texture(ptr addrspace(1) %out, i64 %texparam, i32 %x) {
  %h = call i64 @llvm.nvvm.texsurf.handle.internal.p1(ptr addrspace(1) @an_tex)
  %t = call { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.s32(i64 %h, i32 %x)
  %t0 = extractvalue { float, float, float, float } %t, 0
  %u = call { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.s32(i64 %texparam, i32 %x)
  %u0 = extractvalue { float, float, float, float } %u, 1
  %s = fadd float %t0, %u0
  %si = bitcast float %s to i32
  %sh = call i64 @llvm.nvvm.texsurf.handle.internal.p1(ptr addrspace(1) @an_surf)
  call void @llvm.nvvm.sust.b.1d.i32.trap(i64 %sh, i32 %x, i32 %si)
  store float %s, ptr addrspace(1) %out
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7, !8, !9, !10, !11, !12, !13, !14, !15}
!0 = !{ptr @an_maxntid, !"kernel", i32 1}
!1 = !{ptr @an_maxntid, !"maxntidx", i32 256}
!2 = !{ptr @an_maxntid, !"maxntidy", i32 2}
!3 = !{ptr @an_reqntid, !"kernel", i32 1}
!4 = !{ptr @an_reqntid, !"reqntidx", i32 32}
!5 = !{ptr @an_reqntid, !"reqntidy", i32 4}
!6 = !{ptr @an_reqntid, !"reqntidz", i32 2}
!7 = !{ptr @an_tuned, !"kernel", i32 1}
!8 = !{ptr @an_tuned, !"maxntidx", i32 128}
!9 = !{ptr @an_tuned, !"minctasm", i32 3}
!10 = !{ptr @an_tuned, !"maxnreg", i32 48}
!11 = !{ptr @an_cluster, !"kernel", i32 1}
!12 = !{ptr @an_cluster, !"maxclusterrank", i32 8}
!13 = !{ptr @an_texture, !"kernel", i32 1}
!14 = !{ptr addrspace(1) @an_tex, !"texture", i32 1}
!15 = !{ptr addrspace(1) @an_surf, !"surface", i32 1}
!20 = distinct !{!20, !21}
!21 = !{!"llvm.loop.unroll.disable"}
