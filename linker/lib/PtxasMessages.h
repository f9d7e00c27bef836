// Running ptxas over a linked module and reporting what it says at the inputs' file:line:col.
//
// The problem: ptxas only ever sees the printed, linked module (a temporary file), so its messages name
// "/tmp/ptxlink-1234.ptx, line 812", which the user cannot open and which is gone by the time they read
// it. The printer records where each input section's text went (PrintedLayout), so each message can be
// moved back onto the line of the input that the printed line came from. Used by --verify, and by
// anything else that compiles a printed module (--sass).
#pragma once

#include "ptxlink/Diagnostics.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// ptxas on PATH, else in $CUDA_HOME/bin.
std::optional<std::string> findPtxas();

/// What one ptxas run produced.
struct PtxasResult {
  int ExitCode = 0;
  std::string Messages; // its standard output and error, together
};

/// Runs `ptxas <Args> -o <tmp> <tmp.ptx>` over Ptx. Errors only for failures to run it at all (temporary
/// files, a missing program); ptxas's own failure is a non-zero ExitCode.
llvm::Expected<PtxasResult> runPtxas(llvm::StringRef Ptxas, llvm::StringRef Ptx, llvm::ArrayRef<std::string> Args);

/// Turns ptxas's messages about Printed (printed from Module with Layout) into diagnostics at the
/// inputs' file:line:col (the column of the token ptxas quotes, else the line's first non-blank). A
/// message about a line the printer made up names the linked module's section instead, with the
/// printed line shown. Arch, unless empty, goes into each message ("ptxas sm_90: ..."). The summary line ptxas ends
/// with ("Ptx assembly aborted due to errors") is dropped: the errors before it say it all.
std::vector<Diagnostic> mapPtxasMessages(llvm::StringRef Messages, llvm::StringRef Printed, const ModuleVariant &Module,
                                         const PrintedLayout &Layout, llvm::StringRef Arch);

} // namespace ptxlink
