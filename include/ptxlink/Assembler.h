// Entry points of the PTX assembler: PTX text in, object model out.
//
// The problem: every tool (ptxlink-as, the linker taking .ptx inputs, ptxlink-ar, ptxlink-dump) needs to
// turn PTX into the object model the same way, in-process, reporting every error with its location.
#pragma once

#include "ptxlink/Diagnostics.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace ptxlink {

// Decisions the lowering makes where the PTX text leaves a choice (tested in AssemblerTest.cpp):
//  * A name is a reference to a module-scope symbol unless a parameter or a local declaration in an
//    enclosing block scope of the body spells the same name (then it is that local), or a label in the
//    same body does. Opcodes (the first word of a statement) are never references.
//  * Names that debug data refers to but that are not module-scope symbols, debug labels or debug section
//    names are looked up among the labels, parameters and local variables of the function bodies (DWARF
//    locations name `__local_depot0` or `foo_param_0`); the first body that defines one owns it: it becomes
//    a Label symbol in that function's section, with NameRef relocations on every occurrence in that body.
//  * `.calltargets` lists have no syntactic link to a `.callprototype`; every prototype of a body gets the
//    functions named by all `.calltargets` lists of the same body as its CallTargets.
//  * A function declared and later defined gets one FunctionAbi (the definition's); the two must agree.
//  * `.alias A, B` needs A declared as a bodiless function and B defined here, not weak, not a kernel, not an
//    alias, with the same prototype; A keeps its declaration's linkage (.visible: Global).
//  * Without `.address_size` the address size is 32 (the PTX default); AddressSizeGiven stays false.
//  * PTX 1.x/2.x prototypes that end without `;` (nvopencc, OptiX) end at the next module-scope directive.

/// Parses `Text` (the contents of `FileName`) and appends one variant to `Object`. Every error is
/// reported to `Diags` as `file:line:col: error: ...` with the source line and a caret; returns false if
/// any was reported (the variant is then not appended). String data is copied into Object's arena
/// unless `TextOutlivesObject` is set, in which case section contents may point into `Text`.
/// `Source`, when given, is the buffer whose contents `Text` is (a whole input file, which must outlive
/// the object): if it is a read-only file mapping of at least LargeTextBytes, the lowering gives its pages
/// back to the kernel behind itself and copies the symbols' names instead of pointing into it, so that
/// later passes do not touch the text again (InputFiles.h's releaseMappedPages).
bool assembleInto(ObjectFile &Object, llvm::StringRef Text, llvm::StringRef FileName, DiagnosticEngine &Diags,
                  bool TextOutlivesObject = false, const llvm::MemoryBuffer *Source = nullptr);

/// Assembles one or more PTX files into one object. Several files make a fat object: the same module
/// for different targets (checked: they must define the same external symbols). Returns null on error.
std::unique_ptr<ObjectFile> assembleFiles(llvm::ArrayRef<std::string> Paths, DiagnosticEngine &Diags);

/// `ptxlink-as` as a library call: argv without the program name. Returns the exit status.
int runAssemblerTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace ptxlink
