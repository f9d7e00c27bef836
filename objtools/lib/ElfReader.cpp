// Reading a ptxlink relocatable object (docs/object-format.md) back into the object model.
//
// The problem: objects come from disk, archives and other tools, so any byte may be wrong. The reader
// copies nothing (every string and section is a slice of the buffer, which the ObjectFile adopts), checks
// every offset, size, count and index before using it, never allocates more than the input could
// justify, and reports the first problem as `<file>: offset 0x..: what`, with the offset in the file.

#include "PtxlinkElf.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"

#include <optional>
#include <string>

namespace ptxlink {
namespace {

using namespace elf;
using llvm::StringRef;

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
  uint32_t count(size_t MinSize, const char *What) {
    uint64_t At = offset();
    uint32_t N = u32(What);
    if (Failed)
      return 0;
    if (uint64_t(N) * MinSize > left()) {
      fail(At, llvm::Twine("count of ") + What + " (" + llvm::Twine(N) + ") exceeds the data left");
      return 0;
    }
    return N;
  }

private:
  StringRef Data;
  uint64_t FileOffset;
  size_t Pos = 0;
  bool Failed = false;
  uint64_t FailOffset = 0;
  std::string FailMessage;
};

struct SectionHeader {
  uint32_t Name, Type;
  uint64_t Flags, Offset, Size;
  uint32_t Link, Info;
  uint64_t Align, EntSize;
  uint64_t HeaderOffset; // where this header is, for messages
};

class VariantReader {
public:
  VariantReader(StringRef File, StringRef Bytes, uint64_t Base) : File(File), Bytes(Bytes), Base(Base) {}

  /// Parses a plain object into V, or (if it is fat and AllowFat) each variant into Out.
  llvm::Error read(std::vector<ModuleVariant> &Out, bool AllowFat);

private:
  StringRef File, Bytes;
  uint64_t Base; // offset of Bytes within the file, so messages give file offsets
  std::vector<SectionHeader> Headers;
  StringRef Strtab;
  uint64_t StrtabOffset = 0;

  llvm::Error err(uint64_t Offset, const llvm::Twine &Msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   File + ": offset 0x" + llvm::utohexstr(Base + Offset) + ": " + Msg);
  }
  llvm::Error cursorError(const Cursor &C) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   File + ": offset 0x" + llvm::utohexstr(C.failOffset()) + ": " +
                                       C.failMessage());
  }
  Cursor cursor(const SectionHeader &H) const { return Cursor(data(H), Base + H.Offset); }
  StringRef data(const SectionHeader &H) const { return Bytes.substr(H.Offset, H.Size); }

  llvm::Error readHeaders(uint32_t &EFlags);
  llvm::Expected<const SectionHeader *> unique(uint32_t Type, const char *What, bool Required = true);
  StringRef str(Cursor &C, const char *What);
  StringRef strAt(Cursor &C, uint64_t At, uint32_t Offset, uint32_t Length, const char *What);
  llvm::Error readNote(const SectionHeader &H, ModuleVariant *V, uint32_t &Flags, uint32_t &Count);
  llvm::Error readPlain(ModuleVariant &V);
  llvm::Error readFat(std::vector<ModuleVariant> &Out, uint32_t Count);
  void readParams(Cursor &C, std::vector<ParamInfo> &Out, size_t NSym);
  void readStrings(Cursor &C, std::vector<StringRef> &Out, const char *What);
  void readAbi(Cursor &C, ModuleVariant &V);
};

