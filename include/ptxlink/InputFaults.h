// A clear error, not a crash, when an input file shrinks under a running tool.
//
// The problem: the tools read large inputs through read-only file mappings (and give pages back to the
// kernel behind their walks, to read them again later: InputFiles.h). When another process truncates or
// rewrites such a file meanwhile (a parallel `make` regenerating an input, an editor saving in place), the
// next touch of a page past the new end raises SIGBUS: the process died with "Bus error" (rc 135), and
// ptxlink, whose InitLLVM prints a stack trace on faults, with LLVM's "PLEASE submit a bug report" banner.
// That is no bug of anyone's, and the user needs to know which kind of failure it was and that nothing was
// written.
#pragma once

namespace ptxlink {

/// Call once in main(), after llvm::InitLLVM if the tool uses it. From then on a SIGBUS raised by a
/// mapping whose file is gone past the faulting page (si_code BUS_ADRERR) ends the process with
/// "<Tool>: error: an input file was truncated or replaced while <Tool> was reading it; stopped (no output
/// written)", status 1, after removing the files registered with llvm::sys::RemoveFileOnSignal (the
/// atomic writer's temporary). Any other SIGBUS goes to the handler that was there before (LLVM's).
/// Tool must outlive the process (a string literal). Does nothing where sigaction is not available.
void reportTruncatedInputs(const char *Tool);

} // namespace ptxlink
