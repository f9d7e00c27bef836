// Reading a ptxlink relocatable object (docs/object-format.md) back into the object model.
//
// The problem: objects come from disk, archives and other tools, so any byte may be wrong. The reader
// copies nothing (every string and section is a slice of the buffer, which the ObjectFile adopts), checks
// every offset, size, count and index before using it, never allocates more than the input could
// justify, and reports the first problem as `<file>: offset 0x..: what`, with the offset in the file.

#include "ElfView.h"
#include "PtxlinkElf.h"
#include "ptxlink/Cubin.h"
#include "ptxlink/InputFiles.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace ptxlink {
namespace {

using namespace elf;
using llvm::StringRef;

/// Why an object of an older format version is refused: a link takes facts that only the assembler
/// records (calls and the ODR hashes of weak definitions since version 3, the labels each function defines
/// since version 4) from the object and reads no PTX text to recover them, so the object must be made again.
std::string olderVersion(uint32_t Version) {
  return "object format version " + std::to_string(Version) + " is older than this reader's (" +
         std::to_string(ObjectFormatVersion) +
         ", which records calls, the ODR hashes of weak definitions and the labels each function defines): " +
         "re-assemble it with this ptxlink-as (or link it again with this ptxlink -r)";
}

// Fields of an Elf64_Rela that messages point at: r_info's type (low half) and symbol (high half), r_addend.
constexpr uint64_t RelaTypeAt = offsetof(ElfRel, r_info), RelaSymbolAt = RelaTypeAt + 4, RelaAddendAt = sizeof(ElfRel);

/// A sticky-error cursor over one region of the file: reads past the end yield zeros and record the
/// first failure, so record parsers can read a whole record and check once.
class Cursor {
public:
  Cursor(StringRef Data, uint64_t FileOffset) : Data(Data), FileOffset(FileOffset) {}

  bool ok() const { return !Failed; }
  size_t left() const { return Data.size() - Pos; }
  uint64_t offset() const { return FileOffset + Pos; }
  bool atEnd() const { return Pos == Data.size(); }

  LLVM_ATTRIBUTE_NOINLINE void fail(uint64_t At, const llvm::Twine &Msg) {
    if (Failed)
      return;
    Failed = true;
    FailOffset = At;
    FailMessage = Msg.str();
  }
  uint64_t failOffset() const { return FailOffset; }
  const std::string &failMessage() const { return FailMessage; }

  // The check every field read makes: kept tiny so reads inline; the failure is out of line.
  bool need(size_t N, const char *What) {
    if (LLVM_LIKELY(!Failed && N <= Data.size() - Pos))
      return true;
    return truncated(N, What);
  }
  LLVM_ATTRIBUTE_NOINLINE bool truncated(size_t N, const char *What) {
    if (!Failed && N > left())
      fail(offset(), llvm::Twine("truncated ") + What);
    return false;
  }
  uint8_t u8(const char *What = "record") {
    if (!need(1, What))
      return 0;
    return static_cast<uint8_t>(Data[Pos++]);
  }
  uint32_t u32(const char *What = "record") {
    if (!need(4, What))
      return 0;
    uint32_t V = llvm::support::endian::read32le(Data.data() + Pos);
    Pos += 4;
    return V;
  }
  /// The next u32 without consuming it (0 when fewer than 4 bytes are left).
  uint32_t peekU32() const {
    return !Failed && left() >= 4 ? llvm::support::endian::read32le(Data.data() + Pos) : 0;
  }
  uint64_t u64(const char *What = "record") {
    if (!need(8, What))
      return 0;
    uint64_t V = llvm::support::endian::read64le(Data.data() + Pos);
    Pos += 8;
    return V;
  }
  /// The next N bytes of a fixed-size record, checked once (nullptr after a failure); the caller decodes
  /// them in place instead of checking every field.
  const char *take(size_t N, const char *What) {
    if (!need(N, What))
      return nullptr;
    const char *P = Data.data() + Pos;
    Pos += N;
    return P;
  }
  StringRef bytes(size_t N, const char *What) {
    if (!need(N, What))
      return {};
    StringRef S = Data.substr(Pos, N);
    Pos += N;
    return S;
  }
  void skipTo4() {
    size_t P = (Pos + 3) & ~size_t(3);
    Pos = P > Data.size() ? Data.size() : P;
  }
  /// Reads a count of records each at least MinSize bytes, refusing counts the data cannot hold.
  /// (Inlined, its failure out of line: read for every list of every ABI record, 17,000 times in a
  /// 100-module link, where the call cost as much as the read.)
  LLVM_ATTRIBUTE_ALWAYS_INLINE uint32_t count(size_t MinSize, const char *What) {
    uint32_t N = u32(What);
    if (LLVM_LIKELY(!Failed && uint64_t(N) * MinSize <= left()))
      return N;
    return countTooLarge(N, What);
  }
  LLVM_ATTRIBUTE_NOINLINE uint32_t countTooLarge(uint32_t N, const char *What) {
    if (!Failed)
      fail(offset() - 4, llvm::Twine("count of ") + What + " (" + llvm::Twine(N) + ") exceeds the data left");
    return 0;
  }

private:
  StringRef Data;
  uint64_t FileOffset;
  size_t Pos = 0;
  bool Failed = false;
  uint64_t FailOffset = 0;
  std::string FailMessage;
};

/// What the steps of VariantReader::readPlain share: a plain object's tables, found and shape-checked once,
/// and the map from ELF symbol index to model symbol that the symbol records build and the relocations read.
struct PlainTables {
  const ElfSectionHeader *Symtab = nullptr, *Sections = nullptr, *SymSide = nullptr, *Abi = nullptr,
                         *Files = nullptr, *Shndx = nullptr, // Shndx: null if the object has none
                         *Labels = nullptr;                  // null if the module records no labels
  ElfTable<ElfSymbol> ElfSymbols;
  size_t NumSections = 0;     // ELF sections
  size_t NSec = 0, NSym = 0;  // section and symbol records
  std::vector<uint32_t> ElfToModel;
};

class VariantReader {
public:
  /// Mapped: the file mapping Bytes lies in, when the reader should give back the pages of each table it
  /// has read (a large object, InputFiles.h's LargeObjectBytes); nullptr otherwise. Object (with Mapped):
  /// where the symbols' names are copied, so that `.strtab` can be given back too.
  VariantReader(StringRef File, StringRef Bytes, uint64_t Base, const llvm::MemoryBuffer *Mapped,
                ObjectFile *Object)
      : File(File), Bytes(Bytes), Base(Base), Mapped(Mapped), Object(Mapped ? Object : nullptr) {}

  /// Parses a plain object into V, or (if it is fat and AllowFat) each variant into Out.
  llvm::Error read(llvm::SmallVectorImpl<ModuleVariant> &Out, bool AllowFat);

private:
  StringRef File, Bytes;
  uint64_t Base; // offset of Bytes within the file, so messages give file offsets
  const llvm::MemoryBuffer *Mapped;
  ObjectFile *Object;
  std::optional<ElfView> View; // once readHeaders succeeded
  StringRef Strtab;
  /// The type ids of the parameter type strings read, by string table place ((offset << 32) | size, in
  /// a slot chosen by the offset): a module names its few types over and over, each once in the string
  /// table, and a lookup per parameter cost the 100-module link 4% of its instructions.
  struct TypeSeen {
    uint64_t Place = ~uint64_t(0);
    uint8_t Id = 0;
  };
  std::array<TypeSeen, 16> TypesSeen{};
  static size_t typeSlot(uint32_t Offset) { return (Offset * 0x9E3779B1u) >> 28; } // 16 slots

