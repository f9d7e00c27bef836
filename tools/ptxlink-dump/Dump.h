// ptxlink-dump as a library call: describe any GPU binary artifact (our objects and archives, NVIDIA
// cubins, fatbinaries, host ELF files embedding them, PTX text) in text or in versioned JSON
// (docs/dump.md).
//
// The dump tool sits in the tools layer, above every library: reading PTX text assembles it (the
// assembler) and `--abi-diff` runs the ABI checker (the linker), so both are called directly and no
// library below has to reach up for them (docs/architecture.md). It is a library call rather than only
// a main() so that the unit tests run the same code in-process.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ptxlink {

/// Version of the JSON document ptxlink-dump writes (docs/dump.md); bumped on incompatible changes.
constexpr unsigned DumpJsonSchemaVersion = 2;

/// `ptxlink-dump` with argv minus the program name. Returns the exit status (0 ok, 1 if any input
/// was unreadable, truncated or corrupt, or the command line was wrong).
int runDumpTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace ptxlink