llvm::Error VariantReader::readHeaders(uint32_t &EFlags) {
  using namespace llvm::support::endian;
  if (Bytes.size() < EhdrSize)
    return err(0, "file too small for an ELF header (" + llvm::Twine(Bytes.size()) + " bytes)");
  const char *P = Bytes.data();
  if (StringRef(P, 4) != "\x7f" "ELF")
    return err(0, "not an ELF file");
  if (P[4] != 2 || P[5] != 1)
    return err(4, "not a 64-bit little-endian ELF file");
  if (P[6] != 1)
    return err(6, "unknown ELF version");
  if (static_cast<uint8_t>(P[7]) != OsAbi)
    return err(7, "not a ptxlink object (EI_OSABI 0x" + llvm::utohexstr(static_cast<uint8_t>(P[7])) +
                      (static_cast<uint8_t>(P[7]) == 0x41 || static_cast<uint8_t>(P[7]) == 0x33
                           ? ", an NVIDIA cubin)"
                           : ")"));
  if (static_cast<uint8_t>(P[8]) > ObjectFormatVersion)
    return err(8, "object format version " + llvm::Twine(static_cast<uint8_t>(P[8])) +
                      " is newer than this reader (" + llvm::Twine(ObjectFormatVersion) + ")");
  if (read16le(P + 16) != 1)
    return err(16, "not a relocatable ELF file (e_type " + llvm::Twine(read16le(P + 16)) + ")");
  if (read16le(P + 18) != MachineCuda)
    return err(18, "e_machine is " + llvm::Twine(read16le(P + 18)) + ", not EM_CUDA (190)");
  EFlags = read32le(P + 48);
  // Version 1 marked a fat object with bit 0, where NVIDIA's SM number now sits: normalise.
  if (static_cast<uint8_t>(P[8]) < 2)
    EFlags = (EFlags & FlagFatV1) ? FlagFat : 0;
  uint64_t ShOff = read64le(P + 40);
  uint16_t ShEntSize = read16le(P + 58);
  uint64_t ShNum = read16le(P + 60);
  uint32_t ShStrNdx = read16le(P + 62);
  if (read16le(P + 52) != EhdrSize)
    return err(52, "unexpected e_ehsize");
  if (ShEntSize != ShdrSize)
    return err(58, "unexpected e_shentsize " + llvm::Twine(ShEntSize));
  if (ShOff == 0)
    return err(40, "no section headers");
  if (ShOff > Bytes.size() || ShdrSize > Bytes.size() - ShOff)
    return err(40, "section header table (offset 0x" + llvm::utohexstr(ShOff) + ") extends past the end of the file");
  // Extended section numbering: the real count and string table index live in section 0.
  if (ShNum == 0)
    ShNum = read64le(P + ShOff + 32);
  if (ShStrNdx == ShnXindex)
    ShStrNdx = read32le(P + ShOff + 40);
  if (ShNum == 0)
    return err(60, "no section headers");
  if (ShNum > (Bytes.size() - ShOff) / ShdrSize)
    return err(40, "section header table (offset 0x" + llvm::utohexstr(ShOff) + ", " + llvm::Twine(ShNum) +
                       " entries) extends past the end of the file");
  if (ShStrNdx >= ShNum)
    return err(62, "e_shstrndx out of range");
  Headers.resize(ShNum);
  for (uint32_t I = 0; I < ShNum; ++I) {
    uint64_t At = ShOff + uint64_t(I) * ShdrSize;
    const char *H = P + At;
    SectionHeader &S = Headers[I];
    S = {read32le(H), read32le(H + 4), read64le(H + 8), read64le(H + 24), read64le(H + 32),
         read32le(H + 40), read32le(H + 44), read64le(H + 48), read64le(H + 56), At};
    if (S.Type == 0 || S.Type == 8 /*SHT_NOBITS*/) {
      if (S.Type == 0)
        S.Size = 0;
      continue;
    }
    if (S.Offset > Bytes.size() || S.Size > Bytes.size() - S.Offset)
      return err(At, "section " + llvm::Twine(I) + " data (offset 0x" + llvm::utohexstr(S.Offset) + ", size " +
                         llvm::Twine(S.Size) + ") extends past the end of the file");
  }
  return llvm::Error::success();
}

llvm::Expected<const SectionHeader *> VariantReader::unique(uint32_t Type, const char *What, bool Required) {
  const SectionHeader *Found = nullptr;
  for (const SectionHeader &H : Headers)
    if (H.Type == Type) {
      if (Found)
        return err(H.HeaderOffset, llvm::Twine("more than one ") + What + " section");
      Found = &H;
    }
  if (!Found && Required)
    return err(0, llvm::Twine("missing ") + What + " section");
  return Found;
}