  llvm::Error err(uint64_t Offset, const llvm::Twine &Msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   File + ": offset 0x" + llvm::utohexstr(Base + Offset) + ": " + Msg);
  }
  llvm::Error cursorError(const Cursor &C) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   File + ": offset 0x" + llvm::utohexstr(C.failOffset()) + ": " +
                                       C.failMessage());
  }
  Cursor cursor(const ElfSectionHeader &H) const { return Cursor(data(H), Base + H.sh_offset); }
  StringRef data(const ElfSectionHeader &H) const { return View->contents(H); }
  /// Where header H lies in Bytes, for messages.
  uint64_t headerOffset(const ElfSectionHeader &H) const { return reinterpret_cast<const char *>(&H) - Bytes.data(); }
  size_t sectionCount() const { return View->sectionCount(); }
  /// The model keeps no view into these bytes (or only into pages it may fault back in): their pages
  /// can leave the process's memory.
  void release(StringRef Range) const {
    if (Mapped)
      releaseMappedPages(*Mapped, Range);
  }
  void release(const ElfSectionHeader *H) const {
    if (Mapped && H)
      release(data(*H));
  }
  /// For a table read front to back: gives back what lies between Released and Reached once that is a
  /// step's worth, and moves Released on. Without it a large object's tables stay resident until the
  /// whole table is read, beside the model built from them (10^6 functions: 128 MB of section headers
  /// and 96 MB of ABI records at once). A Reached behind Released (a table out of the writer's order)
  /// releases nothing.
  void releaseBehind(const char *&Released, const char *Reached) const {
    constexpr size_t Step = size_t(4) << 20;
    if (!Mapped || Reached < Released || size_t(Reached - Released) < Step)
      return;
    release(StringRef(Released, Reached - Released));
    Released = Reached - 4096; // releaseMappedPages keeps the page Reached lies in: the next step covers it
  }
  /// Where in Bytes the cursor stands.
  const char *at(const Cursor &C) const { return Bytes.data() + (C.offset() - Base); }
  /// How often (in records) a loop over a table's records calls releaseBehind.
  static constexpr uint32_t ReleaseEveryRecords = 4096;

  llvm::Error readHeaders(uint32_t &EFlags);
  llvm::Expected<const ElfSectionHeader *> unique(uint32_t Type, const char *What, bool Required = true);
  /// The section types unique() is asked for, found in one walk of the header table (findTables): seven
  /// walks touched a large object's whole table seven times (128 MB at 10^6 functions).
  static constexpr std::array<uint32_t, 8> TableTypes = {
      llvm::ELF::SHT_NOTE, llvm::ELF::SHT_SYMTAB, ShtSections, ShtSymbols, ShtAbi, ShtFiles,
      llvm::ELF::SHT_SYMTAB_SHNDX, ShtLabels};
  struct FoundTable { // value-initialized by findTables: no member initializers, which clang 14 refuses
    const ElfSectionHeader *First, *Second; // in a nested class's default constructor used in its class
  };
  std::optional<std::array<FoundTable, TableTypes.size()>> Tables;
  void findTables();
  StringRef str(Cursor &C, const char *What);
  /// The string [Offset, Offset + Length) of the string table, which must end in a NUL there; else the
  /// cursor fails with a message naming What at At. The check inline, the message out of line: a
  /// 3000-module link reads a million strings, and the call with the message's stack frame was 40
  /// instructions each (5% of the link's).
  LLVM_ATTRIBUTE_ALWAYS_INLINE StringRef strAt(Cursor &C, uint64_t At, uint32_t Offset, uint32_t Length,
                                               const char *What) {
    if (LLVM_LIKELY(C.ok() && uint64_t(Offset) + Length < Strtab.size() && Strtab[Offset + Length] == '\0'))
      return StringRef(Strtab.data() + Offset, Length);
    return strAtFailed(C, At, Offset, Length, What);
  }
  LLVM_ATTRIBUTE_NOINLINE StringRef strAtFailed(Cursor &C, uint64_t At, uint32_t Offset, uint32_t Length,
                                                const char *What);
  llvm::Error readNote(const ElfSectionHeader &H, ModuleVariant *V, uint32_t &Flags, uint32_t &Count);
  /// A plain (one-variant) object, in steps: its tables found and shape-checked, the symbol records (each
  /// with its ELF symbol), the section records (each with its relocations), the file records, the ABI
  /// records.
  llvm::Error readPlain(ModuleVariant &V);
  llvm::Expected<PlainTables> findPlainTables();
  llvm::Error readSymbolRecords(PlainTables &T, ModuleVariant &V);
  /// Symbol I's name, binding, value and size from its ELF symbol ElfIndex. (Inlined, as decodeRelocation:
  /// a step of a per-record loop, where a call cost 0.7% of a 100-module link's instructions.)
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error readElfSymbol(const PlainTables &T, ModuleVariant &V, size_t I, uint32_t ElfIndex, uint8_t Flags,
                            uint32_t NameLen, Cursor &C, const char *&StrtabReleased);
  void reserveRelocations(const PlainTables &T, ModuleVariant &V);
  llvm::Error readSectionRecords(const PlainTables &T, ModuleVariant &V);
  /// Section S's relocations from the SHT_RELA section R, appended to V's one table.
  llvm::Error readRelocations(const PlainTables &T, ModuleVariant &V, Section &S, const ElfSectionHeader &R);
  /// One relocation into Rel; Width: how many bytes of the section it covers.
  LLVM_ATTRIBUTE_ALWAYS_INLINE llvm::Error decodeRelocation(const PlainTables &T, const ModuleVariant &V,
                                                            const ElfRela &E, uint64_t EAt, Relocation &Rel,
                                                            uint64_t &Width);
  llvm::Error readFileRecords(const ElfSectionHeader &Files, ModuleVariant &V);
  /// The label records (ModuleVariant::PlainLabel), each checked against the section it names.
  llvm::Error readLabelRecords(const ElfSectionHeader &Labels, ModuleVariant &V);
  llvm::Error readFat(llvm::SmallVectorImpl<ModuleVariant> &Out, uint32_t Count);
  /// Appends a parameter list to Out (a prototype's list, or the variant's table of function parameters).
  /// Most: the longest list the record holds (FunctionAbi's counts are bit-fields); What names it.
  template <typename List>
  void readParams(Cursor &C, List &Out, size_t NSym, uint32_t Most = UINT32_MAX, const char *What = "parameters");
  template <typename StringVector> void readStrings(Cursor &C, StringVector &Out, const char *What);
  void readAbi(Cursor &C, ModuleVariant &V);
};

llvm::Error VariantReader::readHeaders(uint32_t &EFlags) {
  using namespace llvm::ELF;
  if (Bytes.size() < sizeof(ElfHeader))
    return err(0, "file too small for an ELF header (" + llvm::Twine(Bytes.size()) + " bytes)");
  const auto &H = *reinterpret_cast<const ElfHeader *>(Bytes.data());
  if (!Bytes.starts_with(ElfMagic))
    return err(0, "not an ELF file");
  if (H.e_ident[EI_CLASS] != ELFCLASS64 || H.e_ident[EI_DATA] != ELFDATA2LSB)
    return err(EI_CLASS, "not a 64-bit little-endian ELF file");
  if (H.e_ident[EI_VERSION] != EV_CURRENT)
    return err(EI_VERSION, "unknown ELF version");
  const uint8_t Abi = H.e_ident[EI_OSABI], FormatVersion = H.e_ident[EI_ABIVERSION];
  if (Abi != OsAbi)
    return err(EI_OSABI, "not a ptxlink object (EI_OSABI 0x" + llvm::utohexstr(Abi) +
                             (Abi == nvelf::ELFOSABI_CUDA_V2 || Abi == ELFOSABI_CUDA ? ", an NVIDIA cubin)" : ")"));
  if (FormatVersion > ObjectFormatVersion)
    return err(EI_ABIVERSION, "object format version " + llvm::Twine(FormatVersion) +
                                  " is newer than this reader (" + llvm::Twine(ObjectFormatVersion) + ")");
  if (FormatVersion < OldestObjectFormatVersion)
    return err(EI_ABIVERSION, olderVersion(FormatVersion));
  if (H.e_type != ET_REL)
    return err(offsetof(ElfHeader, e_type), "not a relocatable ELF file (e_type " + llvm::Twine(H.e_type) + ")");
  if (H.e_machine != EM_CUDA)
    return err(offsetof(ElfHeader, e_machine), "e_machine is " + llvm::Twine(H.e_machine) + ", not EM_CUDA (190)");
  EFlags = H.e_flags;
  // Version 1 marked a fat object with bit 0, where NVIDIA's SM number now sits: normalise.
  if (FormatVersion < 2)
    EFlags = (EFlags & FlagFatV1) ? FlagFat : 0;
  if (H.e_ehsize != sizeof(ElfHeader))
    return err(offsetof(ElfHeader, e_ehsize), "unexpected e_ehsize");
  if (H.e_shentsize != sizeof(ElfSectionHeader))
    return err(offsetof(ElfHeader, e_shentsize), "unexpected e_shentsize " + llvm::Twine(H.e_shentsize));
  if (H.e_shoff == 0)
    return err(offsetof(ElfHeader, e_shoff), "no section headers");
  // Our writer writes the whole table and every section: the first problem the view finds is the error.
  std::optional<std::pair<uint64_t, std::string>> Problem;
  // A large object's headers are given back as the view checks them (release: nothing otherwise): the
  // sections walk reads each again, and gives it back again behind itself.
  View = ElfView::open(
      Bytes, ElfView::TablePolicy::Whole,
      [&](uint64_t At, const llvm::Twine &Message) {
        if (!Problem)
          Problem.emplace(At, Message.str());
      },
      [&](StringRef Checked) { release(Checked); });
  if (Problem)
    return err(Problem->first, Problem->second);
  if (View->sectionCount() == 0)
    return err(offsetof(ElfHeader, e_shnum), "no section headers");
  return llvm::Error::success();
}

