// Fuzz target for the PTX assembler, the first front door: any bytes as a PTX module. A module that
// assembles is also written as an object, read back, and printed as PTX, so the writer, the reader and
// the printer see every shape of module the parser lets through. Errors are expected; a crash, a hang,
// a sanitizer report, or an object the reader refuses is a bug.
#include "ptxlink/Assembler.h"
#include "ptxlink/Diagnostics.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace ptxlink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::raw_null_ostream Null;
  DiagnosticEngine Diags(Null, "ptxlink-as");
  ObjectFile Object;
  if (!assembleInto(Object, Text, "fuzz.ptx", Diags, /*TextOutlivesObject=*/true) || Diags.hasErrors())
    return 0;
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  if (llvm::Error E = writeObject(Object, OS)) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  std::string Printed;
  llvm::raw_string_ostream PS(Printed);
  for (const ModuleVariant &V : Object.Variants)
    printModule(V, PS);
  auto Back = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "fuzz.o"));
  if (!Back) {
    // The reader refusing what the writer wrote is a bug, not an input problem.
    llvm::errs() << "object written for an assembled module is unreadable: " << llvm::toString(Back.takeError())
                 << "\n";
    abort();
  }
  return 0;
}
