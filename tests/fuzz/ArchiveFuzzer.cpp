// Fuzz target for the archive reader (GNU/BSD `ar` with our symbol index, docs/archives.md): any bytes
// as a static library. Every member's header, name and bytes are read, and the symbol index is asked
// about a name, as a link with --whole-archive and a lazy link would.
#include "ptxlink/Archive.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>

using namespace ptxlink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  if (!isArchive(Bytes))
    return 0;
  auto Library = StaticLibrary::open(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "fuzz.a"));
  if (!Library) {
    llvm::consumeError(Library.takeError());
    return 0;
  }
  const StaticLibrary &L = **Library;
  (void)L.memberDefining("kernel");
  if (llvm::Error E = L.readAllMembers()) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  size_t Total = 0;
  for (size_t M = 0, N = L.memberCount(); M < N; ++M) {
    Total += L.memberName(M).size();
    auto Member = L.memberBuffer(M);
    if (!Member) {
      llvm::consumeError(Member.takeError());
      continue;
    }
    Total += Member->getBufferSize();
  }
  (void)Total;
  return 0;
}