void VariantReader::findTables() {
  Tables.emplace();
  const char *Released = nullptr;
  for (size_t I = 0, N = sectionCount(); I < N; ++I) {
    const ElfSectionHeader &H = View->section(I);
    if (!Released)
      Released = reinterpret_cast<const char *>(&H);
    if (I % ReleaseEveryRecords == 0)
      releaseBehind(Released, reinterpret_cast<const char *>(&H));
    // Nearly every section is a content section or its relocations, of no type looked for here.
    if (H.sh_type == llvm::ELF::SHT_PROGBITS || H.sh_type == llvm::ELF::SHT_RELA)
      continue;
    for (size_t T = 0; T < TableTypes.size(); ++T)
      if (H.sh_type == TableTypes[T]) {
        FoundTable &F = (*Tables)[T];
        if (!F.First)
          F.First = &H;
        else if (!F.Second)
          F.Second = &H; // the first duplicate is the one unique() reports
      }
  }
}

llvm::Expected<const ElfSectionHeader *> VariantReader::unique(uint32_t Type, const char *What, bool Required) {
  const auto *It = std::find(TableTypes.begin(), TableTypes.end(), Type);
  assert(It != TableTypes.end() && "unique() is asked only for the tables findTables looks for");
  if (!Tables)
    findTables();
  const FoundTable &F = (*Tables)[It - TableTypes.begin()];
  if (F.Second)
    return err(headerOffset(*F.Second), llvm::Twine("more than one ") + What + " section");
  if (!F.First && Required)
    return err(0, llvm::Twine("missing ") + What + " section");
  return F.First;
}

StringRef VariantReader::strAtFailed(Cursor &C, uint64_t At, uint32_t Offset, uint32_t Length, const char *What) {
  if (!C.ok())
    return {};
  if (uint64_t(Offset) + Length >= Strtab.size()) {
    C.fail(At, llvm::Twine(What) + " string (offset " + llvm::Twine(Offset) + ", length " + llvm::Twine(Length) +
                   ") outside the string table");
    return {};
  }
  if (Strtab[Offset + Length] != '\0') {
    C.fail(At, llvm::Twine(What) + " string is not NUL-terminated");
    return {};
  }
  return Strtab.substr(Offset, Length);
}

StringRef VariantReader::str(Cursor &C, const char *What) {
  uint64_t At = C.offset();
  uint32_t Offset = C.u32(What);
  uint32_t Length = C.u32(What);
  return strAt(C, At, Offset, Length, What);
}

llvm::Error VariantReader::readNote(const ElfSectionHeader &H, ModuleVariant *V, uint32_t &Flags, uint32_t &Count) {
  Cursor C = cursor(H);
  uint32_t NameSize = C.u32("note"), DescSize = C.u32("note"), Type = C.u32("note");
  StringRef Owner = C.bytes(NameSize, "note name");
  C.skipTo4();
  if (!C.ok())
    return cursorError(C);
  if (Owner != StringRef(NoteOwner, sizeof(NoteOwner)) || Type != NoteType)
    return err(H.sh_offset, "the .note.ptxlink note is not a ptxlink module note");
  uint64_t DescAt = C.offset() - Base;
  StringRef DescBytes = C.bytes(DescSize, "note descriptor");
  if (!C.ok())
    return cursorError(C);
  Cursor D(DescBytes, Base + DescAt);
  uint32_t Version = D.u32("note");
  Flags = D.u32("note");
  uint32_t Major = D.u32("note"), Minor = D.u32("note"), AddressSize = D.u32("note");
  Count = D.u32("note");
  auto nstr = [&D]() {
    uint32_t Len = D.u32("note string");
    StringRef S = D.bytes(Len, "note string");
    D.skipTo4();
    return S;
  };
  StringRef Arch = nstr(), Texmode = nstr(), Source = nstr();
  uint32_t NOptions = D.count(4, "target options");
  decltype(TargetInfo::Options) Options;
  Options.reserve(NOptions);
  for (uint32_t I = 0; I < NOptions && D.ok(); ++I)
    Options.push_back(nstr());
  if (!D.ok())
    return cursorError(D);
  if (Version == 0 || Version > ObjectFormatVersion)
    return err(DescAt, "object format version " + llvm::Twine(Version) + " is not supported (this reader: " +
                           llvm::Twine(ObjectFormatVersion) + ")");
  if (Version < OldestObjectFormatVersion)
    return err(DescAt, olderVersion(Version));
  if (V) {
    V->SourceName = Source;
    TargetInfo &T = V->Target;
    T.VersionMajor = Major;
    T.VersionMinor = Minor;
    T.Arch = Arch;
    T.Options = std::move(Options);
    T.Debug = Flags & NoteDebug;
    T.MapF64ToF32 = Flags & NoteMapF64;
    T.Texmode = Texmode;
    T.AddressSize = AddressSize;
    T.AddressSizeGiven = Flags & NoteAddressSizeGiven;
  }
  return llvm::Error::success();
}

template <typename StringVector>
void VariantReader::readStrings(Cursor &C, StringVector &Out, const char *What) {
  uint32_t N = C.count(8, What);
  Out.reserve(N);
  for (uint32_t I = 0; I < N && C.ok(); ++I)
    Out.push_back(str(C, What));
}

bool validSpace(uint8_t S) { return S <= static_cast<uint8_t>(StateSpace::Generic); }

