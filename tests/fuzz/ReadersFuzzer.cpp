// A libFuzzer target for every reader of untrusted bytes in ptxlink's NVIDIA format support: the
// fatbinary container (with decompression), cubins, host ELF embedding. The readers work from memory and
// report problems through callbacks, so the fuzzer drives them directly; any crash, hang, leak or
// allocation beyond libFuzzer's -rss_limit_mb/-malloc_limit_mb is a bug.
//
// Built by tests/fuzz/CMakeLists.txt: as `ptxlink-fuzz-readers` in the libFuzzer configuration that
// scripts/fuzz.sh builds, and always as `ptxlink-fuzz-readers-replay` (ReplayMain.cpp), which runs the
// target over files named on the command line (to replay a crash or a corpus without libFuzzer).
#include "ptxlink/Cubin.h"
#include "ptxlink/Fatbin.h"
#include "ptxlink/HostEmbed.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstddef>
#include <cstdint>

using namespace ptxlink;

namespace {

void readCubinBytes(llvm::StringRef Bytes) {
  auto Ignore = [](uint64_t, const llvm::Twine &) {};
  if (auto Info = readCubin(Bytes, Ignore)) {
    // Touch the decoded names so that the sanitizers see every string the reader built.
    size_t N = 0;
    for (const CubinFunction &F : Info->Functions)
      N += F.Name.size() + F.Params.size();
    for (const CubinReloc &R : Info->Relocs)
      N += cudaRelocName(R.Type).size();
    for (const CubinAttribute &A : Info->Attributes)
      N += cudaAttributeName(A.Id).size() + A.Payload.size();
    (void)N;
  }
}

void readFatbinBytes(llvm::StringRef Bytes, unsigned Depth) {
  auto Ignore = [](uint64_t, const llvm::Twine &) {};
  for (const FatbinImage &I : readFatbin(Bytes, Ignore, /*Decompress=*/true)) {
    (void)payloadTrueSize(I);
    (void)fatbinArchName(I);
    if (I.Kind == FatbinKind::Elf && Depth < 2)
      readCubinBytes(llvm::StringRef(I.Payload).take_front(payloadTrueSize(I)));
    if (I.Kind == FatbinKind::Ptx) {
      auto Image = makePtxImage(I.Payload);
      if (!Image)
        llvm::consumeError(Image.takeError());
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  auto Ignore = [](uint64_t, const llvm::Twine &) {};
  readFatbinBytes(Bytes, 0);
  readCubinBytes(Bytes);
  if (isHostElf(Bytes)) {
    HostEmbedInfo Info = readHostEmbedding(Bytes, Ignore);
    for (const EmbeddedFatbin &F : Info.Fatbins)
      readFatbinBytes(F.Bytes, 1);
  }
  auto Image = makeCubinImage(Bytes);
  if (!Image)
    llvm::consumeError(Image.takeError());
  return 0;
}
