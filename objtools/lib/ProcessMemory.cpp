// Heap set-up for the command-line tools (see ProcessMemory.h). glibc's malloc takes memory from the
// kernel by growing the heap with brk, and large blocks by mmap. Here every block comes from the heap,
// which grows by 64 MB at a time and is never trimmed, and that first 64 MB region is marked for huge
// pages. Untouched pages of it cost nothing: the kernel maps memory on first touch, 2 MB at a time.
#include "ptxlink/ProcessMemory.h"

#include <cstdint>
#include <utility>
#if defined(__linux__)
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#endif
#include <cstdlib> // defines __GLIBC__ (through features.h) where it applies
#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ptxlink {

void prepareToolHeap() {
#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE) && defined(M_TOP_PAD)
  if (std::getenv("GLIBC_TUNABLES"))
    return;
  constexpr size_t Step = size_t(64) << 20;
  constexpr size_t HugePage = size_t(2) << 20;
  mallopt(M_MMAP_THRESHOLD, 32 << 20); // large blocks from the heap too, up to glibc's maximum of 32 MB
  mallopt(M_TOP_PAD, static_cast<int>(Step));
  mallopt(M_TRIM_THRESHOLD, -1);
  // A block larger than what is left at the top of the heap makes malloc grow it (by the block and
  // Step); freed, it stays part of the heap, which is what gets marked.
  void *HeapStart = sbrk(0);
  void *volatile First = std::malloc(Step / 4); // volatile: the compiler may not drop the pair
  void *HeapEnd = sbrk(0);
  std::free(First);
  // The first megabytes stay in small pages: a small module never touches more, and its first touch of a
  // huge page would zero 2 MB, a tenth of the whole run of a one-module process.
  constexpr size_t SmallPagesFirst = size_t(4) << 20;
  auto Begin = (reinterpret_cast<uintptr_t>(HeapStart) + SmallPagesFirst + HugePage - 1) & ~(HugePage - 1);
  auto End = reinterpret_cast<uintptr_t>(HeapEnd) & ~(HugePage - 1);
  if (End > Begin)
    madvise(reinterpret_cast<void *>(Begin), End - Begin, MADV_HUGEPAGE);
#endif
}

#if defined(__linux__) && defined(MADV_DONTNEED)
namespace {
/// The whole pages inside [Begin, Begin + Bytes): their start and length (0 where there is none).
std::pair<void *, size_t> wholePages(const void *Begin, size_t Bytes) {
  const uintptr_t Page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t First = (reinterpret_cast<uintptr_t>(Begin) + Page - 1) & ~(Page - 1);
  const uintptr_t End = (reinterpret_cast<uintptr_t>(Begin) + Bytes) & ~(Page - 1);
  return {reinterpret_cast<void *>(First), End > First ? size_t(End - First) : 0};
}
} // namespace
#endif

void discardWholePages(const void *Begin, size_t Bytes) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  if (auto [First, Length] = wholePages(Begin, Bytes); Length)
    (void)madvise(First, Length, MADV_DONTNEED);
#else
  (void)Begin;
  (void)Bytes;
#endif
}

PageDiscarder::~PageDiscarder() {
  flush();
#if defined(__linux__)
  if (SelfFd >= 0)
    ::close(SelfFd);
#endif
}

void PageDiscarder::add(const void *Begin, size_t Bytes) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  auto [First, Length] = wholePages(Begin, Bytes);
  if (!Length)
    return; // no whole page: no call at all
  Waiting[Count++] = {First, Length};
  WaitingBytes += Length;
  if (Count == Batch || WaitingBytes >= BatchBytes)
    flush();
#else
  (void)Begin;
  (void)Bytes;
#endif
}

void PageDiscarder::flush() {
#if defined(__linux__) && defined(MADV_DONTNEED)
  if (Count == 0)
    return;
#if defined(SYS_pidfd_open) && defined(SYS_process_madvise)
  if (SelfFd == -2)
    SelfFd = int(syscall(SYS_pidfd_open, getpid(), 0));
  if (SelfFd >= 0) {
    // All or an error: the kernel stops at the first range it cannot take and returns what it did.
    const long Done = syscall(SYS_process_madvise, SelfFd, Waiting, Count, MADV_DONTNEED, 0);
    if (Done >= 0 && size_t(Done) == WaitingBytes) {
      Count = WaitingBytes = 0;
      return;
    }
    ::close(SelfFd); // an older kernel (EINVAL for this advice) or none: madvise from now on
    SelfFd = -1;
  }
#endif
  for (size_t I = 0; I < Count; ++I)
    (void)madvise(Waiting[I].iov_base, Waiting[I].iov_len, MADV_DONTNEED);
  Count = WaitingBytes = 0;
#endif
}

} // namespace ptxlink
