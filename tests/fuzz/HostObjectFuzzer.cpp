// Fuzz target for the reader of nvcc host objects (HostInputs.cpp): any bytes as an x86-64 relocatable
// object whose .nv_fatbin holds relocatable device code, or as an `nvcc -lib` archive of them. The PTX
// images found are assembled as fat-object variants, as a link with host inputs does, so the fatbinary
// reader, the decompressors and the assembler all see what a hostile host object can carry.
#include "ptxlink/Archive.h"
#include "LinkContext.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>

using namespace ptxlink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  DecompressionBudget Budget; // as a link of this one input has
  Budget.addInput(Size);
  if (isX86HostObject(Bytes)) {
    std::optional<HostOrigin> Host;
    std::vector<Diagnostic> Problems;
    auto Object = hostObjectFromBuffer(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "fuzz.o"), "fuzz.o", Host,
                                       Problems, Budget, /*Arches=*/{});
    (void)Object;
  }
  if (isArchive(Bytes)) {
    auto Buffer = llvm::MemoryBuffer::getMemBufferCopy(Bytes, "fuzz.a");
    if (!isHostObjectLibrary(Buffer->getMemBufferRef()))
      return 0;
    std::vector<size_t> HostReachable;
    auto Library = openHostObjectLibrary(std::move(Buffer), HostReachable, Budget);
    if (!Library) {
      llvm::consumeError(Library.takeError());
      return 0;
    }
    (void)(*Library)->memberDefining("kernel");
  }
  return 0;
}
