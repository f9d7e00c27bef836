// Heap set-up for the command-line tools, which are short-lived batch processes.
//
// The problem: assembling an 11.5 MB -G module touches ~30 MB of fresh heap, and the kernel maps it in
// 4 KB pages: ~7,800 page faults at ~1.6 us each on a virtual machine, 18% of the run (linking 3000
// objects: 85 MB of tables, and their TLB misses in every pass). The tools never
// give memory back before they exit, so the heap can grow in large steps backed by transparent huge
// pages (where the kernel offers them on request), which takes the faults down to a few dozen.
#pragma once

#include <sys/uio.h>

#include <cstddef>

namespace ptxlink {

/// Call once, first thing in main(), before anything is allocated. Does nothing where the C library or
/// the kernel lacks the means (non-glibc, no madvise(MADV_HUGEPAGE)) or when the user has set
/// GLIBC_TUNABLES (their malloc settings win).
void prepareToolHeap();

/// Gives the kernel back the whole pages inside [Begin, Begin + Bytes) (madvise(MADV_DONTNEED); the
/// partial pages at either end stay). Only for memory whose contents are dead or can be read back:
///  - a heap block whose contents are dead and which the caller frees next (ChunkedVector): freed memory
///    otherwise stays resident, since the tools' heap is never trimmed (prepareToolHeap) and a block
///    inside the heap could not be trimmed anyway; what is written there later (malloc's bookkeeping, a
///    later allocation) lands on fresh zeroed pages;
///  - a read-only file mapping (releaseMappedPages, InputFiles.h): a page touched again is read back
///    from the file.
/// Does nothing where madvise(MADV_DONTNEED) is not available.
void discardWholePages(const void *Begin, size_t Bytes);

/// discardWholePages for many ranges, given back together: a link gives back the text of each of
/// thousands of inputs, one range per file mapping, and one madvise per range cost 5 us (3000 objects:
/// 16 ms), most of it the call's own work (locking, flushing the TLB) rather than the pages'. Where the
/// kernel takes MADV_DONTNEED through process_madvise(2) on the calling process (Linux 6.13 and later),
/// up to Batch ranges go in one call (3000 ranges: 6 ms); elsewhere each range is madvised as before.
/// Ranges are given back when Batch of them or BatchBytes wait, at flush() and at destruction: until then
/// they stay resident.
class PageDiscarder {
public:
  static constexpr size_t Batch = 64;
  static constexpr size_t BatchBytes = size_t(1) << 20;
  PageDiscarder() = default;
  PageDiscarder(const PageDiscarder &) = delete;
  PageDiscarder &operator=(const PageDiscarder &) = delete;
  ~PageDiscarder();
  /// The whole pages inside [Begin, Begin + Bytes), with discardWholePages's rules.
  void add(const void *Begin, size_t Bytes);
  void flush();

private:
  iovec Waiting[Batch]; // the whole pages of each range, as process_madvise takes them
  size_t Count = 0;
  size_t WaitingBytes = 0;
  int SelfFd = -2; // a pidfd for this process once opened; -1 where process_madvise cannot serve
};

} // namespace ptxlink
