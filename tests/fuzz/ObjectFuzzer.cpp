// Fuzz target for the reader of ptxlink's own relocatable objects (docs/object-format.md): any bytes as
// an object. What it accepts is printed as PTX and written again, so every field the reader lets
// through is exercised by the code that trusts it.
#include "ptxlink/ObjectFormat.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

using namespace ptxlink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  // A copy the object can adopt (its sections point into the buffer).
  auto Object = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "fuzz.o"));
  if (!Object) {
    llvm::consumeError(Object.takeError());
    return 0;
  }
  llvm::raw_null_ostream Null;
  for (const ModuleVariant &V : (*Object)->Variants)
    printModule(V, Null);
  if (llvm::Error E = writeObject(**Object, Null))
    llvm::consumeError(std::move(E));
  return 0;
}
