// Heap set-up for the command-line tools, which are short-lived batch processes.
//
// The problem: assembling an 11.5 MB -G module touches ~30 MB of fresh heap, and the kernel maps it in
// 4 KB pages: ~7,800 page faults at ~1.6 us each on a virtual machine, 18% of the run. The tools never
// give memory back before they exit, so the heap can grow in large steps backed by transparent huge
// pages (where the kernel offers them on request), which takes the faults down to a few dozen.
#pragma once

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

} // namespace ptxlink