template <typename List>
void VariantReader::readParams(Cursor &C, List &Out, size_t NSym, uint32_t Most, const char *What) {
  using llvm::support::endian::read32le;
  // Fixed part: space, width, flags, pointer space (1 byte each), type (offset, length), align, pointer
  // align, name (offset, length), line, column: 36 bytes; then the count of array dimensions.
  constexpr size_t Fixed = 36, MinParam = Fixed + 4;
  uint64_t CountAt = C.offset();
  uint32_t N = C.count(MinParam, "parameters");
  const size_t First = Out.size();
  if (C.ok() && N > Most) {
    C.fail(CountAt, llvm::Twine("function ABI record has ") + llvm::Twine(N) + " " + What + " (at most " +
                        llvm::Twine(Most) + " are supported)");
    return;
  }
  if (C.ok() && First + uint64_t(N) > UINT32_MAX) { // function records hold 32-bit table positions
    C.fail(CountAt, "too many parameters in the module's ABI records");
    return;
  }
  Out.resize(First + N);
  for (uint32_t I = 0; I < N && C.ok(); ++I) {
    ParamInfo &P = Out[First + I];
    uint64_t At = C.offset();
    const char *R = C.take(Fixed, "parameter record");
    if (!R)
      break;
    uint8_t Space = uint8_t(R[0]), Width = uint8_t(R[1]), Flags = uint8_t(R[2]), PtrSpace = uint8_t(R[3]);
    if (!validSpace(Space) || !validSpace(PtrSpace))
      C.fail(At, "invalid state space in parameter record");
    P.Space = static_cast<StateSpace>(Space);
    P.VectorWidth = Width;
    P.UnsizedArray = Flags & 1;
    P.IsPtr = Flags & 2;
    P.PtrSpace = static_cast<StateSpace>(PtrSpace);
    const uint32_t TypeOffset = read32le(R + 4), TypeSize = read32le(R + 8);
    const uint64_t Place = (uint64_t(TypeOffset) << 32) | TypeSize;
    TypeSeen &Seen = TypesSeen[typeSlot(TypeOffset)];
    if (Seen.Place == Place) {
      P.setTypeId(Seen.Id);
    } else {
      StringRef Type = strAt(C, At + 4, TypeOffset, TypeSize, "parameter type");
      if (!P.setType(Type) && !Type.empty() && C.ok())
        C.fail(At + 4, "parameter type '" + Type.take_front(32) + "' is no PTX type");
      if (C.ok())
        Seen = {Place, P.typeId()};
    }
    P.Align = read32le(R + 12);
    P.PtrAlign = read32le(R + 16);
    P.setName(strAt(C, At + 20, read32le(R + 20), read32le(R + 24), "parameter name"));
    P.Where.Line = read32le(R + 28);
    P.Where.Column = read32le(R + 32);
    uint32_t NDims = C.count(8, "array dimensions");
    for (uint32_t D = 0; D < NDims && C.ok(); ++D)
      P.ArrayDims.push_back(C.u64());
  }
}

void VariantReader::readAbi(Cursor &C, ModuleVariant &V) {
  const size_t NSym = V.Symbols.size();
  auto symbol = [&](const char *What, bool AllowNone) {
    uint64_t At = C.offset();
    uint32_t S = C.u32(What);
    if (C.ok() && S >= NSym && !(AllowNone && S == NoSymbol))
      C.fail(At, llvm::Twine(What) + " refers to symbol " + llvm::Twine(S) + " of " + llvm::Twine(NSym));
    return S;
  };
  uint64_t At = C.offset();
  uint32_t Version = C.u32("ABI header");
  if (C.ok() && Version != AbiVersion) {
    C.fail(At, "ABI table version " + llvm::Twine(Version) + " is not supported");
    return;
  }
  uint32_t NFunc = C.u32("ABI header"), NVar = C.u32("ABI header"), NProto = C.u32("ABI header");
  constexpr uint64_t MinFunc = 96, MinVar = 36, MinProto = 44;
  // A header cut short leaves the counts read so far unchecked: nothing is sized from them (a truncated
  // section whose first count was 0xf8000001 made a 62 GB table; CI's fuzz pass, object target).
  if (!C.ok())
    return;
  if (uint64_t(NFunc) * MinFunc + uint64_t(NVar) * MinVar + uint64_t(NProto) * MinProto > C.left()) {
    C.fail(At, "ABI record counts exceed the section size");
    return;
  }
  V.Functions.resize(NFunc);
  // The functions' parameter lists all go into V.Params, whose final size is known only at the end: it is
  // reserved once for the most the section can hold (each parameter takes at least 40 bytes beyond the
  // records' minimal sizes), rather than grown by doubling, which moved every parameter read so far (a
  // sixth of a 100-module link's instructions went into reading these tables). Reserved, not touched: only
  // what is read takes pages. At most 2^20 parameters ahead (a hostile section of attribute strings would
  // otherwise reserve twice its size); past that the table grows as before.
  const uint64_t Slack = C.left() - (uint64_t(NFunc) * MinFunc + uint64_t(NVar) * MinVar + uint64_t(NProto) * MinProto);
  V.Params.reserve(V.Params.size() + size_t(std::min<uint64_t>(Slack / 40, uint64_t(1) << 20)));
  using llvm::support::endian::read32le;
  const char *Released = at(C); // a large object gives back the records read (releaseBehind)
  for (uint32_t I = 0; I < NFunc && C.ok(); ++I) {
    if (Mapped && I % ReleaseEveryRecords == 0)
      releaseBehind(Released, at(C));
    FunctionAbi &F = V.Functions[I];
    F.Symbol = symbol("function ABI record", true);
    // Fixed parts, each bounds-checked once: flags, (pad), preserve counts; later the tuning block.
    const char *Head = C.take(12, "function ABI record");
    if (!Head)
      break;
    uint8_t Flags = uint8_t(Head[0]);
    F.IsKernel = Flags & 1;
    F.HasBody = Flags & 2;
    F.NoReturn = Flags & 4;
    uint32_t Preserve = read32le(Head + 4), PreserveControl = read32le(Head + 8);
    F.ParamBegin = static_cast<uint32_t>(V.Params.size());
    readParams(C, V.Params, NSym, MaxFunctionReturns, "return values");
    F.ReturnCount = static_cast<uint32_t>(V.Params.size() - F.ParamBegin);
    readParams(C, V.Params, NSym, MaxFunctionParams, "parameters");
    F.ParamCount = static_cast<uint32_t>(V.Params.size() - F.ParamBegin - F.ReturnCount);
    StringList Attributes;
    readStrings(C, Attributes, "attributes");
    if (!Attributes.empty())
      V.editTuning(F).Attributes = std::move(Attributes);
    // Tuning: presence bits, .maxnreg, three triples, three counts.
    const char *Tune = C.take(56, "function ABI record");
    if (!Tune)
      break;
    uint32_t Present = read32le(Tune);
    // Nearly every function has no tuning directive: keep nothing for it (FunctionAbi::Extra).
    TuningInfo NoTuning;
    bool HasPragmas = C.ok() && C.peekU32() != 0;
    TuningInfo &T = (Present & 0x1ff) || HasPragmas || (Flags & 24) ? V.editTuning(F) : NoTuning;
    if (Flags & 8)
      T.AbiPreserve = Preserve;
    if (Flags & 16)
      T.AbiPreserveControl = PreserveControl;
    uint32_t MaxNReg = read32le(Tune + 4);
    if (Present & 1)
      T.MaxNReg = MaxNReg;
    std::optional<std::array<uint32_t, 3>> *Triples[] = {&T.MaxNTid, &T.ReqNTid, &T.ReqNCtaPerCluster};
    for (int K = 0; K < 3; ++K)
      if (Present & (2u << K))
        *Triples[K] = std::array<uint32_t, 3>{read32le(Tune + 8 + 12 * K), read32le(Tune + 12 + 12 * K),
                                              read32le(Tune + 16 + 12 * K)};
    uint32_t MinCta = read32le(Tune + 44), MaxCta = read32le(Tune + 48), MaxRank = read32le(Tune + 52);
    if (Present & 16)
      T.MinNCtaPerSm = MinCta;
    if (Present & 32)
      T.MaxNCtaPerSm = MaxCta;
    if (Present & 64)
      T.MaxClusterRank = MaxRank;
    T.ExplicitCluster = Present & 128;
    T.BlocksAreClusters = Present & 256;
    readStrings(C, T.Pragmas, "pragmas");
    Loc Where;
    Where.Line = C.u32();
    Where.Column = C.u32();
    V.setFunctionWhere(F, Where); // nothing kept when it is its symbol's, as the tools write it
  }
  V.Variables.resize(C.ok() ? NVar : 0);
  for (uint32_t I = 0; I < NVar && C.ok(); ++I) {
    VariableAbi &Var = V.Variables[I];
    Var.Symbol = symbol("variable ABI record", true);
    uint64_t SpaceAt = C.offset();
    uint8_t Space = C.u8(), Width = C.u8(), Flags = C.u8();
    C.u8();
    if (C.ok() && !validSpace(Space))
      C.fail(SpaceAt, "invalid state space in variable record");
    Var.Space = static_cast<StateSpace>(Space);
    Var.VectorWidth = Width;
    Var.UnsizedArray = Flags & 1;
    Var.Initialized = Flags & 2;
    Var.Type = str(C, "variable type");
    Var.Align = C.u32();
    uint32_t NDims = C.count(8, "array dimensions");
    for (uint32_t D = 0; D < NDims && C.ok(); ++D)
      Var.ArrayDims.push_back(C.u64());
    readStrings(C, Var.Attributes, "attributes");
    Var.Where.Line = C.u32();
    Var.Where.Column = C.u32();
  }
  llvm::MutableArrayRef<PrototypeAbi> Protos; // most modules have none: no rare tables made
  if (NProto && C.ok()) {
    V.rare().Prototypes.resize(NProto);
    Protos = V.rare().Prototypes;
  }
  for (uint32_t I = 0; I < NProto && C.ok(); ++I) {
    PrototypeAbi &P = Protos[I];
    P.Label = str(C, "prototype label");
    P.Function = symbol("prototype record", true);
    uint8_t Flags = C.u8();
    C.u8(), C.u8(), C.u8();
    P.NoReturn = Flags & 1;
    uint32_t Preserve = C.u32(), PreserveControl = C.u32();
    if (Flags & 2)
      P.AbiPreserve = Preserve;
    if (Flags & 4)
      P.AbiPreserveControl = PreserveControl;
    readParams(C, P.Returns, NSym);
    readParams(C, P.Params, NSym);
    uint32_t NTargets = C.count(4, "call targets");
    P.CallTargets.reserve(NTargets);
    for (uint32_t T = 0; T < NTargets && C.ok(); ++T)
      P.CallTargets.push_back(symbol("call target", false));
    P.Where.Line = C.u32();
    P.Where.Column = C.u32();
  }
  if (C.ok() && !C.atEnd())
    C.fail(C.offset(), "unexpected bytes after the ABI records");
}

