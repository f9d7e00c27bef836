// Fuzz target for the linker, the second front door, through its in-memory entry point (linkObjects):
// the input is split at "\n//--\n" into up to three PTX modules, each assembled on its own, and the
// modules that assemble are linked for sm_90 into PTX (no file is read or written, so a run takes
// microseconds where the file-based harness managed 30-60 a second). Symbol resolution, dead-code
// removal, DWARF merging and printing all see what the parser lets through.
#include "ptxlink/Assembler.h"
#include "ptxlink/Diagnostics.h"
#include "LinkContext.h"
#include "ptxlink/Linker.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

using namespace ptxlink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  llvm::raw_null_ostream Null;
  DiagnosticEngine Diags(Null, "ptxlink");
  std::vector<InputFile> Objects;
  for (unsigned I = 0; I < 3 && !Input.empty(); ++I) {
    auto [Module, Rest] = Input.split("\n//--\n");
    Input = Rest;
    auto Object = std::make_unique<ObjectFile>();
    DiagnosticEngine ModuleDiags(Null, "ptxlink-as");
    if (assembleInto(*Object, Module, "m" + std::to_string(I) + ".ptx", ModuleDiags, /*TextOutlivesObject=*/true) &&
        !ModuleDiags.hasErrors())
      Objects.push_back({"m" + std::to_string(I) + ".ptx", std::move(Object)});
  }
  if (Objects.empty())
    return 0;
  LinkOptions Options;
  Options.Arches = {"sm_90"};
  Options.Emit = EmitKind::Ptx;
  Options.Threads = 1;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  (void)linkObjects(Options, std::move(Objects), Diags, OS);
  return 0;
}
