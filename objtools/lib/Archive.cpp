// Reading static device libraries (GNU ar archives) for lazy extraction.
//
// The problem: a link against a library of thousands of members needs only the few that define symbols
// the program is missing, so opening a library must cost no more than reading its symbol index. The
// member headers are spread through the whole file; walking them touches every page of it (at 10,000
// members that walk costs far more than the index). So open() parses only the index, with every bound
// checked since the archive may be corrupt, into a table (the hash map from name to member is made at the
// first lookup: a dump that only lists the index never needs it); a member's header is read, and
// checked, only when the member is extracted or named. The full walk happens only for callers that want
// every member (--whole-archive, dump tools).
//
// Only the GNU (and GNU64) flavour is read: it is what ptxlink-ar, GNU ar and llvm-ar on Linux write.
// Its index is a member named "/" (or "/SYM64/"): a big-endian count N, N big-endian member header
// offsets, then N NUL-terminated names.

#include "ptxlink/Archive.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Object/Archive.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <mutex>

namespace ptxlink {

using namespace llvm;

bool isArchive(StringRef Bytes) { return Bytes.starts_with("!<arch>\n"); }

namespace {

constexpr uint64_t HeaderSize = 60; // a GNU ar member header

class GnuStaticLibrary final : public StaticLibrary {
public:
  explicit GnuStaticLibrary(std::unique_ptr<MemoryBuffer> Buffer) : Buffer(std::move(Buffer)) {}

  Error load();