llvm::Expected<PlainTables> VariantReader::findPlainTables() {
  using llvm::ELF::SHT_STRTAB;
  PlainTables T;
  T.NumSections = sectionCount();
  auto SymtabH = unique(llvm::ELF::SHT_SYMTAB, ".symtab");
  if (!SymtabH)
    return SymtabH.takeError();
  T.Symtab = *SymtabH;
  const ElfSectionHeader &Symtab = *T.Symtab;
  // Our writer's table shapes, exactly: the view then needs no further check.
  if (Symtab.sh_entsize != sizeof(ElfSymbol) || Symtab.sh_size % sizeof(ElfSymbol) || Symtab.sh_size == 0)
    return err(headerOffset(Symtab), "malformed .symtab (entry size or section size)");
  if (Symtab.sh_link >= T.NumSections || View->section(Symtab.sh_link).sh_type != SHT_STRTAB)
    return err(headerOffset(Symtab), ".symtab's sh_link is not a string table");
  const ElfSectionHeader &StrH = View->section(Symtab.sh_link);
  Strtab = data(StrH);
  TypesSeen = {}; // places in another string table
  if (Strtab.empty() || Strtab.back() != '\0')
    return err(headerOffset(StrH), "string table is empty or not NUL-terminated");
  T.ElfSymbols = View->table<ElfSymbol>(Symtab, ".symtab", [](uint64_t, const llvm::Twine &) {});

  auto Sections = unique(ShtSections, ".ptxlink.sections");
  auto SymSide = unique(ShtSymbols, ".ptxlink.symbols");
  auto Abi = unique(ShtAbi, ".ptxlink.abi");
  auto Files = unique(ShtFiles, ".ptxlink.files");
  for (auto *E : {&Sections, &SymSide, &Abi, &Files})
    if (!*E)
      return E->takeError();
  T.Sections = *Sections, T.SymSide = *SymSide, T.Abi = *Abi, T.Files = *Files;
  if (T.Sections->sh_size % SectionRecordSize)
    return err(headerOffset(*T.Sections), ".ptxlink.sections size is not a multiple of the record size");
  if (T.SymSide->sh_size % SymbolRecordSize)
    return err(headerOffset(*T.SymSide), ".ptxlink.symbols size is not a multiple of the record size");
  if (T.Files->sh_size % FileRecordSize)
    return err(headerOffset(*T.Files), ".ptxlink.files size is not a multiple of the record size");
  T.NSec = T.Sections->sh_size / SectionRecordSize;
  T.NSym = T.SymSide->sh_size / SymbolRecordSize;
  if (T.NSym > T.ElfSymbols.size())
    return err(headerOffset(*T.SymSide), "more symbol records than ELF symbols");

  auto ShndxTable = unique(llvm::ELF::SHT_SYMTAB_SHNDX, ".symtab_shndx", /*Required=*/false);
  if (!ShndxTable)
    return ShndxTable.takeError();
  T.Shndx = *ShndxTable;
  if (T.Shndx && T.Shndx->sh_size != T.ElfSymbols.size() * 4)
    return err(headerOffset(*T.Shndx), ".symtab_shndx does not have one entry per symbol");
  auto LabelsTable = unique(ShtLabels, ".ptxlink.labels", /*Required=*/false);
  if (!LabelsTable)
    return LabelsTable.takeError();
  T.Labels = *LabelsTable;
  if (T.Labels && T.Labels->sh_size % LabelRecordSize)
    return err(headerOffset(*T.Labels), ".ptxlink.labels size is not a multiple of the record size");
  return T;
}

llvm::Error VariantReader::readSymbolRecords(PlainTables &T, ModuleVariant &V) {
  using namespace llvm::support::endian;
  // Symbols: ELF fields through the side table, which fixes the model order.
  const uint64_t NElf = T.ElfSymbols.size();
  T.ElfToModel.assign(NElf, NoSymbol);
  V.Symbols.resize(T.NSym);
  Cursor C = cursor(*T.SymSide);
  const char *StrtabReleased = Strtab.data();
  for (size_t I = 0; I < T.NSym && C.ok(); ++I) {
    // A fixed 32-byte record, bounds-checked once: ELF index, kind, space, flags, (pad), section,
    // alignment, aliasee, name length, line, column.
    uint64_t At = C.offset();
    const char *R = C.take(SymbolRecordSize, "symbol record");
    if (!R)
      break;
    uint32_t ElfIndex = read32le(R);
    uint8_t Kind = uint8_t(R[4]), Space = uint8_t(R[5]), Flags = uint8_t(R[6]);
    Symbol &S = V.Symbols[I];
    S.Section = read32le(R + 8);
    const uint32_t Align = read32le(R + 12), AliasOf = read32le(R + 16);
    uint32_t NameLen = read32le(R + 20);
    S.Where.Line = read32le(R + 24);
    S.Where.Column = read32le(R + 28);
    if (ElfIndex == 0 || ElfIndex >= NElf)
      return err(At - Base, "symbol record " + llvm::Twine(I) + " refers to ELF symbol " + llvm::Twine(ElfIndex));
    if (T.ElfToModel[ElfIndex] != NoSymbol)
      return err(At - Base, "two symbol records refer to ELF symbol " + llvm::Twine(ElfIndex));
    T.ElfToModel[ElfIndex] = static_cast<uint32_t>(I);
    if (Kind > static_cast<uint8_t>(SymbolKind::Section) || !validSpace(Space))
      return err(At - Base + 4, "invalid symbol kind or state space");
    if (NameLen > MaxSymbolNameBytes) // Symbol keeps a 24-bit length
      return err(At - Base + 20, "symbol name of " + llvm::Twine(NameLen) + " bytes (at most " +
                                     llvm::Twine(MaxSymbolNameBytes) + " are supported)");
    if (S.Section != NoSection && S.Section >= T.NSec)
      return err(At - Base + 8, "symbol refers to section " + llvm::Twine(S.Section) + " of " + llvm::Twine(T.NSec));
    // The model keeps an alignment as its log2 (Symbol), and every producer makes one a power of two.
    if (Align & (Align - 1))
      return err(At - Base + 12, "symbol alignment " + llvm::Twine(Align) + " is not a power of two");
    S.setAlign(Align);
    if (AliasOf != NoSymbol && AliasOf >= T.NSym)
      return err(At - Base + 16, "alias refers to symbol " + llvm::Twine(AliasOf));
    if (AliasOf != NoSymbol)
      V.setAliasOf(static_cast<uint32_t>(I), AliasOf);
    S.Kind = static_cast<SymbolKind>(Kind);
    S.Space = static_cast<StateSpace>(Space);
    S.Initialized = Flags & SymInitialized;
    if (llvm::Error E = readElfSymbol(T, V, I, ElfIndex, Flags, NameLen, C, StrtabReleased))
      return E;
  }
  if (!C.ok())
    return cursorError(C);
  return llvm::Error::success();
}

