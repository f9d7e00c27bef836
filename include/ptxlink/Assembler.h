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

/// Parses `Text` (the contents of `FileName`) and appends one variant to `Object`. Every error is
/// reported to `Diags` as `file:line:col: error: ...` with the source line and a caret; returns false if
/// any was reported (the variant is then not appended). String data is copied into Object's arena
/// unless `TextOutlivesObject` is set, in which case section contents may point into `Text`.
bool assembleInto(ObjectFile &Object, llvm::StringRef Text, llvm::StringRef FileName, DiagnosticEngine &Diags,
                  bool TextOutlivesObject = false);

/// Assembles one or more PTX files into one object. Several files make a fat object: the same module
/// for different targets (checked: they must define the same external symbols). Returns null on error.
std::unique_ptr<ObjectFile> assembleFiles(llvm::ArrayRef<std::string> Paths, DiagnosticEngine &Diags);

/// `ptxlink-as` as a library call: argv without the program name. Returns the exit status.
int runAssemblerTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace ptxlink
