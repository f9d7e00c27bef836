//===- NameIndex.h - Name -> position in a table the caller owns ------------------------------------===//
//
// The assembler looks names up among a module's symbols, the linker among every visible name of a link:
// tables of up to millions of names that already hold each name (a view of the input). A map that stored
// the names again would take 24 bytes or more per name on top of the copy, so a slot
// here is 8 bytes, the position and the name's 32-bit hash, and the name is read from the caller's table
// through NameOf(position) when the hashes match. Open addressing with linear probing, kept at most three
// quarters full (the table doubles past that). The table's size need not be a power of two: a hash picks
// its home slot by multiply-and-shift, so a table sized for N names holds 4/3 N slots (10.7 MB for 10^6
// names) instead of the next power of two at least 2 N (16.8 MB).
//
//===------------------------------------------------------------------------------------------------===//
#ifndef PTXLINK_NAMEINDEX_H
#define PTXLINK_NAMEINDEX_H

#include "ptxlink/ProcessMemory.h"

#include "llvm/ADT/StringRef.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ptxlink {

class NameIndex {
public:
  static constexpr uint32_t None = ~0u;

  /// Empties the index and sizes it for up to Names names.
  void reset(size_t Names) {
    Slots.assign(sizeFor(Names), Slot());
    Count = 0;
  }
  /// Makes room for Names names in all, keeping what the index holds.
  void reserve(size_t Names) {
    if (size_t Size = sizeFor(Names); Size > Slots.size())
      rehash(Size);
  }
  /// Name's position, or None. NameOf(position) gives the name at a position of the caller's table.
  template <typename NameOfFn> uint32_t find(llvm::StringRef Name, NameOfFn &&NameOf) const {
    return Slots.empty() ? None : Slots[probe(Name, hashOf(Name), NameOf)].Index;
  }
  /// Name's position and false; if it has none, records NewPosition for it and returns (NewPosition,
  /// true): the caller then puts an entry named Name at NewPosition before the next call.
  template <typename NameOfFn>
  std::pair<uint32_t, bool> insert(llvm::StringRef Name, uint32_t NewPosition, NameOfFn &&NameOf) {
    if (4 * (Count + 1) > 3 * Slots.size())
      rehash(std::max<size_t>(Slots.size() * 2, MinSlots));
    const uint32_t Hash = hashOf(Name);
    Slot &S = Slots[probe(Name, Hash, NameOf)];
    if (S.Index != None)
      return {S.Index, false};
    S = {NewPosition, Hash};
    ++Count;
    return {NewPosition, true};
  }
  /// How many slots the table has (for tests of its sizing).
  size_t slotCount() const { return Slots.size(); }
  /// Frees the table, its pages given back first (the tools' heap is never trimmed, prepareToolHeap, so a
  /// block only freed would stay resident): for a caller that no longer looks names up. Empty afterwards.
  void release() {
    discardWholePages(Slots.data(), Slots.capacity() * sizeof(Slot)); // dead, freed next
    Slots = {};
    Count = 0;
  }

private:
  struct Slot {
    uint32_t Index = None;
    uint32_t Hash = 0;
  };
  static constexpr size_t MinSlots = 16;
  /// A third as many slots again as names (and 16): at most three quarters full, so probe chains stay
  /// short (a miss probes about 8 slots on average: 64 bytes, one or two cache lines).
  static size_t sizeFor(size_t Names) { return std::max(MinSlots, Names + Names / 3 + 1); }
  /// XXH3-64 from libxxhash, the project's one xxHash (the ODR hash, the compile cache's keys and the
  /// codegen batching use it too; LLVM's copy computes the same values).
  static uint32_t hashOf(llvm::StringRef Name) { return uint32_t(XXH3_64bits(Name.data(), Name.size())); }
  /// The slot where a hash's probe starts: the hash scaled to the table (Lemire's multiply-shift), which
  /// unlike a mask works for any size below 2^32 slots.
  static size_t home(uint32_t Hash, size_t Size) { return size_t((uint64_t(Hash) * Size) >> 32); }
  /// The position of the slot holding Name, or of the empty slot where it would go.
  template <typename NameOfFn> size_t probe(llvm::StringRef Name, uint32_t Hash, NameOfFn &NameOf) const {
    const size_t Size = Slots.size();
    for (size_t At = home(Hash, Size);;) {
      const Slot &S = Slots[At];
      if (S.Index == None || (S.Hash == Hash && NameOf(S.Index) == Name))
        return At;
      if (++At == Size)
        At = 0;
    }
  }
  void rehash(size_t Size) {
    std::vector<Slot> Old = std::move(Slots);
    Slots.assign(Size, Slot());
    for (const Slot &S : Old)
      if (S.Index != None) {
        size_t At = home(S.Hash, Size);
        while (Slots[At].Index != None)
          if (++At == Size)
            At = 0;
        Slots[At] = S;
      }
  }

  std::vector<Slot> Slots;
  size_t Count = 0;
};

} // namespace ptxlink

#endif
