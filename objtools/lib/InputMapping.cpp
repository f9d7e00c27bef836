// Mapping a link input into memory with its pages mapped up front.
//
// The problem: the linker reads every byte of most inputs (headers, symbol tables, ABI records, then
// the text it prints), and with a plain file mapping each first touch of a page is a page fault: about
// 800 of them for a 200-module link, a few percent of its time. Asking the kernel to map the whole
// file at once (MAP_POPULATE, or MADV_POPULATE_READ on Linux 5.14+) costs one call. Archives of 4 MB and
// more are the exception: a link reads only the members it extracts, so such an archive is mapped
// lazily. So is a very large object (LargeObjectBytes): its reader touches each table once and then
// gives its pages back (releaseMappedPages), which keeps the link's memory near the names and text it
// needs instead of the whole file. Standard input and small files are read instead (as LLVM does);
// anything but a regular file or standard input is refused (InputFiles.h).

#include "ptxlink/Archive.h"
#include "ptxlink/InputFiles.h"
#include "ptxlink/ObjectModel.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/ProcessMemory.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace ptxlink {
namespace {

/// A read-only private mapping of a whole file, unmapped when the buffer goes.
class FileMapping final : public llvm::MemoryBuffer {
public:
  FileMapping(void *Base, size_t Size, llvm::StringRef Name) : Base(Base), Size(Size), Name(Name.str()) {
    init(static_cast<const char *>(Base), static_cast<const char *>(Base) + Size, /*RequiresNullTerminator=*/false);
  }
  ~FileMapping() override { ::munmap(Base, Size); }
  llvm::StringRef getBufferIdentifier() const override { return Name; }
  BufferKind getBufferKind() const override { return MemoryBuffer_MMap; }

private:
  void *Base;
  size_t Size;
  std::string Name;
};

constexpr size_t SmallFile = 16 * 1024; // below this, reading beats mapping (as LLVM decides too)
constexpr size_t SmallArchiveBytes = 4 << 20; // below this, an archive is mapped whole like an object

} // namespace

llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> mapInputFile(llvm::StringRef Path) {
  // Only a regular file or standard input gets this far (openInputFile refuses the rest without blocking).
  uint64_t FileSize;
  llvm::ErrorOr<int> Opened = openInputFile(Path, FileSize);
  if (!Opened)
    return Opened.getError();
  int FD = *Opened;
  if (FD == 0)
    return readInputFile(Path);
  if (FileSize < SmallFile) {
    auto Buffer = llvm::MemoryBuffer::getOpenFile(llvm::sys::fs::convertFDToNativeFile(FD), Path, FileSize,
                                                  /*RequiresNullTerminator=*/false);
    ::close(FD);
    return Buffer;
  }
  size_t Size = size_t(FileSize);
  // A file below SmallArchiveBytes is mapped whole by mmap itself, whatever it holds: reading its first
  // bytes to tell an archive from an object would fault them in one at a time (and a madvise per file
  // would follow), and all of a small archive costs little more than the members a link takes from it.
  const bool MapWhole = Size < SmallArchiveBytes;
  void *Base = ::mmap(nullptr, Size, PROT_READ, MAP_PRIVATE | (MapWhole ? MAP_POPULATE : 0), FD, 0);
  ::close(FD);
  if (Base == MAP_FAILED)
    return readInputFile(Path);
  llvm::StringRef Bytes(static_cast<const char *>(Base), Size);
  if (!MapWhole && !isArchive(Bytes) && !(Size >= LargeObjectBytes && isPtxlinkObject(Bytes)))
    (void)::madvise(Base, Size, MADV_POPULATE_READ); // an older kernel refuses: pages then fault in as usual
  return std::unique_ptr<llvm::MemoryBuffer>(new FileMapping(Base, Size, Path));
}

void releaseMappedPages(const llvm::MemoryBuffer &Buffer, llvm::StringRef Range) {
  // Only a file mapping: MADV_DONTNEED on heap memory would zero it. Both kinds of mapping here are
  // read-only, so no page holds a private change that dropping it would lose.
  if (Buffer.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap || Range.empty())
    return;
  discardWholePages(Range.data(), Range.size());
}

uint64_t ObjectFile::mappedBytes() const {
  uint64_t Bytes = 0;
  for (const std::unique_ptr<llvm::MemoryBuffer> &B : Buffers)
    if (B->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap)
      Bytes += B->getBufferSize();
  return Bytes;
}

const llvm::MemoryBuffer *ObjectFile::fileMappingHolding(llvm::StringRef Range) const {
  // Only a file mapping can give pages back: MADV_DONTNEED on heap memory would zero it. Both kinds of
  // mapping here are read-only, so no page holds a private change that dropping it would lose.
  for (const std::unique_ptr<llvm::MemoryBuffer> &B : Buffers)
    if (Range.data() >= B->getBufferStart() && Range.data() + Range.size() <= B->getBufferEnd())
      return B->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap ? B.get() : nullptr;
  return nullptr;
}

void ObjectFile::releaseSourcePages(llvm::StringRef Range) const {
  if (const llvm::MemoryBuffer *B = fileMappingHolding(Range))
    releaseMappedPages(*B, Range);
}

void ObjectFile::releaseSourcePages(llvm::StringRef Range, PageDiscarder &Into) const {
  if (!Range.empty() && fileMappingHolding(Range))
    Into.add(Range.data(), Range.size());
}

} // namespace ptxlink
