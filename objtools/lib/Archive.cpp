// Reading static device libraries (GNU ar archives) for lazy extraction.
//
// The problem: a link against a library of thousands of members needs only the few that define symbols
// the program is missing, so opening a library must cost no more than reading its symbol index. Here the
// index is parsed once (with every bound checked, since the archive may be corrupt) into a hash map from
// name to member; the member headers are walked once with LLVM's archive reader to learn each member's
// name and position (60-byte headers only, no member contents); a member's bytes are located only when
// the linker extracts it.
//
// Only the GNU (and GNU64) flavour is read: it is what ptxlink-ar, GNU ar and llvm-ar on Linux write.
// Its index is a member named "/" (or "/SYM64/"): a big-endian count N, N big-endian member header
// offsets, then N NUL-terminated names.

#include "ptxlink/Archive.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Object/Archive.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"

namespace ptxlink {

using namespace llvm;

bool isArchive(StringRef Bytes) { return Bytes.starts_with("!<arch>\n"); }

namespace {

class GnuStaticLibrary final : public StaticLibrary {
public:
  explicit GnuStaticLibrary(std::unique_ptr<MemoryBuffer> Buffer) : Buffer(std::move(Buffer)) {}

  Error load();

  StringRef fileName() const override { return Buffer->getBufferIdentifier(); }
  size_t memberCount() const override { return Members.size(); }
  StringRef memberName(size_t Member) const override {
    return Member < Members.size() ? Members[Member].Name : StringRef();
  }
  Expected<MemoryBufferRef> memberBuffer(size_t Member) const override;
  std::optional<size_t> memberDefining(StringRef Name) const override {
    auto It = Defining.find(Name);
    if (It == Defining.end())
      return std::nullopt;
    return It->second;
  }
  std::vector<std::pair<StringRef, size_t>> symbolIndex() const override {
    return {Index.begin(), Index.end()};
  }

private:
  struct MemberInfo {
    StringRef Name;
    uint64_t HeaderOffset = 0; // where the member's 60-byte header starts in the archive
  };

  Error malformed(const Twine &Message) const {
    return createStringError(inconvertibleErrorCode(), fileName() + ": malformed archive: " + Message);
  }
  Error readMembers();
  Error readIndex();

  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<object::Archive> Ar;
  std::vector<MemberInfo> Members;
  std::vector<std::pair<StringRef, size_t>> Index;
  DenseMap<StringRef, size_t> Defining; // first member in index order that defines each name
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
  if (Error E = readMembers())
    return E;
  return readIndex();
}

Error GnuStaticLibrary::readMembers() {
  Error Err = Error::success();
  uint64_t LastSize = 0;
  for (const object::Archive::Child &C : Ar->children(Err)) {
    Expected<StringRef> Name = C.getName();
    if (!Name)
      return malformed(toString(Name.takeError()) + " (member header at offset " + Twine(C.getChildOffset()) +
                       ")");
    Expected<uint64_t> Size = C.getRawSize();
    if (!Size)
      return malformed(toString(Size.takeError()) + " (member header at offset " + Twine(C.getChildOffset()) +
                       ")");
    LastSize = *Size;
    Members.push_back({*Name, C.getChildOffset()});
  }
  if (Err) {
    // LLVM names the member but not where it is; the offset is what someone with a hex editor needs.
    std::string Where = Members.empty() ? std::string()
                                        : (" (member '" + Members.back().Name + "' at offset " +
                                           Twine(Members.back().HeaderOffset) + " declares " + Twine(LastSize) +
                                           " bytes; the archive has " + Twine(Buffer->getBufferSize()) + ")")
                                              .str();
    return malformed(toString(std::move(Err)) + Where);
  }
  return Error::success();
}

Error GnuStaticLibrary::readIndex() {
  StringRef Table = Ar->getSymbolTable();
  if (Table.empty()) {
    // GNU ld refuses such an archive; so do we, with the fix in the message.
    if (!Members.empty())
      return createStringError(inconvertibleErrorCode(),
                               fileName() + ": archive has no symbol index; add one with 'ptxlink-ar s " +
                                   fileName() + "'");
    return Error::success();
  }
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

  DenseMap<uint64_t, size_t> MemberAt;
  MemberAt.reserve(Members.size());
  for (size_t I = 0; I < Members.size(); ++I)
    MemberAt.try_emplace(Members[I].HeaderOffset, I);

  Index.reserve(Count);
  Defining.reserve(Count);
  uint64_t NamePos = Width + Count * Width;
  for (uint64_t I = 0; I < Count; ++I) {
    const uint64_t Target = ReadWord(Width + I * Width);
    size_t End = Table.find('\0', NamePos);
    if (End == StringRef::npos)
      return malformed("name of symbol index entry " + Twine(I) + " at offset " + Twine(TableOffset + NamePos) +
                       " runs past the end of the index");
    StringRef Name = Table.slice(NamePos, End);
    auto It = MemberAt.find(Target);
    if (It == MemberAt.end())
      return malformed("symbol index entry " + Twine(I) + " ('" + Name + "', at offset " +
                       Twine(TableOffset + Width + I * Width) + ") refers to offset " + Twine(Target) +
                       ", which is not the start of a member");
    Index.emplace_back(Name, It->second);
    Defining.try_emplace(Name, It->second);
    NamePos = End + 1;
  }
  return Error::success();
}

Expected<MemoryBufferRef> GnuStaticLibrary::memberBuffer(size_t Member) const {
  if (Member >= Members.size())
    return createStringError(inconvertibleErrorCode(), fileName() + ": no member number " + Twine(Member));
  Error Err = Error::success();
  object::Archive::Child C(Ar.get(), Buffer->getBufferStart() + Members[Member].HeaderOffset, &Err);
  if (Err)
    return malformed(toString(std::move(Err)));
  Expected<MemoryBufferRef> Ref = C.getMemoryBufferRef();
  if (!Ref)
    return malformed(toString(Ref.takeError()) + " (member '" + Members[Member].Name + "' at offset " +
                     Twine(Members[Member].HeaderOffset) + ")");
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
