// `ptxlink-ar`: building static device libraries (GNU ar archives with a symbol index) from ptxlink
// objects, plain or fat, and from PTX files (assembled on the way in). docs/archives.md describes the
// command line and the guarantees (deterministic bytes, atomic update, errors leave the archive untouched).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ptxlink {

/// Why `Bytes` cannot be an archive member, or "" if it is a ptxlink object (plain or fat).
std::string classifyNonMember(llvm::StringRef Bytes);

/// `ptxlink-ar` as a library call: argv without the program name. Returns the exit status.
int runArchiverTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace ptxlink