llvm::Error VariantReader::readElfSymbol(const PlainTables &T, ModuleVariant &V, size_t I, uint32_t ElfIndex,
                                         uint8_t Flags, uint32_t NameLen, Cursor &C, const char *&StrtabReleased) {
  using namespace llvm::ELF;
  Symbol &S = V.Symbols[I];
  const ElfSymbol &E = T.ElfSymbols[ElfIndex];
  const uint64_t EAt = T.ElfSymbols.offsetOf(ElfIndex);
  const uint16_t Shndx = E.st_shndx;
  S.setName(strAt(C, Base + EAt, E.st_name, NameLen, "symbol name"));
  if (!C.ok())
    return llvm::Error::success(); // the caller reports the cursor's failure
  // A large object's names are copied (8 bytes each for 10^6 small functions): resolution and emit
  // read every name again, and in place they kept `.strtab` resident (19 MB at 10^6, section names
  // included) after the rest of the file was given back.
  if (Object) {
    S.setName(Object->saveName(S.name()));
    // The names lie in symbol order in `.strtab`: what lies behind them goes back as the walk passes
    // (the section names before them are read again by the sections walk, from the file).
    if (I % ReleaseEveryRecords == 0)
      releaseBehind(StrtabReleased, Strtab.data() + E.st_name);
  }
  const uint8_t Bind = E.getBinding();
  if (Shndx == SHN_XINDEX && !T.Shndx)
    return err(EAt + offsetof(ElfSymbol, st_shndx),
               "symbol '" + S.name() + "' uses SHN_XINDEX but there is no SHT_SYMTAB_SHNDX section");
  if (Shndx >= T.NumSections && Shndx != SHN_ABS && Shndx != SHN_COMMON && Shndx != SHN_XINDEX)
    return err(EAt + offsetof(ElfSymbol, st_shndx), "symbol '" + S.name() + "' has section index " + llvm::Twine(Shndx));
  if (Bind == STB_LOCAL)
    S.Bind = Binding::Local;
  else if (Bind == STB_WEAK)
    S.Bind = Binding::Weak;
  else if (Bind != STB_GLOBAL)
    return err(EAt + offsetof(ElfSymbol, st_info), "symbol '" + S.name() + "' has unknown binding " + llvm::Twine(Bind));
  else if (Shndx == SHN_UNDEF)
    S.Bind = Binding::Undefined;
  else if (Shndx == SHN_COMMON || (Flags & SymInitializedCommon))
    S.Bind = Binding::Common;
  else
    S.Bind = Binding::Global;
  // A label's offset and a variable's size share one field of the model (ObjectModel.h): our writer
  // gives no other kind a value or a size, and one that has them is refused, not dropped. st_value is
  // the alignment for SHN_COMMON, and an alias's is its aliasee's (the model keeps only the link).
  const bool ValueIsPlace = Shndx != SHN_COMMON && !(S.Section == NoSection && V.aliasOf(I) != NoSymbol);
  const uint64_t Value = E.st_value, Size = E.st_size;
  if (S.Kind == SymbolKind::Label) {
    if (ValueIsPlace && Value > MaxSymbolValue) // Symbol keeps 48 bits; a section is below 4 GiB anyway
      return err(EAt + offsetof(ElfSymbol, st_value), "label '" + S.name() + "' has value " + llvm::Twine(Value) +
                                                          " (at most " + llvm::Twine(MaxSymbolValue) + " is supported)");
    if (ValueIsPlace)
      S.setValue(Value);
  } else if (ValueIsPlace && Value != 0) {
    return err(EAt + offsetof(ElfSymbol, st_value), "symbol '" + S.name() + "' has value " + llvm::Twine(Value) +
                                                        ": only a label has one");
  }
  if (S.Kind == SymbolKind::Variable && Size > MaxSymbolValue) // Symbol keeps 48 bits
    return err(EAt + offsetof(ElfSymbol, st_size), "variable '" + S.name() + "' has size " + llvm::Twine(Size) +
                                                       " (at most " + llvm::Twine(MaxSymbolValue) + " is supported)");
  if (S.Kind == SymbolKind::Variable)
    S.setSize(Size);
  else if (Size != 0)
    return err(EAt + offsetof(ElfSymbol, st_size),
               "symbol '" + S.name() + "' has size " + llvm::Twine(Size) + ": only a variable has one");
  return llvm::Error::success();
}

void VariantReader::reserveRelocations(const PlainTables &T, ModuleVariant &V) {
  // One table sized once: at most every SHT_RELA section's entries (those of the plain object's
  // sections, in section order).
  uint64_t MostRelocs = 0;
  const char *Released = T.NumSections ? reinterpret_cast<const char *>(&View->section(0)) : nullptr;
  for (size_t I = 1; I < T.NumSections; ++I) {
    const ElfSectionHeader &H = View->section(I);
    if (H.sh_type == llvm::ELF::SHT_RELA && H.sh_entsize == sizeof(ElfRela))
      MostRelocs += H.sh_size / sizeof(ElfRela);
    if (I % ReleaseEveryRecords == 0) // a large object's headers: read again below, one at a time
      releaseBehind(Released, reinterpret_cast<const char *>(&H));
  }
  V.Relocs.reserve(std::min<uint64_t>(MostRelocs, UINT32_MAX));
}

