// Serialising the object model as a ptxlink relocatable ELF object (docs/object-format.md).
//
// The problem: assembling must run at hundreds of MB/s, and most of an object is section text. So the
// writer never touches text byte by byte: it lays the file out first (offsets of every section), then
// streams the header, each section's bytes straight from the model (one write each), the small tables it
// built, and the section headers. Everything is a function of the model only, so output is deterministic.

#include "ElfView.h"
#include "PtxlinkElf.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/Target.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>
#include <vector>

namespace ptxlink {
namespace {

using namespace elf;
namespace ELF = llvm::ELF;

/// Little-endian byte buffer for the tables the writer builds. Grows without zero-filling and writes
/// fields with a single store, since a large module has hundreds of thousands of relocations and ABI
/// fields and the writer must stay a few memcpy's.
class Bytes {
public:
  size_t size() const { return Size; }
  char *data() { return Buf.get(); }
  llvm::StringRef str() const { return llvm::StringRef(Buf.get(), Size); }
  void reserve(size_t N) {
    if (N > Cap)
      grow(N);
  }
  char *grab(size_t N) {
    if (N > Cap - Size)
      grow(std::max(Cap * 2, Size + N + 256));
    char *P = Buf.get() + Size;
    Size += N;
    return P;
  }
  void u8(uint8_t V) { *grab(1) = static_cast<char>(V); }
  void u16(uint16_t V) { llvm::support::endian::write16le(grab(2), V); }
  void u32(uint32_t V) { llvm::support::endian::write32le(grab(4), V); }
  void u64(uint64_t V) { llvm::support::endian::write64le(grab(8), V); }
  void raw(llvm::StringRef S) {
    if (!S.empty())
      std::memcpy(grab(S.size()), S.data(), S.size());
  }
  void zeros(size_t N) {
    if (N)
      std::memset(grab(N), 0, N);
  }
  void pad(size_t Align) { zeros((Align - Size % Align) % Align); }
  void clear() { Size = 0; }

private:
  std::unique_ptr<char[]> Buf;
  size_t Size = 0, Cap = 0;
  void grow(size_t N) {
    std::unique_ptr<char[]> New(new char[N]); // uninitialised: every byte up to Size gets written
    if (Size)
      std::memcpy(New.get(), Buf.get(), Size);
    Buf = std::move(New);
    Cap = N;
  }
};

/// `.strtab`: every string NUL-terminated; custom tables refer to (offset, length) pairs. Short strings
/// (PTX types like ".b32", the "_" of prototypes) repeat constantly and are shared through a small
/// direct-mapped cache; longer ones (names) are nearly always unique and are simply appended, which
/// avoids hashing every string of the module.
class StringPool {
public:
  StringPool() {
    Data.u8(0);
    for (Entry &E : Cache)
      E = Entry{~0u, 0, 0};
  }
  uint32_t add(llvm::StringRef S) {
    if (S.empty())
      return 0;
    if (S.size() <= 8) {
      uint64_t Key = 0;
      std::memcpy(&Key, S.data(), S.size());
      uint64_t H = (Key ^ S.size()) * 0x9E3779B97F4A7C15ull;
      Entry &E = Cache[H >> (64 - CacheBits)];
      if (E.Length == S.size() && E.Key == Key)
        return E.Offset;
      E = Entry{static_cast<uint32_t>(S.size()), static_cast<uint32_t>(Data.size()), Key};
    }
    uint32_t Off = static_cast<uint32_t>(Data.size());
    char *P = Data.grab(S.size() + 1);
    std::memcpy(P, S.data(), S.size());
    P[S.size()] = '\0';
    return Off;
  }
  /// Prefix + Name (+ Name2) as one string.
  uint32_t addConcat(llvm::StringRef Prefix, llvm::StringRef Name, llvm::StringRef Name2 = "") {
    uint32_t Off = static_cast<uint32_t>(Data.size());
    Data.raw(Prefix);
    Data.raw(Name);
    Data.raw(Name2);
    Data.u8(0);
    return Off;
  }
  /// Writes a str (u32 offset, u32 length) into B.
  void ref(Bytes &B, llvm::StringRef S) {
    char *P = B.grab(8);
    llvm::support::endian::write32le(P, add(S));
    llvm::support::endian::write32le(P + 4, static_cast<uint32_t>(S.size()));
  }
  Bytes Data;

private:
  struct Entry {
    uint32_t Length, Offset;
    uint64_t Key;
  };
  static constexpr unsigned CacheBits = 8;
  Entry Cache[1u << CacheBits];
};

/// One ELF section to write. Kept small (a module of 10^6 functions has two per function): the offset is
/// recomputed while streaming instead of stored, and the flags, alignment and entry size fit in 32 bits.
struct OutSection {
  uint32_t Name = 0;
  uint32_t Type = 0;
  uint32_t Flags = 0;
  uint32_t Align = 1;
  uint32_t EntSize = 0;
  uint32_t Link = 0, Info = 0;
  int32_t Owned = -1;        // an index into Layout::Owned (resolved late: buffers move), or
  llvm::StringRef External; // bytes owned by the model or by a buffer that no longer grows
};

OutSection sec(uint32_t Name, uint32_t Type, uint32_t Flags = 0, uint32_t Align = 1, uint32_t EntSize = 0,
               uint32_t Link = 0, uint32_t Info = 0) {
  OutSection S;
  S.Name = Name;
  S.Type = Type;
  S.Flags = Flags;
  S.Align = Align;
  S.EntSize = EntSize;
  S.Link = Link;
  S.Info = Info;
  return S;
}

/// The sections of one ELF file, their bytes, and the code to stream them out.
class Layout {
public:
  std::vector<OutSection> Sections{OutSection{}};
  std::vector<Bytes> Owned;
  uint32_t ShStrIndex = 0;
  uint32_t EFlags = 0;