StringRef VariantReader::strAt(Cursor &C, uint64_t At, uint32_t Offset, uint32_t Length, const char *What) {
  if (LLVM_LIKELY(C.ok() && uint64_t(Offset) + Length < Strtab.size() && Strtab[Offset + Length] == '\0'))
    return Strtab.substr(Offset, Length);
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

llvm::Error VariantReader::readNote(const SectionHeader &H, ModuleVariant *V, uint32_t &Flags, uint32_t &Count) {
  Cursor C = cursor(H);
  uint32_t NameSize = C.u32("note"), DescSize = C.u32("note"), Type = C.u32("note");
  StringRef Owner = C.bytes(NameSize, "note name");
  C.skipTo4();
  if (!C.ok())
    return cursorError(C);
  if (Owner != StringRef(NoteOwner, sizeof(NoteOwner)) || Type != NoteType)
    return err(H.Offset, "the .note.ptxlink note is not a ptxlink module note");
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
  std::vector<StringRef> Options;
  Options.reserve(NOptions);
  for (uint32_t I = 0; I < NOptions && D.ok(); ++I)
    Options.push_back(nstr());
  if (!D.ok())
    return cursorError(D);
  if (Version == 0 || Version > ObjectFormatVersion)
    return err(DescAt, "object format version " + llvm::Twine(Version) + " is not supported (this reader: " +
                           llvm::Twine(ObjectFormatVersion) + ")");
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

void VariantReader::readStrings(Cursor &C, std::vector<StringRef> &Out, const char *What) {
  uint32_t N = C.count(8, What);
  Out.reserve(N);
  for (uint32_t I = 0; I < N && C.ok(); ++I)
    Out.push_back(str(C, What));
}

bool validSpace(uint8_t S) { return S <= static_cast<uint8_t>(StateSpace::Generic); }

void VariantReader::readParams(Cursor &C, std::vector<ParamInfo> &Out, size_t NSym) {
  using llvm::support::endian::read32le;
  // Fixed part: space, width, flags, pointer space (1 byte each), type (offset, length), align, pointer
  // align, name (offset, length), line, column: 36 bytes; then the count of array dimensions.
  constexpr size_t Fixed = 36, MinParam = Fixed + 4;
  uint32_t N = C.count(MinParam, "parameters");
  Out.resize(N);
  for (uint32_t I = 0; I < N && C.ok(); ++I) {
    ParamInfo &P = Out[I];
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
    P.Type = strAt(C, At + 4, read32le(R + 4), read32le(R + 8), "parameter type");
    P.Align = read32le(R + 12);
    P.PtrAlign = read32le(R + 16);
    P.Name = strAt(C, At + 20, read32le(R + 20), read32le(R + 24), "parameter name");
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
  if (C.ok() && uint64_t(NFunc) * MinFunc + uint64_t(NVar) * MinVar + uint64_t(NProto) * MinProto > C.left()) {
    C.fail(At, "ABI record counts exceed the section size");
    return;
  }
  V.Functions.resize(NFunc);
  using llvm::support::endian::read32le;
  for (uint32_t I = 0; I < NFunc && C.ok(); ++I) {
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
    if (Flags & 8)
      F.AbiPreserve = Preserve;
    if (Flags & 16)
      F.AbiPreserveControl = PreserveControl;
    readParams(C, F.Returns, NSym);
    readParams(C, F.Params, NSym);
    readStrings(C, F.Attributes, "attributes");
    // Tuning: presence bits, .maxnreg, three triples, three counts.
    const char *Tune = C.take(56, "function ABI record");
    if (!Tune)
      break;
    uint32_t Present = read32le(Tune);
    // Nearly every function has no tuning directive: keep nothing for it (FunctionAbi::Tuning).
    TuningInfo NoTuning;
    bool HasPragmas = C.ok() && C.peekU32() != 0;
    TuningInfo &T = (Present & 0x1ff) || HasPragmas ? F.Tuning.edit() : NoTuning;
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
    F.Where.Line = C.u32();
    F.Where.Column = C.u32();
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
  V.Prototypes.resize(C.ok() ? NProto : 0);
  for (uint32_t I = 0; I < NProto && C.ok(); ++I) {
    PrototypeAbi &P = V.Prototypes[I];
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

llvm::Error VariantReader::readPlain(ModuleVariant &V) {
  using namespace llvm::support::endian;
  auto SymtabH = unique(ShtSymtab, ".symtab");
  if (!SymtabH)
    return SymtabH.takeError();
  const SectionHeader &Symtab = **SymtabH;
  if (Symtab.EntSize != SymSize || Symtab.Size % SymSize || Symtab.Size == 0)
    return err(Symtab.HeaderOffset, "malformed .symtab (entry size or section size)");
  if (Symtab.Link >= Headers.size() || Headers[Symtab.Link].Type != ShtStrtab)
    return err(Symtab.HeaderOffset, ".symtab's sh_link is not a string table");
  const SectionHeader &StrH = Headers[Symtab.Link];
  Strtab = data(StrH);
  StrtabOffset = StrH.Offset;
  if (Strtab.empty() || Strtab.back() != '\0')
    return err(StrH.HeaderOffset, "string table is empty or not NUL-terminated");
  const uint64_t NElf = Symtab.Size / SymSize;
  StringRef SymData = data(Symtab);

  auto Sections = unique(ShtSections, ".ptxlink.sections");
  auto SymSide = unique(ShtSymbols, ".ptxlink.symbols");
  auto Abi = unique(ShtAbi, ".ptxlink.abi");
  auto Files = unique(ShtFiles, ".ptxlink.files");
  for (auto *E : {&Sections, &SymSide, &Abi, &Files})
    if (!*E)
      return E->takeError();
  if ((*Sections)->Size % SectionRecordSize)
    return err((*Sections)->HeaderOffset, ".ptxlink.sections size is not a multiple of the record size");
  if ((*SymSide)->Size % SymbolRecordSize)
    return err((*SymSide)->HeaderOffset, ".ptxlink.symbols size is not a multiple of the record size");
  if ((*Files)->Size % FileRecordSize)
    return err((*Files)->HeaderOffset, ".ptxlink.files size is not a multiple of the record size");
  const size_t NSec = (*Sections)->Size / SectionRecordSize;
  const size_t NSym = (*SymSide)->Size / SymbolRecordSize;
  if (NSym > NElf)
    return err((*SymSide)->HeaderOffset, "more symbol records than ELF symbols");

  auto ShndxTable = unique(ShtSymtabShndx, ".symtab_shndx", /*Required=*/false);
  if (!ShndxTable)
    return ShndxTable.takeError();
  const bool HasShndxTable = *ShndxTable != nullptr;
  if (HasShndxTable && (*ShndxTable)->Size != NElf * 4)
    return err((*ShndxTable)->HeaderOffset, ".symtab_shndx does not have one entry per symbol");

  // Symbols: ELF fields through the side table, which fixes the model order.
  std::vector<uint32_t> ElfToModel(NElf, NoSymbol);
  V.Symbols.resize(NSym);
  Cursor C = cursor(**SymSide);
  for (size_t I = 0; I < NSym && C.ok(); ++I) {
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
    S.Align = read32le(R + 12);
    S.AliasOf = read32le(R + 16);
    uint32_t NameLen = read32le(R + 20);
    S.Where.Line = read32le(R + 24);
    S.Where.Column = read32le(R + 28);
    if (ElfIndex == 0 || ElfIndex >= NElf)
      return err(At - Base, "symbol record " + llvm::Twine(I) + " refers to ELF symbol " + llvm::Twine(ElfIndex));
    if (ElfToModel[ElfIndex] != NoSymbol)
      return err(At - Base, "two symbol records refer to ELF symbol " + llvm::Twine(ElfIndex));
    ElfToModel[ElfIndex] = static_cast<uint32_t>(I);
    if (Kind > static_cast<uint8_t>(SymbolKind::Section) || !validSpace(Space))
      return err(At - Base + 4, "invalid symbol kind or state space");
    if (S.Section != NoSection && S.Section >= NSec)
      return err(At - Base + 8, "symbol refers to section " + llvm::Twine(S.Section) + " of " + llvm::Twine(NSec));
    if (S.AliasOf != NoSymbol && S.AliasOf >= NSym)
      return err(At - Base + 16, "alias refers to symbol " + llvm::Twine(S.AliasOf));
    S.Kind = static_cast<SymbolKind>(Kind);
    S.Space = static_cast<StateSpace>(Space);
    S.Initialized = Flags & SymInitialized;

    uint64_t EAt = Symtab.Offset + uint64_t(ElfIndex) * SymSize;
    const char *E = SymData.data() + uint64_t(ElfIndex) * SymSize;
    uint32_t NameOff = read32le(E);
    uint8_t Info = static_cast<uint8_t>(E[4]);
    uint16_t Shndx = read16le(E + 6);
    S.Name = strAt(C, Base + EAt, NameOff, NameLen, "symbol name");
    if (!C.ok())
      break;
    uint8_t Bind = Info >> 4;
    if (Shndx == ShnXindex && !HasShndxTable)
      return err(EAt + 6, "symbol '" + S.Name + "' uses SHN_XINDEX but there is no SHT_SYMTAB_SHNDX section");
    if (Shndx >= Headers.size() && Shndx != ShnAbs && Shndx != ShnCommon && Shndx != ShnXindex)
      return err(EAt + 6, "symbol '" + S.Name + "' has section index " + llvm::Twine(Shndx));
    if (Bind == StbLocal)
      S.Bind = Binding::Local;
    else if (Bind == StbWeak)
      S.Bind = Binding::Weak;
    else if (Bind != StbGlobal)
      return err(EAt + 4, "symbol '" + S.Name + "' has unknown binding " + llvm::Twine(Bind));
    else if (Shndx == ShnUndef)
      S.Bind = Binding::Undefined;
    else if (Shndx == ShnCommon || (Flags & SymInitializedCommon))
      S.Bind = Binding::Common;
    else
      S.Bind = Binding::Global;
    S.Value = Shndx == ShnCommon ? 0 : read64le(E + 8);
    if (S.Section == NoSection && S.AliasOf != NoSymbol)
      S.Value = 0; // written on the aliasee's place; the model keeps only the link
    S.Size = read64le(E + 16);
  }
  if (!C.ok())
    return cursorError(C);

  // Sections and their relocations.
  V.Sections.resize(NSec);
  C = cursor(**Sections);
  for (size_t I = 0; I < NSec && C.ok(); ++I) {
    // A fixed 40-byte record, bounds-checked once: content section, relocation section, kind, (pad),
    // symbol, header length, name (offset, length), line, column, (reserved).
    uint64_t At = C.offset() - Base;
    const char *Rec = C.take(SectionRecordSize, "section record");
    if (!Rec)
      break;
    uint32_t Content = read32le(Rec), Rela = read32le(Rec + 4);
    uint8_t Kind = uint8_t(Rec[8]);
    Section &S = V.Sections[I];
    S.Symbol = read32le(Rec + 12);
    S.HeaderLength = read32le(Rec + 16);
    S.Name = strAt(C, At + Base + 20, read32le(Rec + 20), read32le(Rec + 24), "section name");
    S.Where.Line = read32le(Rec + 28);
    S.Where.Column = read32le(Rec + 32);
    if (!C.ok())
      break;
    if (Content == 0 || Content >= Headers.size() || Headers[Content].Type != ShtProgbits)
      return err(At, "section record " + llvm::Twine(I) + " refers to ELF section " + llvm::Twine(Content));
    if (Kind > static_cast<uint8_t>(SectionKind::Module))
      return err(At + 8, "invalid section kind " + llvm::Twine(Kind));
    if (S.Symbol != NoSymbol && S.Symbol >= NSym)
      return err(At + 12, "section refers to symbol " + llvm::Twine(S.Symbol));
    S.Kind = static_cast<SectionKind>(Kind);
    S.Contents = data(Headers[Content]);
    if (S.HeaderLength > S.Contents.size())
      return err(At + 16, "header length exceeds the section size");
    if (Rela == 0)
      continue;
    if (Rela >= Headers.size() || Headers[Rela].Type != ShtRela || Headers[Rela].Info != Content)
      return err(At + 4, "section record " + llvm::Twine(I) + " names ELF section " + llvm::Twine(Rela) +
                             " as its relocations, which is not a matching SHT_RELA section");
    const SectionHeader &R = Headers[Rela];
    if (R.EntSize != RelaSize || R.Size % RelaSize)
      return err(R.HeaderOffset, "malformed relocation section (entry size or section size)");
    StringRef RD = data(R);
    size_t N = R.Size / RelaSize;
    S.Relocs.resize(N);
    uint64_t Previous = 0;
    for (size_t K = 0; K < N; ++K) {
      const char *E = RD.data() + K * RelaSize;
      uint64_t EAt = R.Offset + K * RelaSize;
      uint64_t Info = read64le(E + 8);
      uint64_t Addend = read64le(E + 16);
      Relocation &Rel = S.Relocs[K];
      Rel.Offset = read64le(E);
      uint32_t Type = static_cast<uint32_t>(Info), Sym = static_cast<uint32_t>(Info >> 32);
      uint64_t Width = 0;
      if (Type == RelFile) {
        Rel.Kind = RelocKind::FileIndex;
        Rel.Symbol = static_cast<uint32_t>(Addend >> 32);
        Rel.Length = static_cast<uint32_t>(Addend);
        Width = Rel.Length;
      } else {
        if (Type < RelName || Type > RelSectionOffset)
          return err(EAt + 8, "unknown relocation type " + llvm::Twine(Type));
        if (Sym == 0 || Sym >= NElf || ElfToModel[Sym] == NoSymbol)
          return err(EAt + 12, "relocation refers to ELF symbol " + llvm::Twine(Sym) + ", which has no record");
        Rel.Symbol = ElfToModel[Sym];
        if (Type == RelName) {
          Rel.Kind = RelocKind::NameRef;
          if (Addend > 0xffffffffu)
            return err(EAt + 16, "name relocation length out of range");
          Rel.Length = static_cast<uint32_t>(Addend);
          Width = Rel.Length;
        } else if (Type == RelSectionOffset) {
          Rel.Kind = RelocKind::SectionOffset;
          Rel.Length = static_cast<uint32_t>(Addend & ((1u << SectionOffsetLengthBits) - 1));
          Rel.Addend = static_cast<int64_t>(Addend >> SectionOffsetLengthBits);
          Width = Rel.Length;
          if (V.Symbols[Rel.Symbol].Kind != SymbolKind::Section)
            return err(EAt + 12, "section offset relocation refers to '" + V.Symbols[Rel.Symbol].Name +
                                     "', which is not a section symbol");
        } else {
          Rel.Kind = Type == RelData32 ? RelocKind::Data32 : RelocKind::Data64;
          Rel.Addend = static_cast<int64_t>(Addend);
          Width = Type == RelData32 ? 4 : 8;
        }
      }
      if (Rel.Offset > S.Contents.size() || Width > S.Contents.size() - Rel.Offset)
        return err(EAt, "relocation at offset " + llvm::Twine(Rel.Offset) + " outside its section (size " +
                            llvm::Twine(S.Contents.size()) + ")");
      if (Rel.Offset < Previous)
        return err(EAt, "relocations are not sorted by offset");
      Previous = Rel.Offset;
    }
  }
  if (!C.ok())
    return cursorError(C);

  // Files.
  C = cursor(**Files);
  size_t NFiles = (*Files)->Size / FileRecordSize;
  V.Files.resize(NFiles);
  for (size_t I = 0; I < NFiles && C.ok(); ++I) {
    FileEntry &F = V.Files[I];
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

  C = cursor(**Abi);
  readAbi(C, V);
  if (!C.ok())
    return cursorError(C);
  return llvm::Error::success();
}

llvm::Error VariantReader::readFat(std::vector<ModuleVariant> &Out, uint32_t Count) {
  size_t Found = 0;
  for (const SectionHeader &H : Headers)
    Found += H.Type == ShtVariant;
  if (Found != Count)
    return err(0, "fat object note announces " + llvm::Twine(Count) + " variants but " + llvm::Twine(Found) +
                      " variant sections exist");
  for (const SectionHeader &H : Headers) {
    if (H.Type != ShtVariant)
      continue;
    VariantReader Inner(File, data(H), Base + H.Offset);
    if (llvm::Error E = Inner.read(Out, /*AllowFat=*/false))
      return E;
  }
  return llvm::Error::success();
}

llvm::Error VariantReader::read(std::vector<ModuleVariant> &Out, bool AllowFat) {
  uint32_t EFlags = 0;
  if (llvm::Error E = readHeaders(EFlags))
    return E;
  auto Note = unique(ShtNote, ".note.ptxlink");
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
    return err((*Note)->Offset, "plain object note announces " + llvm::Twine(Count) + " variants");
  if (llvm::Error E = readPlain(V))
    return E;
  Out.push_back(std::move(V));
  return llvm::Error::success();
}

} // namespace

bool isPtxlinkObject(StringRef Bytes) {
  return Bytes.size() >= EhdrSize && Bytes.starts_with("\x7f" "ELF") && Bytes[4] == 2 && Bytes[5] == 1 &&
         static_cast<uint8_t>(Bytes[7]) == OsAbi && llvm::support::endian::read16le(Bytes.data() + 18) == MachineCuda;
}

llvm::Expected<std::unique_ptr<ObjectFile>> readObject(std::unique_ptr<llvm::MemoryBuffer> Buffer) {
  auto Object = std::make_unique<ObjectFile>();
  VariantReader Reader(Buffer->getBufferIdentifier(), Buffer->getBuffer(), 0);
  if (llvm::Error E = Reader.read(Object->Variants, /*AllowFat=*/true))
    return E;
  Object->adopt(std::move(Buffer));
  return Object;
}

} // namespace ptxlink