  StringRef fileName() const override { return Buffer->getBufferIdentifier(); }
  Error readAllMembers() const override;
  bool hasSymbolIndex() const override { return HasIndex; }
  size_t memberCount() const override {
    walk();
    return Offsets.size();
  }
  StringRef memberName(size_t Member) const override;
  Expected<MemoryBufferRef> memberBuffer(size_t Member) const override;
  std::optional<size_t> memberDefining(StringRef Name) const override {
    // Built on first use: a dump that lists the index never needs it (a million names: 48 MB).
    std::call_once(DefiningBuilt, [this] {
      Defining.reserve(Index.size());
      for (const auto &[Symbol, Member] : Index)
        Defining.try_emplace(Symbol, Member);
    });
    auto It = Defining.find(Name);
    if (It == Defining.end())
      return std::nullopt;
    return It->second;
  }
  ArrayRef<std::pair<StringRef, size_t>> symbolIndex() const override { return Index; }

private:
  Error malformed(const Twine &Message) const {
    return createStringError(inconvertibleErrorCode(), fileName() + ": malformed archive: " + Message);
  }
  Error readIndex();
  /// The member whose header starts at Offset, with its header and data bounds checked.
  Expected<object::Archive::Child> childAt(uint64_t Offset) const;
  void walk() const;

  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<object::Archive> Ar;
  bool HasIndex = false;
  uint64_t FirstMember = 0; // header offset of the first regular member (after the index and name table)
  size_t IndexedMembers = 0;
  // Member number -> header offset: the members the index names, ascending, then (after walk()) the
  // others in archive order.
  mutable std::vector<uint64_t> Offsets;
  std::vector<std::pair<StringRef, size_t>> Index;
  mutable DenseMap<StringRef, size_t> Defining; // first member in index order that defines each name
  mutable std::once_flag DefiningBuilt;
  mutable bool Walked = false;
  mutable std::string WalkError;
};

Error GnuStaticLibrary::load() {
  StringRef Bytes = Buffer->getBuffer();
  if (Bytes.starts_with("!<thin>\n"))
    return createStringError(inconvertibleErrorCode(),
                             fileName() + ": thin archives are not supported (their members live in other "
                                          "files); build a normal archive with ptxlink-ar");
  if (!isArchive(Bytes))
    return createStringError(inconvertibleErrorCode(),
                             fileName() + ": not an archive (missing \"!<arch>\\n\" at offset 0)");
  Expected<std::unique_ptr<object::Archive>> Parsed = object::Archive::create(Buffer->getMemBufferRef());
  if (!Parsed)
    return malformed(toString(Parsed.takeError()));
  Ar = std::move(*Parsed);
  if (Ar->kind() != object::Archive::K_GNU && Ar->kind() != object::Archive::K_GNU64)
    return createStringError(inconvertibleErrorCode(),
                             fileName() + ": unsupported archive flavour (BSD, Darwin, COFF or AIX); "
                                          "ptxlink reads GNU archives: rebuild it with ptxlink-ar");
  // Only the first regular member's header is read here: it tells where members start.
  Error Err = Error::success();
  auto First = Ar->child_begin(Err);
  if (Err)
    return malformed(toString(std::move(Err)));
  FirstMember = First == Ar->child_end() ? Bytes.size() : First->getChildOffset();
  return readIndex();
}

Error GnuStaticLibrary::readIndex() {
  StringRef Table = Ar->getSymbolTable();
  HasIndex = Table.data() != nullptr; // LLVM found a "/" member, even an empty one
  if (!HasIndex)
    return Error::success();
  const uint64_t TableOffset = Table.data() - Buffer->getBufferStart();
  const unsigned Width = Ar->kind() == object::Archive::K_GNU64 ? 8 : 4;
  auto ReadWord = [&](uint64_t At) -> uint64_t {
    return Width == 8 ? support::endian::read64be(Table.data() + At) : support::endian::read32be(Table.data() + At);
  };
  if (Table.size() < Width)
    return malformed("symbol index at offset " + Twine(TableOffset) + " is " + Twine(Table.size()) +
                     " bytes, too small for its count");
  const uint64_t Count = ReadWord(0);
  // Every entry needs an offset word and at least a NUL; checking this first bounds the allocation.
  if (Count > (Table.size() - Width) / (Width + 1))
    return malformed("symbol index at offset " + Twine(TableOffset) + " claims " + Twine(Count) +
                     " symbols but holds only " + Twine(Table.size()) + " bytes");

  // Index holds each entry's member header offset first, turned into the member number below in place
  // (one table, not two: a million names take 24 MB).
  Index.reserve(Count);
  const uint64_t Size = Buffer->getBufferSize();
  uint64_t NamePos = Width + Count * Width;
  for (uint64_t I = 0; I < Count; ++I) {
    const uint64_t Target = ReadWord(Width + I * Width);
    size_t End = Table.find('\0', NamePos);
    if (End == StringRef::npos)
      return malformed("name of symbol index entry " + Twine(I) + " at offset " + Twine(TableOffset + NamePos) +
                       " runs past the end of the index");
    StringRef Name = Table.slice(NamePos, End);
    // The header itself is checked when the member is extracted; here only that one could be there.
    if (Target < FirstMember || Size < HeaderSize || Target > Size - HeaderSize)
      return malformed("symbol index entry " + Twine(I) + " ('" + Name + "', at offset " +
                       Twine(TableOffset + Width + I * Width) + ") refers to offset " + Twine(Target) +
                       ", which is not the start of a member");
    Index.emplace_back(Name, size_t(Target));
    NamePos = End + 1;
  }

  // Archive writers list members in order, so the offsets are usually sorted already: then member
  // numbers are assigned in one pass; otherwise through a sorted copy and a map.
  bool Sorted = std::is_sorted(Index.begin(), Index.end(),
                               [](const auto &A, const auto &B) { return A.second < B.second; });
  if (Sorted) {
    for (auto &Entry : Index) {
      if (Offsets.empty() || Offsets.back() != Entry.second)
        Offsets.push_back(Entry.second);
      Entry.second = Offsets.size() - 1;
    }
    IndexedMembers = Offsets.size();
    return Error::success();
  }
  for (const auto &Entry : Index)
    Offsets.push_back(Entry.second);
  std::sort(Offsets.begin(), Offsets.end());
  Offsets.erase(std::unique(Offsets.begin(), Offsets.end()), Offsets.end());
  IndexedMembers = Offsets.size();
  // Offsets is sorted and holds every offset of the index: each entry's member number is its place there
  // (a search, not a DenseMap, whose reserved keys a 64-bit index could name).
  for (auto &Entry : Index)
    Entry.second = std::lower_bound(Offsets.begin(), Offsets.end(), Entry.second) - Offsets.begin();
  return Error::success();
}

Expected<object::Archive::Child> GnuStaticLibrary::childAt(uint64_t Offset) const {
  const uint64_t Size = Buffer->getBufferSize();
  if (Offset < FirstMember || Size < HeaderSize || Offset > Size - HeaderSize)
    return malformed("no member header at offset " + Twine(Offset));
  Error Err = Error::success();
  object::Archive::Child C(Ar.get(), Buffer->getBufferStart() + Offset, &Err);
  if (Err)
    return malformed(toString(std::move(Err)) + " (member header at offset " + Twine(Offset) + ")");
  // LLVM checks that the header fits, not the data it declares; a member built from an offset in the
  // index (rather than by walking) must check that itself.
  Expected<uint64_t> DataSize = C.getRawSize();
  if (!DataSize)
    return malformed(toString(DataSize.takeError()) + " (member header at offset " + Twine(Offset) + ")");
  if (C.getDataOffset() > Size || *DataSize > Size - C.getDataOffset())
    return malformed("member at offset " + Twine(Offset) + " declares " + Twine(*DataSize) +
                     " bytes of data from offset " + Twine(C.getDataOffset()) + ", past the end of the archive (" +
                     Twine(Size) + " bytes)");
  return C;
}

void GnuStaticLibrary::walk() const {
  if (Walked)
    return;
  Walked = true;
  std::vector<uint64_t> Others;
  std::vector<bool> Seen(IndexedMembers, false);
  uint64_t Last = 0;
  Error Err = Error::success();
  for (const object::Archive::Child &C : Ar->children(Err)) {
    Last = C.getChildOffset();
    auto It = std::lower_bound(Offsets.begin(), Offsets.begin() + IndexedMembers, Last);
    if (It != Offsets.begin() + IndexedMembers && *It == Last)
      Seen[It - Offsets.begin()] = true;
    else
      Others.push_back(Last);
  }
  if (Err)
    WalkError = (fileName() + ": malformed archive: " + toString(std::move(Err)) + " (the last member header " +
                 "read is at offset " + Twine(Last) + "; the archive has " + Twine(Buffer->getBufferSize()) +
                 " bytes)")
                    .str();
  for (size_t I = 0; I < IndexedMembers && WalkError.empty(); ++I)
    if (!Seen[I])
      WalkError = (fileName() + ": malformed archive: the symbol index refers to offset " + Twine(Offsets[I]) +
                   ", which is not the start of a member")
                      .str();
  Offsets.insert(Offsets.end(), Others.begin(), Others.end());
}

Error GnuStaticLibrary::readAllMembers() const {
  walk();
  if (WalkError.empty())
    return Error::success();
  return createStringError(inconvertibleErrorCode(), WalkError);
}

StringRef GnuStaticLibrary::memberName(size_t Member) const {
  if (Member >= Offsets.size())
    return "";
  Expected<object::Archive::Child> C = childAt(Offsets[Member]);
  if (!C) {
    consumeError(C.takeError()); // memberBuffer reports it
    return "<corrupt member header>";
  }
  Expected<StringRef> Name = C->getName(); // points into the header or the name table: the buffer
  if (!Name) {
    consumeError(Name.takeError());
    return "<corrupt member name>";
  }
  return *Name;
}

Expected<MemoryBufferRef> GnuStaticLibrary::memberBuffer(size_t Member) const {
  if (Member >= Offsets.size())
    return createStringError(inconvertibleErrorCode(), fileName() + ": no member number " + Twine(Member));
  Expected<object::Archive::Child> C = childAt(Offsets[Member]);
  if (!C)
    return C.takeError();
  Expected<MemoryBufferRef> Ref = C->getMemoryBufferRef();
  if (!Ref)
    return malformed(toString(Ref.takeError()) + " (member header at offset " + Twine(Offsets[Member]) + ")");
  return *Ref;
}

} // namespace

Expected<std::unique_ptr<StaticLibrary>> StaticLibrary::open(std::unique_ptr<MemoryBuffer> Buffer) {
  auto Library = std::make_unique<GnuStaticLibrary>(std::move(Buffer));
  if (Error E = Library->load())
    return E;
  return std::unique_ptr<StaticLibrary>(std::move(Library));
}

} // namespace ptxlink
