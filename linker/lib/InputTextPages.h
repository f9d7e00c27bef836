// Giving the inputs' text back to the kernel between reading it and printing it.
//
// The problem: a link's objects are file mappings, all of whose pages are resident from the time they are
// read (InputMapping.cpp maps them up front). Most of their bytes are PTX text that the link needs only
// when it prints the linked module; resolution, the checks, liveness and emit run in between, while the
// link's own tables are at their largest. A 3000-module link held all 261 MB of its objects beside 82 MB
// of tables: its peak was 1.38x the objects.
//
// Here, once the objects a link has read reach a size (--release-input-text-after, 64 MB), each object's
// text (its first section's contents to its last's) is given back right after the object is read
// (ObjectFile::releaseSourcePages: a page touched again is read back from the page cache, unchanged; the
// ranges go back in batches, PageDiscarder), and what the passes before the
// function bodies would read from it is kept apart first: each function's declaration part, which the
// printer prints as a prototype (and for an alias) before any body, and each plain label's name hash,
// which EmitModule's label clash rule compares. The printer then reads each input's text once, in order,
// and gives it back behind itself once written (TextReleaser, GatherStream::releaseWhenWritten). The
// names, tables and records stay resident: they share pages with no text worth giving back, and touching
// a released page maps back up to 64 KB around it (the kernel's fault-around), so a stray read of an
// input's text costs most of the input again. A large input (LargeTextBytes) keeps the scheme its reader
// has (InputFiles.h) and is only given back behind the printer. The cost: each object's text is mapped
// twice and given back twice instead of mapped once (3000 objects: about +5% CPU, docs/performance.md,
// "Fifth pass"), which is why small links keep everything resident.
#pragma once

#include "ptxlink/ObjectFormat.h"
#include "ptxlink/ObjectModel.h"
#include "ptxlink/ProcessMemory.h"

#include "llvm/Support/Allocator.h"

#include <functional>
#include <mutex>
#include <vector>

namespace ptxlink {

class InputTextPages {
public:
  /// DetachAfter: the objects a link reads before it starts giving their text back
  /// (--release-input-text-after, 64 MB by default): below that a link's objects are small beside its
  /// tables and the program that reads them, and the copies and calls would cost more than the memory is
  /// worth (the 100- and 200-module bench links stay as they were). 0: from the first object.
  explicit InputTextPages(uint64_t DetachAfter);
  InputTextPages(const InputTextPages &) = delete; // access() refers to this object

  /// An object the link has read, in load order. Once the Detachable objects added reach DetachAfter,
  /// each one's text is given back (those added before, too), with its declaration parts and label hashes
  /// kept. Detachable: read from a ptxlink object, whose names lie apart from its text (an assembled
  /// module's names are views of its text, which every pass reads). A large input is given back behind the
  /// printer only, whatever it is.
  void add(ObjectFile &Object, bool Detachable);
  /// Whether the printer has text to give back (a detached or a large input).
  bool active() const { return !Spans.empty(); }
  /// For printModule. Valid as long as this object.
  InputTextAccess access() const { return {ReleaseFn, HeaderFn}; }
  /// After the last input: gives back what waits to be given back and makes the inputs' spans ready for
  /// the printers (which may run at once).
  void finishLoading();
  /// The inputs whose text was given back after reading, and the bytes of their text (for -v).
  size_t detachedInputs() const { return DetachedInputs; }
  uint64_t detachedBytes() const { return DetachedBytes; }

private:
  void detach(ObjectFile &Object);
  /// Gives back the whole pages of Range that lie in an input's text registered here.
  void release(llvm::StringRef Range) const;
  /// The declaration part kept for function section S, or an empty result. Hint: InputTextAccess's.
  llvm::StringRef header(const Section &S, uint32_t &Hint) const;

  struct Span {
    const char *Begin, *End; // the input's text, from its first section's contents to its last's
    const ObjectFile *Object;
    uint32_t FirstHeader, EndHeader; // its entries in Headers
  };
  /// Where text may be given back, sorted by Begin at finishLoading (inputs are added in load order).
  std::vector<Span> Spans;
  const uint64_t DetachAfter;
  std::vector<ObjectFile *> Undetached; // read before the link reached DetachAfter
  uint64_t Added = 0;                   // mapped bytes of the objects added
  size_t DetachedInputs = 0;
  uint64_t DetachedBytes = 0;
  bool Detaching = false;
  /// Declaration parts, input by input in load order and by address within an input, each by the function
  /// section's contents (a linked module's section is a view of the input's, at the same address); the
  /// bytes are copied into Copies. The printer asks in about this order (its Hint).
  struct HeaderCopy {
    const char *Contents;
    const char *Copy;
    uint32_t Length;
  };
  std::vector<HeaderCopy> Headers;
  llvm::BumpPtrAllocator Copies;
  /// The ranges given back, a batch per call (3000 inputs: 47 calls instead of 3000).
  mutable PageDiscarder Discard;
  /// Printers of several arches' modules may run at once (the fatbinary's images planned in parallel):
  /// release() takes this for Discard. (header() only reads.)
  mutable std::mutex Lock;
  std::function<void(llvm::StringRef)> ReleaseFn;
  std::function<llvm::StringRef(const Section &, uint32_t &)> HeaderFn;
};

} // namespace ptxlink
