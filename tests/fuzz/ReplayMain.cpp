// The main() of every `*-replay` fuzz binary: runs the fuzz target (LLVMFuzzerTestOneInput) once over
// each file named on the command line, or over every file of a directory named there. It needs no
// libFuzzer, so any compiler builds it, and the ordinary test run replays the crashers kept in
// tests/fuzz/regressions/ and the seeds on every build (ctest fuzz-replay).
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

int main(int argc, char **argv) {
  std::vector<std::string> Files;
  for (int I = 1; I < argc; ++I) {
    if (!llvm::sys::fs::is_directory(argv[I])) {
      Files.push_back(argv[I]);
      continue;
    }
    std::error_code EC;
    std::vector<std::string> InDir;
    for (llvm::sys::fs::directory_iterator It(argv[I], EC), End; It != End && !EC; It.increment(EC))
      if (llvm::sys::fs::is_regular_file(It->path()))
        InDir.push_back(It->path());
    std::sort(InDir.begin(), InDir.end()); // a stable order: a failure names the same file every time
    Files.insert(Files.end(), InDir.begin(), InDir.end());
  }
  for (const std::string &F : Files) {
    auto Buffer = llvm::MemoryBuffer::getFile(F, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer) {
      llvm::errs() << F << ": " << Buffer.getError().message() << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>((*Buffer)->getBufferStart()),
                           (*Buffer)->getBufferSize());
  }
  llvm::outs() << "replayed " << Files.size() << " inputs\n";
  return 0;
}
