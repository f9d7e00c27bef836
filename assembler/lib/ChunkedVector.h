// A table that is filled front to back, read by index, and can give back its front while the back is
// still in use.
//
// The problem: lowering a parsed module reads the parser's function records (PtxFunction, 36 bytes each)
// while it writes the object model's sections, one function after the other, so with a plain vector the
// whole parse and the whole model are alive together at the lowering's end. On a module of 10^6 small
// functions that was 64 MB of parse records (64 bytes each then) nobody would read again
// (bench/memory_bench.py). Stored in fixed-size chunks, the records the lowering has passed can be freed
// chunk by chunk (releaseBelow), so the parse shrinks as the model grows. A released chunk's pages go
// back to the kernel: freed heap memory stays resident (the tools never trim their heap), and only
// allocations made later could have reused it.
//
// Elements never move once added (a reference stays valid until its chunk is released). Reading a
// released element is a programming error (asserted).
#pragma once

#include "ptxlink/ProcessMemory.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <memory>
#include <vector>

namespace ptxlink {

template <typename T, size_t ChunkBytes = 256 * 1024> class ChunkedVector {
  // A power of two, so that an index is a shift and a mask: records of a size that does not divide the
  // chunk (PtxFunction, 36 bytes) would pay a division on every access (+0.1% of ptxlink-as's
  // instructions). A chunk then holds between half of ChunkBytes and all of it.
  static constexpr size_t PerChunk = std::bit_floor(ChunkBytes / sizeof(T) ? ChunkBytes / sizeof(T) : 1);
  using Chunk = std::unique_ptr<std::vector<T>>;

public:
  size_t size() const { return Count; }
  bool empty() const { return Count == 0; }
  /// Room for N elements in the table of chunks (the chunks themselves are allocated as they fill).
  void reserve(size_t N) { Chunks.reserve((N + PerChunk - 1) / PerChunk); }

  void push_back(T Value) {
    if (Count % PerChunk == 0) {
      Chunks.push_back(std::make_unique<std::vector<T>>());
      Chunks.back()->reserve(PerChunk);
    }
    Chunks.back()->push_back(std::move(Value));
    ++Count;
  }

  T &operator[](size_t I) {
    assert(I < Count && Chunks[I / PerChunk] && "element released or out of range");
    return (*Chunks[I / PerChunk])[I % PerChunk];
  }
  const T &operator[](size_t I) const {
    assert(I < Count && Chunks[I / PerChunk] && "element released or out of range");
    return (*Chunks[I / PerChunk])[I % PerChunk];
  }

  /// Frees every chunk whose elements all lie below index I. Indices keep their meaning.
  void releaseBelow(size_t I) {
    for (size_t C = Released; C < I / PerChunk && C < Chunks.size(); ++C) {
      std::vector<T> &Elements = *Chunks[C];
      Elements.clear();
      discardWholePages(Elements.data(), Elements.capacity() * sizeof(T)); // dead, freed next
      Chunks[C].reset();
    }
    Released = std::max(Released, std::min(I / PerChunk, Chunks.size()));
  }

  /// Visits every element in order (none may have been released).
  template <typename Visitor> void forEach(Visitor &&Visit) const {
    assert(Released == 0 && "forEach over a partly released table");
    for (const Chunk &C : Chunks)
      for (const T &Element : *C)
        Visit(Element);
  }

private:
  std::vector<Chunk> Chunks;
  size_t Count = 0;
  size_t Released = 0; // chunks below this one are freed
};

} // namespace ptxlink