llvm::Error VariantReader::readSectionRecords(const PlainTables &T, ModuleVariant &V) {
  using namespace llvm::support::endian;
  // A large object gives back, as the reader passes them, the section records, the section headers, the
  // sections' contents (the text faults back in when printed) and their relocations: in our writer's
  // layout each lies in file order, the relocations after all the contents.
  V.Sections.resize(T.NSec);
  Cursor C = cursor(*T.Sections);
  const char *RecordsReleased = at(C), *HeadersReleased = nullptr, *DataReleased = nullptr;
  const char *NamesReleased = Strtab.data(); // the section names, in section order in `.strtab`
  const char *RelocsReleased = nullptr, *RelocsReached = nullptr; // the relocations, after all contents
  for (size_t I = 0; I < T.NSec && C.ok(); ++I) {
    // A fixed 40-byte record, bounds-checked once: content section, relocation section, kind, (pad),
    // symbol, header length, name (offset, length), line, column, (reserved).
    uint64_t At = C.offset() - Base;
    const char *Rec = C.take(SectionRecordSize, "section record");
    if (!Rec)
      break;
    uint32_t Content = read32le(Rec), Rela = read32le(Rec + 4);
    uint8_t Kind = uint8_t(Rec[8]), SecFlags = uint8_t(Rec[9]);
    Section &S = V.Sections[I];
    S.Symbol = read32le(Rec + 12);
    S.HeaderLength = read32le(Rec + 16);
    const llvm::StringRef Name = strAt(C, At + Base + 20, read32le(Rec + 20), read32le(Rec + 24), "section name");
    const Loc Where{read32le(Rec + 28), read32le(Rec + 32)};
    if (!C.ok())
      break;
    if (Content == 0 || Content >= T.NumSections || View->section(Content).sh_type != llvm::ELF::SHT_PROGBITS)
      return err(At, "section record " + llvm::Twine(I) + " refers to ELF section " + llvm::Twine(Content));
    if (Kind > static_cast<uint8_t>(SectionKind::Module))
      return err(At + 8, "invalid section kind " + llvm::Twine(Kind));
    if (S.Symbol != NoSymbol && S.Symbol >= T.NSym)
      return err(At + 12, "section refers to symbol " + llvm::Twine(S.Symbol));
    S.Kind = static_cast<SectionKind>(Kind);
    if (SecFlags & ~SecHasOdrHash)
      return err(At + 9, "unknown section record flags 0x" + llvm::utohexstr(SecFlags));
    if (SecFlags & SecHasOdrHash) {
      if (S.Kind != SectionKind::Function && S.Kind != SectionKind::Variable)
        return err(At + 9, "an ODR hash on a section that is no function or variable");
      V.facts().OdrHashes.push_back({uint32_t(I), read64le(Rec + 40)});
    }
    // Our writer gives a function's or variable's section its symbol's name and place; a record with
    // another name or place is kept as read (in SectionLabels), as before sections took theirs from
    // their symbol.
    if (!V.labelSection(S, Name, Where))
      return err(At + 20, "section record " + llvm::Twine(I) + ": more than " + llvm::Twine(MaxSectionLabels) +
                              " sections are named apart from their symbols");
    // Section keeps a 32-bit size: a larger section is refused (at its header's sh_size) before anything
    // truncates it.
    const ElfSectionHeader &Contents = View->section(Content);
    if (Contents.sh_size > MaxSectionBytes)
      return err(headerOffset(Contents) + 0x20,
                 "section record " + llvm::Twine(I) + " refers to ELF section " + llvm::Twine(Content) + " of " +
                     llvm::Twine(uint64_t(Contents.sh_size)) + " bytes: a section must be below 4 GiB");
    S.setContents(data(Contents));
    if (Mapped && I % ReleaseEveryRecords == 0) {
      const char *Header = reinterpret_cast<const char *>(&View->section(Content));
      if (I == 0) {
        HeadersReleased = Header;
        DataReleased = S.contents().data();
      }
      releaseBehind(RecordsReleased, Rec);
      releaseBehind(HeadersReleased, Header);
      releaseBehind(DataReleased, S.contents().data());
      if (RelocsReleased)
        releaseBehind(RelocsReleased, RelocsReached);
      if (Object && !Name.empty() && Name.data() >= Strtab.data() && Name.data() < Strtab.data() + Strtab.size())
        releaseBehind(NamesReleased, Name.data());
    }
    if (S.HeaderLength > S.contents().size())
      return err(At + 16, "header length exceeds the section size");
    V.startRelocs(S);
    if (Rela == 0)
      continue;
    if (Rela >= T.NumSections || View->section(Rela).sh_type != llvm::ELF::SHT_RELA ||
        View->section(Rela).sh_info != Content)
      return err(At + 4, "section record " + llvm::Twine(I) + " names ELF section " + llvm::Twine(Rela) +
                             " as its relocations, which is not a matching SHT_RELA section");
    if (llvm::Error E = readRelocations(T, V, S, View->section(Rela)))
      return E;
    if (Mapped) {
      RelocsReached = data(View->section(Rela)).data();
      if (!RelocsReleased)
        RelocsReleased = RelocsReached;
    }
  }
  if (!C.ok())
    return cursorError(C);
  return llvm::Error::success();
}

llvm::Error VariantReader::readRelocations(const PlainTables &T, ModuleVariant &V, Section &S,
                                           const ElfSectionHeader &R) {
  if (R.sh_entsize != sizeof(ElfRela) || R.sh_size % sizeof(ElfRela))
    return err(headerOffset(R), "malformed relocation section (entry size or section size)");
  const ElfTable<ElfRela> Relocs = View->table<ElfRela>(R, "relocation section", [](uint64_t, const llvm::Twine &) {});
  const size_t N = Relocs.size();
  if (!V.relocsFit(N))
    return err(headerOffset(R), "more than 2^32 - 1 relocations in one module");
  V.Relocs.resize(V.Relocs.size() + N);
  V.endRelocs(S);
  const llvm::MutableArrayRef<Relocation> SectionRelocs = V.relocs(S);
  uint64_t Previous = 0;
  for (size_t K = 0; K < N; ++K) {
    const uint64_t EAt = Relocs.offsetOf(K);
    uint64_t Width = 0;
    if (llvm::Error E = decodeRelocation(T, V, Relocs[K], EAt, SectionRelocs[K], Width))
      return E;
    const uint64_t Offset = SectionRelocs[K].Offset;
    if (Offset > S.contents().size() || Width > S.contents().size() - Offset)
      return err(EAt, "relocation at offset " + llvm::Twine(Offset) + " outside its section (size " +
                          llvm::Twine(S.contents().size()) + ")");
    if (Offset < Previous)
      return err(EAt, "relocations are not sorted by offset");
    Previous = Offset;
  }
  return llvm::Error::success();
}

llvm::Error VariantReader::decodeRelocation(const PlainTables &T, const ModuleVariant &V, const ElfRela &E,
                                            uint64_t EAt, Relocation &Rel, uint64_t &Width) {
  const uint64_t NElf = T.ElfSymbols.size();
  const uint64_t Addend = uint64_t(int64_t(E.r_addend));
  // The model's offsets are 32-bit (ObjectModel.h): refused here, before anything truncates one.
  const uint64_t Offset = E.r_offset;
  if (Offset > MaxRelocationOffset)
    return err(EAt, "relocation at offset " + llvm::Twine(Offset) + " of its section: offsets must be below 2^32");
  Rel.Offset = static_cast<uint32_t>(Offset);
  const uint32_t Type = E.getType(false), Sym = E.getSymbol(false);
  // Lengths are 24-bit and addends 32-bit signed in the model (ObjectModel.h): a larger one is refused
  // here, before anything truncates it.
  auto lengthOutOfRange = [&](const char *What, uint64_t Length) {
    return err(EAt + RelaAddendAt, llvm::Twine(What) + " relocation length " + llvm::Twine(Length) +
                                       " out of range (at most 16777215 bytes)");
  };
  if (Type == RelFile) {
    Rel.Kind = RelocKind::FileIndex;
    Rel.Symbol = static_cast<uint32_t>(Addend >> 32);
    if (uint32_t(Addend) > MaxRelocationLength)
      return lengthOutOfRange("file index", uint32_t(Addend));
    Rel.Length = static_cast<uint32_t>(Addend);
    Width = Rel.Length;
    return llvm::Error::success();
  }
  if (Type < RelName || Type > RelCallTarget)
    return err(EAt + RelaTypeAt, "unknown relocation type " + llvm::Twine(Type));
  if (Sym == 0 || Sym >= NElf || T.ElfToModel[Sym] == NoSymbol)
    return err(EAt + RelaSymbolAt, "relocation refers to ELF symbol " + llvm::Twine(Sym) + ", which has no record");
  Rel.Symbol = T.ElfToModel[Sym];
  if (Type == RelName || Type == RelCall || Type == RelCallTarget) {
    Rel.Kind = RelocKind::NameRef;
    Rel.CallSite = Type == RelCall;
    Rel.CallTargetSite = Type == RelCallTarget;
    if (Addend > MaxRelocationLength)
      return lengthOutOfRange("name", Addend);
    Rel.Length = static_cast<uint32_t>(Addend);
    Width = Rel.Length;
  } else if (Type == RelSectionOffset) {
    Rel.Kind = RelocKind::SectionOffset;
    Rel.Length = static_cast<uint32_t>(Addend & ((1u << SectionOffsetLengthBits) - 1));
    if ((Addend >> SectionOffsetLengthBits) > uint64_t(MaxRelocationAddend))
      return err(EAt + RelaAddendAt, "section offset relocation offset " +
                                         llvm::Twine(Addend >> SectionOffsetLengthBits) +
                                         " out of range (at most 2^31 - 1)");
    Rel.Addend = static_cast<int32_t>(Addend >> SectionOffsetLengthBits);
    Width = Rel.Length;
    if (V.Symbols[Rel.Symbol].Kind != SymbolKind::Section)
      return err(EAt + RelaSymbolAt, "section offset relocation refers to '" + V.Symbols[Rel.Symbol].name() +
                                         "', which is not a section symbol");
  } else {
    Rel.Kind = Type == RelData32 ? RelocKind::Data32 : RelocKind::Data64;
    if (!relocationAddendFits(int64_t(Addend)))
      return err(EAt + RelaAddendAt, "relocation addend " + llvm::Twine(int64_t(Addend)) +
                                         " out of range: addends must lie in [-2^31, 2^31)");
    Rel.Addend = static_cast<int32_t>(Addend);
    Width = Type == RelData32 ? 4 : 8;
  }
  return llvm::Error::success();
}

