// GatheringFdStream: borrowed text and buffered bytes written together by writev(2) (GatherStream.h).

#include "ptxlink/GatherStream.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <unistd.h>

namespace ptxlink {
namespace {
// IOV_MAX is 1024 on Linux; one writev takes at most that many vectors.
#ifdef IOV_MAX
constexpr size_t MaxVectors = IOV_MAX < 1024 ? IOV_MAX : 1024;
#else
constexpr size_t MaxVectors = 16; // POSIX's minimum
#endif
} // namespace

GatheringFdStream::~GatheringFdStream() {
  // raw_fd_ostream's destructor flushes through its own write_impl, which knows nothing of the waiting
  // list: everything goes out here, in order.
  flush();
  writeWaiting();
}

void GatheringFdStream::wait(const char *Ptr, size_t Size) {
  if (!Size)
    return;
  if (!Waiting.empty()) {
    iovec &Last = Waiting.back();
    if (static_cast<const char *>(Last.iov_base) + Last.iov_len == Ptr) { // adjacent: one vector
      Last.iov_len += Size;
      WaitingBytes += Size;
      inc_pos(Size);
      return;
    }
  }
  Waiting.push_back({const_cast<char *>(Ptr), Size});
  WaitingBytes += Size;
  inc_pos(Size);
}

void GatheringFdStream::writeWaiting() {
  size_t Next = 0;
  while (Next < Waiting.size() && !has_error()) {
    const int Count = int(std::min(Waiting.size() - Next, MaxVectors));
    ssize_t Written = ::writev(get_fd(), &Waiting[Next], Count);
    if (Written < 0) {
      if (errno == EINTR)
        continue;
      error_detected(std::error_code(errno, std::generic_category()));
      break;
    }
    if (Written == 0) { // no progress on a non-empty write: give up rather than spin
      error_detected(std::make_error_code(std::errc::io_error));
      break;
    }
    // Past the vectors written whole; a partly written one continues where the kernel stopped.
    size_t Left = size_t(Written);
    while (Left && Next < Waiting.size()) {
      iovec &V = Waiting[Next];
      if (Left >= V.iov_len) {
        Left -= V.iov_len;
        ++Next;
      } else {
        V.iov_base = static_cast<char *>(V.iov_base) + Left;
        V.iov_len -= Left;
        Left = 0;
      }
    }
  }
  Waiting.clear();
  WaitingBytes = 0;
  KeptUsed = 0;
  // Written (or failed, which ends the output: the text is not read again either way).
  for (auto &[Range, Release] : ToRelease)
    Release(Range);
  ToRelease.clear();
}

void GatheringFdStream::releaseWhenWritten(llvm::StringRef Range, llvm::function_ref<void(llvm::StringRef)> Release) {
  if (Waiting.empty())
    Release(Range);
  else
    ToRelease.push_back({Range, Release});
}

void GatheringFdStream::keep(const char *Ptr, size_t Size) {
  if (!Kept)
    Kept.reset(new char[KeptBytes]);
  if (Size >= KeptBytes / 2) { // a whole buffer (a forwarding stream's): written now, in its turn, uncopied
    wait(Ptr, Size);
    writeWaiting();
    return;
  }
  if (KeptUsed + Size > KeptBytes || Waiting.size() >= MaxVectors)
    writeWaiting(); // empties Kept
  std::memcpy(Kept.get() + KeptUsed, Ptr, Size);
  wait(Kept.get() + KeptUsed, Size);
  KeptUsed += Size;
}

void GatheringFdStream::write_impl(const char *Ptr, size_t Size) {
  if (Deferring) {
    keep(Ptr, Size);
    return;
  }
  // A full buffer, a flush, or a large write passed straight through: written now, after what waits.
  wait(Ptr, Size);
  writeWaiting();
}

void GatheringFdStream::pwrite_impl(const char *Ptr, size_t Size, uint64_t Offset) {
  writeWaiting(); // seek() below moves the file's offset: nothing may still be waiting for the old one
  uint64_t Pos = tell();
  seek(Offset);
  write(Ptr, Size);
  seek(Pos);
}

void GatheringFdStream::writeCopied(const char *Ptr, size_t Size) {
  if (!Size || has_error())
    return;
  Deferring = true;
  flush(); // the buffered bytes come first
  keep(Ptr, Size);
  Deferring = false;
}

void GatheringFdStream::writeBorrowed(llvm::StringRef Text) {
  if (Text.empty() || has_error())
    return;
  if (GetNumBytesInBuffer()) { // the buffered bytes come first: moved into Kept, not written yet
    Deferring = true;
    flush();
    Deferring = false;
  }
  if (Waiting.size() >= MaxVectors)
    writeWaiting();
  wait(Text.data(), Text.size());
  if (WaitingBytes >= WriteAtBytes || Waiting.size() >= MaxVectors)
    writeWaiting();
}

} // namespace ptxlink
