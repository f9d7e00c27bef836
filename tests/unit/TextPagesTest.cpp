// Giving input text back to the kernel (InputTextPages.h in the linker): the pieces under it. A range
// given back through PageDiscarder leaves the process's resident memory and reads back unchanged, and
// only a file mapping's are given back (a heap buffer's would read back as zeros);
// GatheringFdStream gives lent text back only after writing it; TextReleaser reports one range per run of
// contiguous text.
#include "ptxlink/GatherStream.h"
#include "ptxlink/InputFiles.h"
#include "ptxlink/ObjectModel.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/ProcessMemory.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ptxlink;
using namespace llvm;

namespace {

/// A temporary file of Size bytes of a known pattern.
std::string patternFile(size_t Size) {
  SmallString<128> Path;
  int FD;
  EXPECT_FALSE(sys::fs::createTemporaryFile("text-pages", "bin", FD, Path));
  ::close(FD);
  std::ofstream Out(Path.str().str(), std::ios::binary);
  for (size_t I = 0; I < Size; ++I)
    Out.put(char('a' + I % 23));
  return Path.str().str();
}

} // namespace

TEST(TextPagesTest, OnlyFileMappingsAreGivenBack) {
  // A heap buffer's pages given back would read back as zeros: ObjectFile::releaseSourcePages must leave
  // anything but a file mapping alone, and a mapping's pages read back unchanged.
  const size_t Page = size_t(sysconf(_SC_PAGESIZE)), Size = 300 * Page;
  std::string Path = patternFile(Size);
  auto Mapped = mapInputFile(Path); // a file mapping (the file is above LLVM's read-instead threshold)
  ASSERT_TRUE(bool(Mapped));
  auto Heap = MemoryBuffer::getMemBufferCopy((*Mapped)->getBuffer(), "heap copy");
  ASSERT_NE(Heap->getBufferKind(), MemoryBuffer::MemoryBuffer_MMap);
  const char *FileBase = (*Mapped)->getBufferStart(), *HeapBase = Heap->getBufferStart();
  ObjectFile Object;
  Object.adopt(std::move(*Mapped));
  Object.adopt(std::move(Heap));
  {
    PageDiscarder Discard;
    // 200 ranges of each (more than one batch), each the middle of a 1.5-page stretch: partial pages stay.
    for (size_t I = 0; I < 200; ++I) {
      Object.releaseSourcePages(StringRef(FileBase + I * Page + Page / 2, Page + Page / 2 + 1), Discard);
      Object.releaseSourcePages(StringRef(HeapBase + I * Page + Page / 2, Page + Page / 2 + 1), Discard);
    }
  } // the last batch goes at destruction
  for (size_t I = 0; I < Size; I += 997) {
    ASSERT_EQ(FileBase[I], char('a' + I % 23)) << "mapping, at " << I;
    ASSERT_EQ(HeapBase[I], char('a' + I % 23)) << "heap, at " << I;
  }
  sys::fs::remove(Path);
}

TEST(TextPagesTest, DiscarderLowersResidentMemory) {
  const size_t Page = size_t(sysconf(_SC_PAGESIZE)), Size = 2048 * Page; // 8 MB
  std::string Path = patternFile(Size);
  auto Mapped = mapInputFile(Path);
  ASSERT_TRUE(bool(Mapped));
  const char *Base = (*Mapped)->getBufferStart();
  auto rssFileKb = [] {
    std::ifstream In("/proc/self/status");
    std::string Line;
    while (std::getline(In, Line))
      if (Line.rfind("RssFile:", 0) == 0)
        return std::stol(Line.substr(8));
    return -1L;
  };
  const long Before = rssFileKb();
  ASSERT_GE(Before, 0);
  PageDiscarder Discard;
  for (size_t I = 0; I < Size; I += 64 * Page) // 32 ranges of 64 pages, one of them partial at the end
    Discard.add(Base + I, std::min(64 * Page, Size - I));
  Discard.flush();
  const long After = rssFileKb();
  EXPECT_LE(After, Before - long(Size / 1024) + 512) << "before " << Before << " KB, after " << After << " KB";
  size_t Sum = 0;
  for (size_t I = 0; I < Size; I += Page) // read back, unchanged
    Sum += Base[I] == char('a' + I % 23);
  EXPECT_EQ(Sum, Size / Page);
  sys::fs::remove(Path);
}

TEST(TextPagesTest, LentTextGoesBackOnlyOnceWritten) {
  SmallString<128> Path;
  int FD;
  ASSERT_FALSE(sys::fs::createTemporaryFile("text-pages-out", "txt", FD, Path));
  std::string Lent(4096, 'x'), More(2000, 'y');
  std::vector<std::string> Released;
  auto Release = [&](StringRef Range) { Released.push_back(Range.str()); };
  {
    GatheringFdStream OS(FD, /*ShouldClose=*/true);
    OS << "head ";
    OS.writeBorrowed(Lent);
    OS.releaseWhenWritten(Lent, Release);
    EXPECT_TRUE(Released.empty()) << "given back while writev still has to read it";
    OS.writeBorrowed(More);
    OS.releaseWhenWritten(More, Release);
    OS.writeWaiting();
    EXPECT_EQ(Released.size(), 2u);
    OS.releaseWhenWritten("nothing waits", Release); // nothing lent waits: at once
    EXPECT_EQ(Released.size(), 3u);
  }
  auto Written = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Written));
  EXPECT_EQ((*Written)->getBuffer(), "head " + Lent + More);
  // The copying stream has nothing to wait for.
  std::string Out;
  StringGatherStream Copying(Out);
  Released.clear();
  Copying.writeBorrowed(Lent);
  Copying.releaseWhenWritten(Lent, Release);
  EXPECT_EQ(Released.size(), 1u);
  sys::fs::remove(Path);
}

TEST(TextPagesTest, ReleaserReportsRunsOfContiguousText) {
  std::vector<std::pair<const char *, size_t>> Runs;
  auto Release = [&](StringRef Range) { Runs.push_back({Range.data(), Range.size()}); };
  std::string Input(3 * TextReleaser::RunBytes, ' ');
  const char *B = Input.data();
  TextReleaser R(Release);
  // Two sections with a small gap (a relocation table between them): one run.
  R.passed(StringRef(B + 1000, 100));
  R.passed(StringRef(B + 1200, 100));
  // Lower in memory (another input mapped below): a new run.
  R.passed(StringRef(B + 50, 10));
  // Far ahead (beyond RunGap): a new run.
  R.passed(StringRef(B + 100000, 10));
  R.finish();
  ASSERT_EQ(Runs.size(), 3u);
  EXPECT_EQ(Runs[0], std::make_pair(B + 1000, size_t(300)));
  EXPECT_EQ(Runs[1], std::make_pair(B + 50, size_t(10)));
  EXPECT_EQ(Runs[2], std::make_pair(B + 100000, size_t(10)));
  // One large input: a run goes every RunBytes.
  Runs.clear();
  for (size_t At = 0; At + 1000 <= Input.size(); At += 1000)
    R.passed(StringRef(B + At, 1000));
  R.finish();
  EXPECT_GE(Runs.size(), 3u);
  for (auto [Begin, Size] : Runs)
    EXPECT_LE(Size, TextReleaser::RunBytes + 1000);
  // Without Release, nothing is reported (and nothing recorded).
  TextReleaser None;
  None.passed(StringRef(B, 10));
  None.finish();
}