llvm::Error VariantReader::readFileRecords(const ElfSectionHeader &Files, ModuleVariant &V) {
  Cursor C = cursor(Files);
  size_t NFiles = Files.sh_size / FileRecordSize;
  llvm::MutableArrayRef<FileEntry> Out; // most modules have no `.file` entry: no rare tables made
  if (NFiles) {
    V.rare().Files.resize(NFiles);
    Out = V.rare().Files;
  }
  for (size_t I = 0; I < NFiles && C.ok(); ++I) {
    FileEntry &F = Out[I];
    F.Index = C.u32();
    uint32_t Flags = C.u32();
    F.Path = str(C, "file path");
    uint64_t Timestamp = C.u64(), Size = C.u64();
    if (Flags & 1)
      F.Timestamp = Timestamp;
    if (Flags & 2)
      F.Size = Size;
  }
  if (!C.ok())
    return cursorError(C);
  return llvm::Error::success();
}

llvm::Error VariantReader::readLabelRecords(const ElfSectionHeader &Labels, ModuleVariant &V) {
  // The records are the in-memory layout (three little-endian u32s): copied whole, then checked.
  static_assert(sizeof(ModuleVariant::PlainLabel) == LabelRecordSize && llvm::endianness::native == llvm::endianness::little,
                "a label record is read as it lies");
  const size_t N = Labels.sh_size / LabelRecordSize;
  ModelTable<ModuleVariant::PlainLabel> &Out = V.facts().PlainLabels;
  Out.resize_for_overwrite(N);
  const StringRef Bytes = data(Labels);
  if (N)
    std::memcpy(Out.data(), Bytes.data(), N * LabelRecordSize);
  // Sorted by section, then offset, and apart: what the writer writes, and what a link's walk takes. A
  // section's records are consecutive, so its checks are made once per section.
  uint32_t Sec = NoSection;
  uint64_t Size = 0, End = 0; // the section's size; where its previous label ends
  for (size_t I = 0; I < N; ++I) {
    const ModuleVariant::PlainLabel &L = Out[I];
    const uint64_t At = Labels.sh_offset + I * LabelRecordSize;
    if (L.Section != Sec) {
      if (Sec != NoSection && L.Section < Sec)
        return err(At, "label record " + llvm::Twine(I) + " is out of order");
      if (L.Section >= V.Sections.size() || V.Sections[L.Section].Kind != SectionKind::Function)
        return err(At, "label record " + llvm::Twine(I) + " refers to section " + llvm::Twine(L.Section) +
                           ", which is no function section");
      Sec = L.Section;
      Size = V.Sections[Sec].contents().size();
      End = 0;
    }
    if (L.Offset < End)
      return err(At, "label record " + llvm::Twine(I) + " is out of order");
    if (L.Length == 0 || L.Offset > Size || L.Length > Size - L.Offset)
      return err(At + 4, "label record " + llvm::Twine(I) + ": bytes [" + llvm::Twine(L.Offset) + ", +" +
                             llvm::Twine(L.Length) + ") are not inside section " + llvm::Twine(L.Section) + " (" +
                             llvm::Twine(Size) + " bytes)");
    End = uint64_t(L.Offset) + L.Length;
  }
  return llvm::Error::success();
}

llvm::Error VariantReader::readPlain(ModuleVariant &V) {
  // Each step's shape checks and messages come in the order of the tables in the file's reading order,
  // so that a file with several faults reports the same first one.
  llvm::Expected<PlainTables> Tables = findPlainTables();
  if (!Tables)
    return Tables.takeError();
  PlainTables &T = *Tables;
  if (llvm::Error E = readSymbolRecords(T, V))
    return E;
  release(T.SymSide);
  release(T.Symtab);
  release(T.Shndx);

  reserveRelocations(T, V);
  if (llvm::Error E = readSectionRecords(T, V))
    return E;
  // The section header table too: what is left to read (files, ABI) has its header at hand.
  release(T.Sections);
  if (Mapped)
    release(StringRef(reinterpret_cast<const char *>(&View->section(0)), T.NumSections * sizeof(ElfSectionHeader)));

  if (llvm::Error E = readFileRecords(*T.Files, V))
    return E;
  if (T.Labels) {
    if (llvm::Error E = readLabelRecords(*T.Labels, V))
      return E;
    release(T.Labels);
  }
  const StringRef AbiBytes = data(*T.Abi);
  Cursor C = cursor(*T.Abi);
  readAbi(C, V);
  if (!C.ok())
    return cursorError(C);
  // All of it: the names were copied, and what else points into the file (section text, parameter
  // strings) faults back in where a later pass reads it (a printed section, an ABI check).
  release(AbiBytes);
  release(Bytes);
  return llvm::Error::success();
}

llvm::Error VariantReader::readFat(llvm::SmallVectorImpl<ModuleVariant> &Out, uint32_t Count) {
  size_t Found = 0;
  for (size_t I = 0, N = sectionCount(); I < N; ++I)
    Found += View->section(I).sh_type == ShtVariant;
  if (Found != Count)
    return err(0, "fat object note announces " + llvm::Twine(Count) + " variants but " + llvm::Twine(Found) +
                      " variant sections exist");
  for (size_t I = 0, N = sectionCount(); I < N; ++I) {
    const ElfSectionHeader &H = View->section(I);
    if (H.sh_type != ShtVariant)
      continue;
    VariantReader Inner(File, data(H), Base + H.sh_offset, Mapped, Object);
    if (llvm::Error E = Inner.read(Out, /*AllowFat=*/false))
      return E;
  }
  return llvm::Error::success();
}

llvm::Error VariantReader::read(llvm::SmallVectorImpl<ModuleVariant> &Out, bool AllowFat) {
  uint32_t EFlags = 0;
  if (llvm::Error E = readHeaders(EFlags))
    return E;
  auto Note = unique(llvm::ELF::SHT_NOTE, ".note.ptxlink");
  if (!Note)
    return Note.takeError();
  uint32_t Flags = 0, Count = 0;
  ModuleVariant V;
  if (llvm::Error E = readNote(**Note, &V, Flags, Count))
    return E;
  bool Fat = Flags & NoteFat;
  if (Fat != bool(EFlags & FlagFat))
    return err(48, "e_flags and the .note.ptxlink note disagree about whether the object is fat");
  if (Fat) {
    if (!AllowFat)
      return err(0, "a fat object nested inside a fat object");
    return readFat(Out, Count);
  }
  if (Count != 1)
    return err((*Note)->sh_offset, "plain object note announces " + llvm::Twine(Count) + " variants");
  if (llvm::Error E = readPlain(V))
    return E;
  Out.push_back(std::move(V));
  return llvm::Error::success();
}

} // namespace

bool isPtxlinkObject(StringRef Bytes) {
  const ElfHeader *H = elf64Header(Bytes);
  return H && H->e_ident[llvm::ELF::EI_OSABI] == OsAbi && H->e_machine == llvm::ELF::EM_CUDA;
}

llvm::Expected<std::unique_ptr<ObjectFile>> readObject(std::unique_ptr<llvm::MemoryBuffer> Buffer) {
  auto Object = std::make_unique<ObjectFile>();
  const bool Large = Buffer->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap &&
                     Buffer->getBufferSize() >= LargeObjectBytes;
  VariantReader Reader(Buffer->getBufferIdentifier(), Buffer->getBuffer(), 0, Large ? Buffer.get() : nullptr,
                       Object.get());
  if (llvm::Error E = Reader.read(Object->Variants, /*AllowFat=*/true))
    return E;
  Object->adopt(std::move(Buffer));
  return Object;
}

} // namespace ptxlink
