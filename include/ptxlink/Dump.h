// ptxlink-dump as a library: describe any GPU binary artifact (our objects and archives, NVIDIA cubins,
// fatbinaries, host ELF files embedding them, PTX text) in text or in versioned JSON (docs/dump.md).
//
// The problem: the dump code lives in the objtools library, but reading PTX text needs the assembler
// and `--abi-diff` needs the ABI checker, both in libraries linked *after* objtools. So those two
// services are passed in (DumpServices); `defaultDumpServices()` below is compiled into the caller
// (the tool's main, the unit tests), which links every library.
#pragma once

#include "ptxlink/Diagnostics.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace ptxlink {

/// Version of the JSON document ptxlink-dump writes (docs/dump.md); bumped on incompatible changes.
constexpr unsigned DumpJsonSchemaVersion = 1;

struct DumpServices {
  /// Assembles PTX text into Object (assembleInto from Assembler.h). Null: PTX input is shown as text only.
  std::function<bool(ObjectFile &Object, llvm::StringRef Text, llvm::StringRef FileName, DiagnosticEngine &Diags)>
      AssemblePtx;
  /// `--abi-diff old new [flags]` (runAbiDiff from AbiDiff.h). Null: the option is rejected.
  std::function<int(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err)> AbiDiff;
};

/// `ptxlink-dump` with argv minus the program name. Returns the exit status (0 ok, 1 if any input
/// was unreadable, truncated or corrupt, or the command line was wrong).
int runDumpTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err,
                const DumpServices &Services);

} // namespace ptxlink

// The services every full build has. Inline so that the references to the assembler and the ABI
// checker are made by the caller's object file (link order: linker, assembler, objtools).
#include "ptxlink/Assembler.h"
#if __has_include("ptxlink/AbiDiff.h")
#include "ptxlink/AbiDiff.h"
#define PTXLINK_DUMP_HAS_ABI_DIFF 1
#endif

namespace ptxlink {

inline DumpServices defaultDumpServices() {
  DumpServices S;
  S.AssemblePtx = [](ObjectFile &Object, llvm::StringRef Text, llvm::StringRef FileName, DiagnosticEngine &Diags) {
    return assembleInto(Object, Text, FileName, Diags);
  };
#ifdef PTXLINK_DUMP_HAS_ABI_DIFF
  S.AbiDiff = [](llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
    return runAbiDiff(Args, Out, Err);
  };
#endif
  return S;
}

/// `ptxlink-dump` with the default services.
inline int runDumpTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  return runDumpTool(Args, Out, Err, defaultDumpServices());
}

} // namespace ptxlink
