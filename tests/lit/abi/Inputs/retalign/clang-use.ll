target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
%struct.double2 = type { double, double }
declare %struct.double2 @_Z4makev()
define void @_Z1kPd(ptr %p) {
  %r = call %struct.double2 @_Z4makev()
  %a = extractvalue %struct.double2 %r, 0
  store double %a, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @_Z1kPd, !"kernel", i32 1}
