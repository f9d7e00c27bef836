; Full debug information through LLVM's NVPTX back end at -O0 and -O2: `.target sm_XX, debug`,
; .file / .loc for two source files, and DWARF in `.section .debug_abbrev`, `.debug_info` and
; `.debug_loc {}` (label+offset and label-difference operands, references to .debug_line and other
; sections) for a kernel, device functions, an inlined location, a global and locals. (LLVM 19 does not
; write `.loc ..., function_name ..., inlined_at ...`; nvcc -lineinfo in cuda/textures.cu does.)
; LLC: O0sm80 -O0 -mcpu=sm_80 -mattr=+ptx70
; LLC: O2sm86 -O2 -mcpu=sm_86 -mattr=+ptx74
; LLC: O0sm90 -O0 -mcpu=sm_90 -mattr=+ptx80
target triple = "nvptx64-nvidia-cuda"

%struct.Point = type { float, float }

@db_counter = addrspace(1) global i32 0, align 4, !dbg !40

define float @db_length(ptr %p) #0 !dbg !10 {
entry:
  %p.addr = alloca ptr, align 8
  store ptr %p, ptr %p.addr, align 8
  call void @llvm.dbg.declare(metadata ptr %p.addr, metadata !17, metadata !DIExpression()), !dbg !18
  %x = load float, ptr %p, align 4, !dbg !19
  %yp = getelementptr inbounds %struct.Point, ptr %p, i32 0, i32 1, !dbg !19
  %y = load float, ptr %yp, align 4, !dbg !19
  %xx = fmul float %x, %x, !dbg !19
  %yy = fmul float %y, %y, !dbg !20
  %s = fadd float %xx, %yy, !dbg !20
  ret float %s, !dbg !21
}

define internal float @db_scale(float %v) #1 !dbg !50 {
  %r = fmul float %v, 2.0, !dbg !52
  ret float %r, !dbg !52
}

define ptx_kernel void @db_kernel(ptr addrspace(1) %out, i32 %n) #0 !dbg !30 {
entry:
  %pt = alloca %struct.Point, align 4
  call void @llvm.dbg.declare(metadata ptr %pt, metadata !33, metadata !DIExpression()), !dbg !34
  %f = sitofp i32 %n to float, !dbg !35
  store float %f, ptr %pt, align 4, !dbg !35
  %yp = getelementptr inbounds %struct.Point, ptr %pt, i32 0, i32 1, !dbg !35
  store float 1.0, ptr %yp, align 4, !dbg !35
  %len = call float @db_length(ptr %pt), !dbg !36
  %sc0 = call float @db_scale(float %len), !dbg !37
  %sc = fmul float %sc0, 2.0, !dbg !60
  %c = load i32, ptr addrspace(1) @db_counter, align 4, !dbg !37
  %c1 = add i32 %c, 1, !dbg !37
  store i32 %c1, ptr addrspace(1) @db_counter, align 4, !dbg !37
  store float %sc, ptr addrspace(1) %out, align 4, !dbg !38
  ret void, !dbg !39
}

declare void @llvm.dbg.declare(metadata, metadata, metadata)

attributes #0 = { noinline }
attributes #1 = { alwaysinline }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!llvm.ident = !{!4}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "ptxlink test corpus (hand-written IR)", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, globals: !44, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "debug.cu", directory: "/src/ptxlink/tests/corpus")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{!"ptxlink corpus"}
!5 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!6 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!7 = !DICompositeType(tag: DW_TAG_structure_type, name: "Point", file: !8, line: 3, size: 64, elements: !22, identifier: "_ZTS5Point")
!8 = !DIFile(filename: "point.h", directory: "/src/ptxlink/tests/corpus")
!9 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !7, size: 64)
!10 = distinct !DISubprogram(name: "db_length", linkageName: "db_length", scope: !8, file: !8, line: 7, type: !11, scopeLine: 7, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DISubroutineType(types: !12)
!12 = !{!5, !9}
!17 = !DILocalVariable(name: "p", arg: 1, scope: !10, file: !8, line: 7, type: !9)
!18 = !DILocation(line: 7, column: 30, scope: !10)
!19 = !DILocation(line: 8, column: 10, scope: !10)
!20 = !DILocation(line: 8, column: 20, scope: !10)
!21 = !DILocation(line: 8, column: 3, scope: !10)
!22 = !{!23, !24}
!23 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !7, file: !8, line: 3, baseType: !5, size: 32)
!24 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !7, file: !8, line: 3, baseType: !5, size: 32, offset: 32)
!30 = distinct !DISubprogram(name: "db_kernel", linkageName: "db_kernel", scope: !1, file: !1, line: 12, type: !31, scopeLine: 12, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0)
!31 = !DISubroutineType(types: !32)
!32 = !{null, !6}
!33 = !DILocalVariable(name: "pt", scope: !30, file: !1, line: 13, type: !7)
!34 = !DILocation(line: 13, column: 9, scope: !30)
!35 = !DILocation(line: 13, column: 14, scope: !30)
!36 = !DILocation(line: 14, column: 15, scope: !30)
!37 = !DILocation(line: 15, column: 5, scope: !30)
!38 = !DILocation(line: 16, column: 10, scope: !30)
!39 = !DILocation(line: 17, column: 1, scope: !30)
!40 = !DIGlobalVariableExpression(var: !41, expr: !DIExpression())
!41 = distinct !DIGlobalVariable(name: "db_counter", scope: !0, file: !1, line: 10, type: !6, isLocal: false, isDefinition: true)
!44 = !{!40}
!50 = distinct !DISubprogram(name: "db_scale", scope: !1, file: !1, line: 5, type: !51, scopeLine: 5, spFlags: DISPFlagDefinition | DISPFlagLocalToUnit, unit: !0)
!51 = !DISubroutineType(types: !53)
!52 = !DILocation(line: 5, column: 40, scope: !50)
!53 = !{!5, !5}
!60 = !DILocation(line: 5, column: 40, scope: !50, inlinedAt: !61)
!61 = distinct !DILocation(line: 15, column: 12, scope: !30)