  uint32_t addOwned(OutSection S, Bytes Data) {
    S.Owned = static_cast<int32_t>(Owned.size());
    Owned.push_back(std::move(Data));
    Sections.push_back(S);
    return static_cast<uint32_t>(Sections.size() - 1);
  }
  uint32_t addExternal(OutSection S, llvm::StringRef Data) {
    S.External = Data;
    Sections.push_back(S);
    return static_cast<uint32_t>(Sections.size() - 1);
  }
  llvm::StringRef data(const OutSection &S) const {
    return S.Owned >= 0 ? Owned[S.Owned].str() : S.External;
  }

  void write(llvm::raw_ostream &OS) {
    // Offsets are a running sum over the sections; computed here for the header's e_shoff, again while
    // the data are written, and a third time for the section headers (cheaper than storing them).
    uint64_t Pos = sizeof(ElfHeader);
    for (size_t I = 1; I < Sections.size(); ++I)
      Pos = llvm::alignTo(Pos, Sections[I].Align) + data(Sections[I]).size();
    uint64_t ShOff = llvm::alignTo(Pos, 8);

    Bytes H;
    H.raw(llvm::StringRef("\x7f" "ELF", 4));
    H.u8(ELF::ELFCLASS64);
    H.u8(ELF::ELFDATA2LSB);
    H.u8(ELF::EV_CURRENT);
    H.u8(OsAbi);
    H.u8(ObjectFormatVersion);
    H.pad(16);
    H.u16(ELF::ET_REL);
    H.u16(ELF::EM_CUDA);
    H.u32(ELF::EV_CURRENT);
    H.u64(0); // e_entry
    H.u64(0); // e_phoff
    H.u64(ShOff);
    H.u32(EFlags);
    H.u16(sizeof(ElfHeader));
    H.u16(0); // e_phentsize
    H.u16(0); // e_phnum
    H.u16(sizeof(ElfSectionHeader));
    // Extended section numbering (gABI): with 0xff00 sections or more, e_shnum is 0 and the count is
    // section 0's sh_size; an e_shstrndx that does not fit is SHN_XINDEX with the index in sh_link.
    const bool ManySections = Sections.size() >= ELF::SHN_LORESERVE, BigStrIndex = ShStrIndex >= ELF::SHN_LORESERVE;
    H.u16(ManySections ? 0 : static_cast<uint16_t>(Sections.size()));
    H.u16(BigStrIndex ? uint16_t(ELF::SHN_XINDEX) : static_cast<uint16_t>(ShStrIndex));
    OS << H.str();

    static const char Zeros[16] = {};
    uint64_t At = sizeof(ElfHeader);
    for (size_t I = 1; I < Sections.size(); ++I) {
      const OutSection &S = Sections[I];
      uint64_t Offset = llvm::alignTo(At, S.Align);
      OS.write(Zeros, Offset - At);
      llvm::StringRef D = data(S);
      OS.write(D.data(), D.size());
      At = Offset + D.size();
    }
    OS.write(Zeros, ShOff - At);

    // The section header table, streamed in blocks (whole, it was 64 bytes per section in memory).
    constexpr size_t Block = 1024;
    Bytes SH;
    SH.reserve(Block * sizeof(ElfSectionHeader));
    At = sizeof(ElfHeader);
    for (size_t I = 0; I < Sections.size(); ++I) {
      const OutSection &S = Sections[I];
      if (I == 0) {
        SH.zeros(sizeof(ElfSectionHeader));
        if (ManySections)
          llvm::support::endian::write64le(SH.data() + offsetof(ElfSectionHeader, sh_size), Sections.size());
        if (BigStrIndex)
          llvm::support::endian::write32le(SH.data() + offsetof(ElfSectionHeader, sh_link), ShStrIndex);
        continue;
      }
      uint64_t Offset = llvm::alignTo(At, S.Align), Size = data(S).size();
      At = Offset + Size;
      SH.u32(S.Name);
      SH.u32(S.Type);
      SH.u64(S.Flags);
      SH.u64(0); // sh_addr
      SH.u64(Offset);
      SH.u64(Size);
      SH.u32(S.Link);
      SH.u32(S.Info);
      SH.u64(S.Align);
      SH.u64(S.EntSize);
      if (SH.size() == Block * sizeof(ElfSectionHeader)) {
        OS << SH.str();
        SH.clear();
      }
    }
    OS << SH.str();
  }
};

llvm::Error modelError(llvm::StringRef Source, const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot write object for '" + Source + "': invalid model: " + Msg);
}

void nstr(Bytes &B, llvm::StringRef S) {
  B.u32(static_cast<uint32_t>(S.size()));
  B.raw(S);
  B.pad(4);
}

Bytes buildNote(const ModuleVariant *V, uint32_t Flags, uint32_t Variants) {
  Bytes Desc;
  Desc.u32(ObjectFormatVersion);
  if (V) {
    const TargetInfo &T = V->Target;
    Flags |= (T.Debug ? NoteDebug : 0) | (T.MapF64ToF32 ? NoteMapF64 : 0) |
             (T.AddressSizeGiven ? NoteAddressSizeGiven : 0);
    Desc.u32(Flags);
    Desc.u32(T.VersionMajor);
    Desc.u32(T.VersionMinor);
    Desc.u32(T.AddressSize);
    Desc.u32(Variants);
    nstr(Desc, T.Arch);
    nstr(Desc, T.Texmode);
    nstr(Desc, V->SourceName);
    Desc.u32(static_cast<uint32_t>(T.Options.size()));
    for (llvm::StringRef O : T.Options)
      nstr(Desc, O);
  } else {
    Desc.u32(Flags);
    Desc.u32(0);
    Desc.u32(0);
    Desc.u32(0);
    Desc.u32(Variants);
    for (int I = 0; I < 3; ++I)
      nstr(Desc, "");
    Desc.u32(0);
  }
  Bytes N;
  N.u32(sizeof(NoteOwner));
  N.u32(static_cast<uint32_t>(Desc.size()));
  N.u32(NoteType);
  N.raw(llvm::StringRef(NoteOwner, sizeof(NoteOwner)));
  N.pad(4);
  N.raw(Desc.str());
  return N;
}

uint8_t spaceCode(StateSpace S) { return static_cast<uint8_t>(S); }

void writeLoc(Bytes &B, Loc L) {
  B.u32(L.Line);
  B.u32(L.Column);
}

void writeParams(Bytes &B, StringPool &Strings, const std::vector<ParamInfo> &Params) {
  using namespace llvm::support::endian;
  B.u32(static_cast<uint32_t>(Params.size()));
  for (const ParamInfo &P : Params) {
    // The fixed 40-byte part in one go (field order: docs/object-format.md, "param").
    uint32_t TypeOff = Strings.add(P.Type), NameOff = Strings.add(P.Name);
    char *E = B.grab(40 + 8 * P.ArrayDims.size());
    E[0] = static_cast<char>(spaceCode(P.Space));
    E[1] = static_cast<char>(P.VectorWidth);
    E[2] = static_cast<char>((P.UnsizedArray ? 1 : 0) | (P.IsPtr ? 2 : 0));
    E[3] = static_cast<char>(spaceCode(P.PtrSpace));
    write32le(E + 4, TypeOff);
    write32le(E + 8, static_cast<uint32_t>(P.Type.size()));
    write32le(E + 12, P.Align);
    write32le(E + 16, P.PtrAlign);
    write32le(E + 20, NameOff);
    write32le(E + 24, static_cast<uint32_t>(P.Name.size()));
    write32le(E + 28, P.Where.Line);
    write32le(E + 32, P.Where.Column);
    write32le(E + 36, static_cast<uint32_t>(P.ArrayDims.size()));
    for (size_t D = 0; D < P.ArrayDims.size(); ++D)
      write64le(E + 40 + 8 * D, P.ArrayDims[D]);
  }
}

void writeStrings(Bytes &B, StringPool &Strings, const std::vector<llvm::StringRef> &List) {
  B.u32(static_cast<uint32_t>(List.size()));
  for (llvm::StringRef S : List)
    Strings.ref(B, S);
}

void writeTuning(Bytes &B, StringPool &Strings, const TuningInfo &T) {
  uint32_t Present = (T.MaxNReg ? 1 : 0) | (T.MaxNTid ? 2 : 0) | (T.ReqNTid ? 4 : 0) |
                     (T.ReqNCtaPerCluster ? 8 : 0) | (T.MinNCtaPerSm ? 16 : 0) | (T.MaxNCtaPerSm ? 32 : 0) |
                     (T.MaxClusterRank ? 64 : 0) | (T.ExplicitCluster ? 128 : 0) |
                     (T.BlocksAreClusters ? 256 : 0);
  B.u32(Present);
  B.u32(T.MaxNReg.value_or(0));
  for (const auto *A : {&T.MaxNTid, &T.ReqNTid, &T.ReqNCtaPerCluster})
    for (int I = 0; I < 3; ++I)
      B.u32(*A ? (**A)[I] : 0);
  B.u32(T.MinNCtaPerSm.value_or(0));
  B.u32(T.MaxNCtaPerSm.value_or(0));
  B.u32(T.MaxClusterRank.value_or(0));
  writeStrings(B, Strings, T.Pragmas);
}

/// Exact size of the `.ptxlink.abi` stream buildAbi writes (so its buffer is allocated once: growing it
/// by doubling held up to three times its size at the peak).
size_t abiSize(const ModuleVariant &V) {
  auto Params = [](const std::vector<ParamInfo> &List) {
    size_t N = 4;
    for (const ParamInfo &P : List)
      N += 40 + 8 * P.ArrayDims.size();
    return N;
  };
  size_t N = 16;
  for (const FunctionAbi &F : V.Functions)
    N += 16 + Params(F.Returns) + Params(F.Params) + 4 + 8 * F.Attributes.size() + 60 +
         8 * F.Tuning->Pragmas.size() + 8;
  // symbol, flags, type; align, dimension count; dimensions; attribute count, attributes; location
  for (const VariableAbi &Var : V.Variables)
    N += 16 + 4 + 4 + 8 * Var.ArrayDims.size() + 4 + 8 * Var.Attributes.size() + 8;
  for (const PrototypeAbi &P : V.Prototypes)
    N += 8 + 4 + 12 + Params(P.Returns) + Params(P.Params) + 4 + 4 * P.CallTargets.size() + 8;
  return N;
}

Bytes buildAbi(const ModuleVariant &V, StringPool &Strings) {
  Bytes B;
  const size_t Expected = abiSize(V);
  B.reserve(Expected);
  B.u32(AbiVersion);
  B.u32(static_cast<uint32_t>(V.Functions.size()));
  B.u32(static_cast<uint32_t>(V.Variables.size()));
  B.u32(static_cast<uint32_t>(V.Prototypes.size()));
  for (const FunctionAbi &F : V.Functions) {
    B.u32(F.Symbol);
    B.u8((F.IsKernel ? 1 : 0) | (F.HasBody ? 2 : 0) | (F.NoReturn ? 4 : 0) | (F.AbiPreserve ? 8 : 0) |
         (F.AbiPreserveControl ? 16 : 0));
    B.u8(0);
    B.u8(0);
    B.u8(0);
    B.u32(F.AbiPreserve.value_or(0));
    B.u32(F.AbiPreserveControl.value_or(0));
    writeParams(B, Strings, F.Returns);
    writeParams(B, Strings, F.Params);
    writeStrings(B, Strings, F.Attributes);
    writeTuning(B, Strings, F.Tuning.get());
    writeLoc(B, F.Where);
  }
  for (const VariableAbi &Var : V.Variables) {
    B.u32(Var.Symbol);
    B.u8(spaceCode(Var.Space));
    B.u8(Var.VectorWidth);
    B.u8((Var.UnsizedArray ? 1 : 0) | (Var.Initialized ? 2 : 0));
    B.u8(0);
    Strings.ref(B, Var.Type);
    B.u32(Var.Align);
    B.u32(static_cast<uint32_t>(Var.ArrayDims.size()));
    for (uint64_t D : Var.ArrayDims)
      B.u64(D);
    writeStrings(B, Strings, Var.Attributes);
    writeLoc(B, Var.Where);
  }
  for (const PrototypeAbi &P : V.Prototypes) {
    Strings.ref(B, P.Label);
    B.u32(P.Function);
    B.u8((P.NoReturn ? 1 : 0) | (P.AbiPreserve ? 2 : 0) | (P.AbiPreserveControl ? 4 : 0));
    B.u8(0);
    B.u8(0);
    B.u8(0);
    B.u32(P.AbiPreserve.value_or(0));
    B.u32(P.AbiPreserveControl.value_or(0));
    writeParams(B, Strings, P.Returns);
    writeParams(B, Strings, P.Params);
    B.u32(static_cast<uint32_t>(P.CallTargets.size()));
    for (uint32_t T : P.CallTargets)
      B.u32(T);
    writeLoc(B, P.Where);
  }
  assert(B.size() == Expected && "abiSize disagrees with buildAbi");
  (void)Expected;
  return B;
}

/// Checks every index the format stores, so the reader's checks can never reject what we wrote.
llvm::Error validate(const ModuleVariant &V) {
  size_t NSym = V.Symbols.size(), NSec = V.Sections.size();
  if (NSym >= 0xfffffff0u || NSec >= 0x7ffffff0u)
    return modelError(V.SourceName, "too many symbols or sections");
  auto SymOk = [&](uint32_t I, bool AllowNone) { return I < NSym || (AllowNone && I == NoSymbol); };
  for (size_t I = 0; I < NSym; ++I) {
    const Symbol &S = V.Symbols[I];
    if (S.Section != NoSection && S.Section >= NSec)
      return modelError(V.SourceName, "symbol '" + S.Name + "' refers to section " + llvm::Twine(S.Section));
    if (!SymOk(S.AliasOf, true))
      return modelError(V.SourceName, "alias '" + S.Name + "' refers to symbol " + llvm::Twine(S.AliasOf));
    if (S.Name.contains('\0'))
      return modelError(V.SourceName, "symbol name contains a NUL byte");
  }
  for (const Section &Sec : V.Sections) {
    if (!SymOk(Sec.Symbol, true))
      return modelError(V.SourceName, "section '" + Sec.Name + "' refers to symbol " + llvm::Twine(Sec.Symbol));
    if (Sec.HeaderLength > Sec.Contents.size())
      return modelError(V.SourceName, "section '" + Sec.Name + "' header longer than its contents");
    uint64_t Size = Sec.Contents.size();
    for (const Relocation &R : Sec.Relocs) {
      uint64_t Width = R.Kind == RelocKind::Data32 ? 4 : R.Kind == RelocKind::Data64 ? 8 : R.Length;
      if (R.Offset > Size || Width > Size - R.Offset)
        return modelError(V.SourceName, "relocation at offset " + llvm::Twine(R.Offset) + " outside section '" +
                                            Sec.Name + "'");
      if (R.Kind != RelocKind::FileIndex && !SymOk(R.Symbol, false))
        return modelError(V.SourceName, "relocation in section '" + Sec.Name + "' refers to symbol " +
                                            llvm::Twine(R.Symbol));
      if (R.Kind == RelocKind::SectionOffset &&
          (R.Length >> SectionOffsetLengthBits || R.Addend < 0 || R.Addend >> (63 - SectionOffsetLengthBits)))
        return modelError(V.SourceName, "section offset relocation in section '" + Sec.Name + "' out of range");
    }
  }
  for (const FunctionAbi &F : V.Functions)
    if (!SymOk(F.Symbol, true))
      return modelError(V.SourceName, "function ABI record refers to symbol " + llvm::Twine(F.Symbol));
  for (const VariableAbi &Var : V.Variables)
    if (!SymOk(Var.Symbol, true))
      return modelError(V.SourceName, "variable ABI record refers to symbol " + llvm::Twine(Var.Symbol));
  for (const PrototypeAbi &P : V.Prototypes) {
    if (!SymOk(P.Function, true))
      return modelError(V.SourceName, "prototype '" + P.Label + "' refers to symbol " + llvm::Twine(P.Function));
    for (uint32_t T : P.CallTargets)
      if (!SymOk(T, false))
        return modelError(V.SourceName, "prototype '" + P.Label + "' call target " + llvm::Twine(T));
  }
  return llvm::Error::success();
}

uint8_t symType(SymbolKind K) {
  switch (K) {
  case SymbolKind::Function:
  case SymbolKind::Kernel:
    return ELF::STT_FUNC;
  case SymbolKind::Variable:
    return ELF::STT_OBJECT;
  case SymbolKind::Label:
    return ELF::STT_NOTYPE;
  case SymbolKind::Section:
    return ELF::STT_SECTION;
  }
  return ELF::STT_NOTYPE;
}

llvm::StringRef sectionPrefix(SectionKind K) {
  switch (K) {
  case SectionKind::Function:
    return ".ptx.func.";
  case SectionKind::Variable:
    return ".ptx.var.";
  case SectionKind::Module:
    return ".ptx.module";
  case SectionKind::Debug:
    return "";
  }
  return "";
}

/// NVIDIA's e_flags for a module of target T: those of PTX for its architecture (no .target: 0).
uint32_t cudaMachineFlags(const TargetInfo &T) {
  std::optional<Target> Arch = Target::parse(T.Arch);
  return Arch ? cudaElfFlagsForPtx(*Arch, T.AddressSize == 64) : 0;
}

llvm::Error writeVariant(const ModuleVariant &V, llvm::raw_ostream &OS) {
  if (llvm::Error E = validate(V))
    return E;
  Layout L;
  L.EFlags = cudaMachineFlags(V.Target);
  StringPool Strings;
  const size_t NSec = V.Sections.size(), NSym = V.Symbols.size();

  // ELF indices: the note, then each content section followed by its relocations, then the tables.
  std::vector<uint32_t> ContentIndex(NSec), RelaIndex(NSec, 0);
  uint32_t Next = 2;
  for (size_t I = 0; I < NSec; ++I) {
    ContentIndex[I] = Next++;
    if (!V.Sections[I].Relocs.empty())
      RelaIndex[I] = Next++;
  }
  const uint32_t SecTableIndex = Next, SymTableIndex = Next + 1, AbiIndex = Next + 2, FilesIndex = Next + 3,
                 SymtabIndex = Next + 4, StrtabIndex = Next + 5;

  // ELF symbol order: locals first (ELF requires it), model order within each group.
  std::vector<uint32_t> ElfSym(NSym);
  uint32_t NextSym = 1;
  for (size_t I = 0; I < NSym; ++I)
    if (V.Symbols[I].Bind == Binding::Local)
      ElfSym[I] = NextSym++;
  const uint32_t FirstGlobal = NextSym;
  for (size_t I = 0; I < NSym; ++I)
    if (V.Symbols[I].Bind != Binding::Local)
      ElfSym[I] = NextSym++;

  L.addOwned(sec(Strings.add(".note.ptxlink"), ELF::SHT_NOTE, 0, 4), buildNote(&V, 0, 1));
  L.Sections.reserve(size_t(Next) + 8);

  // Every relocation section's entries in one buffer sized exactly up front (it never moves, so the
  // sections can point into it): one allocation instead of one per section, which for a module of many
  // small functions cost more than the entries themselves.
  size_t NRelocs = 0;
  for (const Section &S : V.Sections)
    NRelocs += S.Relocs.size();
  Bytes RelaPool;
  RelaPool.reserve(NRelocs * sizeof(ElfRela));

  for (size_t I = 0; I < NSec; ++I) {
    const Section &S = V.Sections[I];
    llvm::StringRef Suffix = S.Kind == SectionKind::Debug    ? S.Name
                             : S.Kind == SectionKind::Module ? llvm::StringRef()
                                                             : S.Name;
    uint32_t Name = Strings.addConcat(sectionPrefix(S.Kind), Suffix);
    // Allocated like code and data so that ELF tools classify the symbols (llvm-nm: T, D), not as debug.
    uint64_t Flags = S.Kind == SectionKind::Function ? ELF::SHF_ALLOC | ELF::SHF_EXECINSTR
                     : S.Kind == SectionKind::Variable ? ELF::SHF_ALLOC | ELF::SHF_WRITE
                                                       : 0;
    OutSection Content = sec(Name, ELF::SHT_PROGBITS, Flags, 1);
    L.addExternal(Content, S.Contents);
    if (S.Relocs.empty())
      continue;
    Bytes &R = RelaPool;
    const size_t Begin = R.size();
    for (const Relocation &Rel : S.Relocs) {
      R.u64(Rel.Offset);
      switch (Rel.Kind) {
      case RelocKind::NameRef:
        R.u64(uint64_t(ElfSym[Rel.Symbol]) << 32 | RelName);
        R.u64(Rel.Length);
        break;
      case RelocKind::FileIndex:
        R.u64(RelFile);
        R.u64(uint64_t(Rel.Symbol) << 32 | Rel.Length);
        break;
      case RelocKind::Data32:
      case RelocKind::Data64:
        R.u64(uint64_t(ElfSym[Rel.Symbol]) << 32 | (Rel.Kind == RelocKind::Data32 ? RelData32 : RelData64));
        R.u64(static_cast<uint64_t>(Rel.Addend));
        break;
      case RelocKind::SectionOffset:
        R.u64(uint64_t(ElfSym[Rel.Symbol]) << 32 | RelSectionOffset);
        R.u64(static_cast<uint64_t>(Rel.Addend) << SectionOffsetLengthBits | Rel.Length);
        break;
      }
    }
    uint32_t RelaName = Strings.addConcat(".rela", sectionPrefix(S.Kind), Suffix);
    L.addExternal(sec(RelaName, ELF::SHT_RELA, ELF::SHF_INFO_LINK, 8, sizeof(ElfRela), SymtabIndex, ContentIndex[I]),
                  R.str().substr(Begin));
  }

  Bytes SecTable;
  SecTable.reserve(NSec * SectionRecordSize);
  for (size_t I = 0; I < NSec; ++I) {
    const Section &S = V.Sections[I];
    SecTable.u32(ContentIndex[I]);
    SecTable.u32(RelaIndex[I]);
    SecTable.u8(static_cast<uint8_t>(S.Kind));
    SecTable.u8(0);
    SecTable.u8(0);
    SecTable.u8(0);
    SecTable.u32(S.Symbol);
    SecTable.u32(S.HeaderLength);
    Strings.ref(SecTable, S.Name);
    writeLoc(SecTable, S.Where);
    SecTable.u32(0);
  }

  // Symbols: ELF entries (in ELF order) and the side table (in model order).
  Bytes Symtab;
  Symtab.zeros(size_t(NextSym) * sizeof(ElfSymbol));
  std::vector<uint32_t> ShndxTable; // SHT_SYMTAB_SHNDX entries, only if some index needs them
  Bytes SymTable;
  SymTable.reserve(NSym * SymbolRecordSize);
  for (size_t I = 0; I < NSym; ++I) {
    const Symbol &S = V.Symbols[I];
    uint32_t Sec = S.Section;
    uint64_t Value = S.Value;
    if (Sec == NoSection && S.AliasOf != NoSymbol) {
      // `.alias`: a second symbol on the aliasee's place.
      const Symbol &Target = V.Symbols[S.AliasOf];
      Sec = Target.Section;
      Value = Target.Value;
    }
    bool InitCommon = false;
    uint8_t Bind = ELF::STB_GLOBAL;
    uint32_t Shndx = Sec == NoSection ? uint32_t(ELF::SHN_ABS) : ContentIndex[Sec];
    bool Special = Sec == NoSection;
    switch (S.Bind) {
    case Binding::Local:
      Bind = ELF::STB_LOCAL;
      break;
    case Binding::Global:
      break;
    case Binding::Weak:
      Bind = ELF::STB_WEAK;
      break;
    case Binding::Undefined:
      Shndx = ELF::SHN_UNDEF;
      Special = true;
      Value = 0;
      break;
    case Binding::Common:
      if (S.Initialized && Sec != NoSection) {
        InitCommon = true;
        Value = 0;
      } else {
        Shndx = ELF::SHN_COMMON;
        Special = true;
        Value = S.Align ? S.Align : 1;
      }
      break;
    }
    uint32_t Name = Strings.add(S.Name);
    auto &E = *reinterpret_cast<ElfSymbol *>(Symtab.data() + size_t(ElfSym[I]) * sizeof(ElfSymbol));
    E.st_name = Name;
    E.setBindingAndType(Bind, symType(S.Kind));
    E.st_other = 0;
    if (!Special && Shndx >= ELF::SHN_LORESERVE) {
      if (ShndxTable.empty())
        ShndxTable.resize(NextSym, 0);
      ShndxTable[ElfSym[I]] = Shndx;
      Shndx = ELF::SHN_XINDEX;
    }
    E.st_shndx = static_cast<uint16_t>(Shndx);
    E.st_value = Value;
    E.st_size = S.Size;

    SymTable.u32(ElfSym[I]);
    SymTable.u8(static_cast<uint8_t>(S.Kind));
    SymTable.u8(spaceCode(S.Space));
    SymTable.u8((S.Initialized ? SymInitialized : 0) | (InitCommon ? SymInitializedCommon : 0));
    SymTable.u8(0);
    SymTable.u32(S.Section);
    SymTable.u32(S.Align);
    SymTable.u32(S.AliasOf);
    SymTable.u32(static_cast<uint32_t>(S.Name.size()));
    writeLoc(SymTable, S.Where);
  }

  Bytes Files;
  Files.reserve(V.Files.size() * FileRecordSize);
  for (const FileEntry &F : V.Files) {
    Files.u32(F.Index);
    Files.u32((F.Timestamp ? 1 : 0) | (F.Size ? 2 : 0));
    Strings.ref(Files, F.Path);
    Files.u64(F.Timestamp.value_or(0));
    Files.u64(F.Size.value_or(0));
  }

  Bytes Abi = buildAbi(V, Strings);

  L.addOwned(sec(Strings.add(".ptxlink.sections"), ShtSections, 0, 4, SectionRecordSize), std::move(SecTable));
  L.addOwned(sec(Strings.add(".ptxlink.symbols"), ShtSymbols, 0, 4, SymbolRecordSize), std::move(SymTable));
  L.addOwned(sec(Strings.add(".ptxlink.abi"), ShtAbi, 0, 4), std::move(Abi));
  L.addOwned(sec(Strings.add(".ptxlink.files"), ShtFiles, 0, 8, FileRecordSize), std::move(Files));
  uint32_t SymtabName = Strings.add(".symtab");
  uint32_t StrtabName = Strings.add(".strtab");
  uint32_t ShndxName = ShndxTable.empty() ? 0 : Strings.add(".symtab_shndx");
  L.addOwned(sec(SymtabName, ELF::SHT_SYMTAB, 0, 8, sizeof(ElfSymbol), StrtabIndex, FirstGlobal), std::move(Symtab));
  L.addOwned(sec(StrtabName, ELF::SHT_STRTAB, 0, 1), std::move(Strings.Data));
  if (!ShndxTable.empty()) {
    // Symbols in sections numbered 0xff00 and up: their indices live in SHT_SYMTAB_SHNDX (last section).
    Bytes Shndx;
    Shndx.reserve(ShndxTable.size() * 4);
    for (uint32_t X : ShndxTable)
      Shndx.u32(X);
    L.addOwned(sec(ShndxName, ELF::SHT_SYMTAB_SHNDX, 0, 4, 4, SymtabIndex), std::move(Shndx));
  }
  (void)SecTableIndex, (void)SymTableIndex, (void)AbiIndex, (void)FilesIndex;
  L.ShStrIndex = StrtabIndex;
  L.write(OS);
  return llvm::Error::success();
}

bool isExternalDefinition(const Symbol &S) {
  if (S.Kind != SymbolKind::Function && S.Kind != SymbolKind::Kernel && S.Kind != SymbolKind::Variable)
    return false;
  return S.Bind == Binding::Global || S.Bind == Binding::Weak || S.Bind == Binding::Common;
}

llvm::Error writeFat(const ObjectFile &Object, llvm::raw_ostream &OS) {
  Layout L;
  L.EFlags = FlagFat | (Object.Variants.empty() ? 0 : cudaMachineFlags(Object.Variants.front().Target));
  StringPool Strings;
  const size_t N = Object.Variants.size();
  L.addOwned(sec(Strings.add(".note.ptxlink"), ELF::SHT_NOTE, 0, 4), buildNote(nullptr, NoteFat, static_cast<uint32_t>(N)));
  for (const ModuleVariant &V : Object.Variants) {
    std::string Inner;
    llvm::raw_string_ostream IS(Inner);
    if (llvm::Error E = writeVariant(V, IS))
      return E;
    IS.flush();
    Bytes Data;
    Data.raw(Inner);
    L.addOwned(sec(Strings.addConcat(".ptxlink.variant.", V.Target.Arch), ShtVariant, ELF::SHF_ALLOC | ELF::SHF_EXECINSTR, 8),
               std::move(Data));
  }
  const uint32_t SymtabIndex = static_cast<uint32_t>(N) + 2, StrtabIndex = SymtabIndex + 1;

  // One outer symbol per external name, defined in the first variant that defines it.
  Bytes Symtab;
  Symtab.zeros(sizeof(ElfSymbol));
  llvm::StringMap<bool> Seen;
  for (size_t VI = 0; VI < N; ++VI)
    for (const Symbol &S : Object.Variants[VI].Symbols) {
      if (!isExternalDefinition(S) || !Seen.try_emplace(S.Name, true).second)
        continue;
      bool Common = S.Bind == Binding::Common && !(S.Initialized && S.Section != NoSection);
      Symtab.u32(Strings.add(S.Name));
      Symtab.u8(static_cast<uint8_t>((S.Bind == Binding::Weak ? ELF::STB_WEAK : ELF::STB_GLOBAL) << 4 | symType(S.Kind)));
      Symtab.u8(0);
      Symtab.u16(Common ? uint16_t(ELF::SHN_COMMON) : static_cast<uint16_t>(VI + 2));
      Symtab.u64(Common ? (S.Align ? S.Align : 1) : 0);
      Symtab.u64(S.Size);
    }
  uint32_t SymtabName = Strings.add(".symtab");
  uint32_t StrtabName = Strings.add(".strtab");
  L.addOwned(sec(SymtabName, ELF::SHT_SYMTAB, 0, 8, sizeof(ElfSymbol), StrtabIndex, 1), std::move(Symtab));
  L.addOwned(sec(StrtabName, ELF::SHT_STRTAB, 0, 1), std::move(Strings.Data));
  L.ShStrIndex = StrtabIndex;
  L.write(OS);
  return llvm::Error::success();
}

} // namespace

llvm::Error writeObject(const ObjectFile &Object, llvm::raw_ostream &OS) {
  if (Object.Variants.size() == 1)
    return writeVariant(Object.Variants.front(), OS);
  return writeFat(Object, OS);
}

} // namespace ptxlink
