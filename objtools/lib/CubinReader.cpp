// Decoding an NVIDIA cubin from memory (see include/ptxlink/Cubin.h and docs/nvidia-formats.md).
//
// A hand-written ELF64 walk rather than llvm::object: the reader must keep going past a broken section
// header, symbol or relocation (reporting its file offset) instead of failing the whole file, and
// NVIDIA's own records (.nv.info, .nv.callgraph) need the raw section table anyway.
#include "ptxlink/Cubin.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace ptxlink {
namespace {

constexpr uint32_t ShtSymtab = 2, ShtRela = 4, ShtNobits = 8, ShtRel = 9, ShtNote = 7;
constexpr uint32_t ShtCudaInfo = 0x70000000, ShtCudaCallgraph = 0x70000001;

struct Reader {
  StringRef B;
  const CubinWarnFn &Warn;
  bool in(uint64_t Off, uint64_t Size) const { return Off <= B.size() && Size <= B.size() - Off; }
  uint16_t u16(uint64_t Off) const { return support::endian::read16le(B.data() + Off); }
  uint32_t u32(uint64_t Off) const { return support::endian::read32le(B.data() + Off); }
  uint64_t u64(uint64_t Off) const { return support::endian::read64le(B.data() + Off); }
  StringRef contents(const CubinSection &S) const {
    if (S.Type == ShtNobits || !in(S.Offset, S.Size))
      return {};
    return B.substr(S.Offset, S.Size);
  }
};

StringRef cstr(StringRef Table, uint64_t Off) {
  if (Off >= Table.size())
    return {};
  return Table.substr(Off).take_until([](char C) { return C == '\0'; });
}

void readSections(Reader &R, CubinInfo &Info) {
  uint64_t ShOff = R.u64(0x28);
  uint16_t ShEntSize = R.u16(0x3A), ShNum = R.u16(0x3C), ShStrNdx = R.u16(0x3E);
  if (ShNum == 0)
    return;
  if (ShEntSize < 64) {
    R.Warn(0x3A, formatv("section header size {0} is smaller than 64", ShEntSize));
    return;
  }
  std::vector<uint32_t> NameOffsets;
  for (unsigned I = 0; I < ShNum; ++I) {
    uint64_t H = ShOff + uint64_t(I) * ShEntSize;
    if (H < ShOff || !R.in(H, 64)) {
      R.Warn(H, formatv("section header {0} lies outside the file ({1} bytes)", I, R.B.size()));
      break;
    }
    CubinSection S;
    S.Index = I;
    S.Type = R.u32(H + 4);
    S.Flags = R.u64(H + 8);
    S.Addr = R.u64(H + 0x10);
    S.Offset = R.u64(H + 0x18);
    S.Size = R.u64(H + 0x20);
    S.Link = R.u32(H + 0x28);
    S.Info = R.u32(H + 0x2C);
    S.Align = R.u64(H + 0x30);
    S.EntSize = R.u64(H + 0x38);
    if (S.Type != ShtNobits && I != 0 && !R.in(S.Offset, S.Size))
      R.Warn(H + 0x18, formatv("section {0}: contents [{1}, +{2}) lie outside the file ({3} bytes)", I, S.Offset,
                              S.Size, R.B.size()));
    Info.Sections.push_back(std::move(S));
    NameOffsets.push_back(R.u32(H));
  }
  StringRef Names;
  if (ShStrNdx < Info.Sections.size())
    Names = R.contents(Info.Sections[ShStrNdx]);
  else
    R.Warn(0x3E, formatv("section name table index {0} is out of range", ShStrNdx));
  for (size_t I = 0; I < Info.Sections.size(); ++I)
    Info.Sections[I].Name = cstr(Names, NameOffsets[I]).str();
}

void readSymbols(Reader &R, CubinInfo &Info) {
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != ShtSymtab)
      continue;
    StringRef Data = R.contents(S);
    StringRef Strings;
    if (S.Link < Info.Sections.size())
      Strings = R.contents(Info.Sections[S.Link]);
    uint64_t Ent = S.EntSize ? S.EntSize : 24;
    if (Ent < 24) {
      R.Warn(S.Offset, formatv("symbol table entry size {0} is smaller than 24", Ent));
      continue;
    }
    // Entries that have their 24 bytes in the table; counted by division, since I * Ent + 24 can wrap
    // around for a hostile entry size (found by fuzzing).
    uint64_t Count = Data.size() < 24 ? 0 : (Data.size() - 24) / Ent + 1;
    for (uint64_t I = 0; I < Count; ++I) {
      uint64_t P = S.Offset + I * Ent;
      CubinSymbol Sym;
      Sym.Index = uint32_t(I);
      Sym.Name = cstr(Strings, R.u32(P)).str();
      uint8_t InfoByte = uint8_t(R.B[P + 4]);
      Sym.Bind = InfoByte >> 4;
      Sym.Type = InfoByte & 0xf;
      Sym.Other = uint8_t(R.B[P + 5]);
      Sym.Shndx = R.u16(P + 6);
      Sym.Value = R.u64(P + 8);
      Sym.Size = R.u64(P + 16);
      if (Sym.Name.empty() && Sym.Type == 3 /*STT_SECTION*/ && Sym.Shndx < Info.Sections.size())
        Sym.Name = Info.Sections[Sym.Shndx].Name;
      Info.Symbols.push_back(std::move(Sym));
    }
    if (Data.size() % Ent)
      R.Warn(S.Offset, formatv("symbol table size {0} is not a multiple of {1}", Data.size(), Ent));
    break; // one .symtab per cubin
  }
}

void readRelocs(Reader &R, CubinInfo &Info) {
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != ShtRela && S.Type != ShtRel)
      continue;
    bool Rela = S.Type == ShtRela;
    uint64_t Ent = S.EntSize ? S.EntSize : (Rela ? 24 : 16);
    if (Ent < (Rela ? 24u : 16u)) {
      R.Warn(S.Offset, formatv("relocation entry size {0} is too small in section {1}", Ent, S.Name));
      continue;
    }
    StringRef Data = R.contents(S);
    for (uint64_t I = 0; I * Ent + Ent <= Data.size(); ++I) {
      uint64_t P = S.Offset + I * Ent;
      CubinReloc Rel;
      Rel.Section = S.Index;
      Rel.Target = S.Info;
      Rel.Offset = R.u64(P);
      uint64_t InfoWord = R.u64(P + 8);
      Rel.Type = uint32_t(InfoWord);
      Rel.Symbol = uint32_t(InfoWord >> 32);
      Rel.Addend = Rela ? int64_t(R.u64(P + 16)) : 0;
      if (Rel.Symbol >= Info.Symbols.size())
        R.Warn(P + 8, formatv("relocation refers to symbol {0}, but there are {1}", Rel.Symbol,
                              Info.Symbols.size()));
      Info.Relocs.push_back(Rel);
    }
  }
}

void readAttributes(Reader &R, CubinInfo &Info) {
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != ShtCudaInfo)
      continue;
    StringRef Data = R.contents(S);
    for (uint64_t P = 0; P < Data.size();) {
      if (Data.size() - P < 4) {
        R.Warn(S.Offset + P, formatv("truncated attribute record in {0}", S.Name));
        break;
      }
      CubinAttribute A;
      A.Section = S.Index;
      A.FileOffset = S.Offset + P;
      A.Format = uint8_t(Data[P]);
      A.Id = uint8_t(Data[P + 1]);
      A.Value = support::endian::read16le(Data.data() + P + 2);
      if (A.Format < 1 || A.Format > 4) {
        R.Warn(A.FileOffset, formatv("unknown attribute record format {0} in {1}", A.Format, S.Name));
        break; // record length unknown: cannot resync
      }
      P += 4;
      if (A.Format == 4) {
        if (A.Value > Data.size() - P) {
          R.Warn(A.FileOffset, formatv("attribute 0x{0:x-2} payload of {1} bytes runs past the end of {2}", A.Id,
                                       A.Value, S.Name));
          break;
        }
        A.Payload = Data.substr(P, A.Value).str();
        P += A.Value;
      }
      Info.Attributes.push_back(std::move(A));
    }
  }
}

uint32_t le32(StringRef S, size_t Off) { return support::endian::read32le(S.data() + Off); }

// Symbol indices in .nv.info and .nv.callgraph (and a text section's sh_info) are the ones ptxas used
// before it sorted the symbol table; relocations use the final ones. The text sections' sh_info links
// the two numberings, so a function is found through its text section first (docs/nvidia-formats.md).
struct FunctionNames {
  DenseMap<uint32_t, uint32_t> ByInfoIndex; // pre-sort index -> text section
  const CubinInfo &Info;
  std::string name(uint32_t Index) const {
    // Keys are 24-bit (sh_info & 0xffffff): an index above that is in no text section, and must not
    // reach find(), where 0xffffffff and 0xfffffffe are DenseMap's reserved empty and tombstone keys.
    if (Index <= 0xffffff)
      if (auto It = ByInfoIndex.find(Index); It != ByInfoIndex.end())
        return StringRef(Info.Sections[It->second].Name).drop_front(6).str();
    if (Index < Info.Symbols.size())
      return Info.Symbols[Index].Name;
    return formatv("<symbol {0}>", Index).str();
  }
};

void buildFunctions(Reader &R, CubinInfo &Info) {
  FunctionNames Names{DenseMap<uint32_t, uint32_t>(), Info};
  std::map<std::string, size_t> ByName;
  for (const CubinSection &S : Info.Sections) {
    if (!StringRef(S.Name).starts_with(".text."))
      continue;
    Names.ByInfoIndex[S.Info & 0xffffff] = S.Index;
    CubinFunction F;
    F.Name = StringRef(S.Name).drop_front(6).str();
    F.TextSection = S.Index;
    F.CodeSize = S.Size;
    for (const CubinSymbol &Sym : Info.Symbols)
      if (Sym.Name == F.Name && Sym.Type == 2 /*STT_FUNC*/)
        F.IsKernel = Sym.isKernel();
    for (const CubinSection &Sh : Info.Sections)
      if (Sh.Name == ".nv.shared." + F.Name)
        F.SharedSize = Sh.Size;
    ByName[F.Name] = Info.Functions.size();
    Info.Functions.push_back(std::move(F));
  }
  for (auto &[Index, Section] : Names.ByInfoIndex)
    Info.InfoSymbolNames.emplace_back(Index, StringRef(Info.Sections[Section].Name).drop_front(6).str());
  llvm::sort(Info.InfoSymbolNames);
  auto FunctionFor = [&](uint32_t Index) -> CubinFunction * {
    auto It = ByName.find(Names.name(Index));
    return It == ByName.end() ? nullptr : &Info.Functions[It->second];
  };
  for (const CubinAttribute &A : Info.Attributes) {
    const CubinSection &S = Info.Sections[A.Section];
    // Per-function sections: sh_info is the function's text section.
    CubinFunction *Owner = nullptr;
    if (S.Name != ".nv.info")
      for (CubinFunction &F : Info.Functions)
        if (F.TextSection == S.Info)
          Owner = &F;
    StringRef P = A.Payload;
    auto SymValue = [&](std::optional<uint32_t> CubinFunction::*Field) {
      if (P.size() < 8)
        return R.Warn(A.FileOffset, formatv("attribute {0} is {1} bytes, expected 8", cudaAttributeName(A.Id),
                                            P.size()));
      if (CubinFunction *F = FunctionFor(le32(P, 0)))
        F->*Field = le32(P, 4);
    };
    switch (A.Id) {
    case 0x2f: SymValue(&CubinFunction::Registers); break;
    case 0x11: SymValue(&CubinFunction::FrameSize); break;
    case 0x12: SymValue(&CubinFunction::MinStack); break;
    case 0x23: SymValue(&CubinFunction::MaxStack); break;
    case 0x1b:
      if (Owner)
        Owner->MaxRegCount = A.Value;
      break;
    case 0x19:
      if (Owner)
        Owner->ParamSize = A.Value;
      break;
    case 0x0a:
      if (Owner && P.size() >= 8)
        Owner->ParamBankOffset = le32(P, 4) & 0xffff;
      break;
    case 0x17:
      if (!Owner)
        break;
      if (P.size() < 12) {
        R.Warn(A.FileOffset, formatv("EIATTR_KPARAM_INFO is {0} bytes, expected 12", P.size()));
        break;
      }
      {
        CubinParam Param;
        Param.Ordinal = support::endian::read16le(P.data() + 4);
        Param.Offset = support::endian::read16le(P.data() + 6);
        Param.Word = le32(P, 8);
        Param.Size = Param.Word >> 18;
        Owner->Params.push_back(Param);
      }
      break;
    default:
      break;
    }
  }
  for (CubinFunction &F : Info.Functions)
    llvm::sort(F.Params, [](const CubinParam &A, const CubinParam &B) { return A.Ordinal < B.Ordinal; });

  // .nv.callgraph: {u32 caller, u32 callee} pairs; callee values 0xfffffffc..0xffffffff open groups
  // (-1 = call edges, then entries/recursion markers); only the call-edge group is decoded.
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != ShtCudaCallgraph)
      continue;
    StringRef Data = R.contents(S);
    if (Data.size() % 8)
      R.Warn(S.Offset, formatv("call graph size {0} is not a multiple of 8", Data.size()));
    bool InEdges = false;
    for (size_t P = 0; P + 8 <= Data.size(); P += 8) {
      uint32_t Caller = le32(Data, P), Callee = le32(Data, P + 4);
      if (Callee >= 0xfffffffc) {
        InEdges = Callee == 0xffffffff;
        continue;
      }
      if (InEdges)
        Info.CallGraph.push_back({Names.name(Caller), Names.name(Callee)});
    }
  }
}

void readNotes(Reader &R, CubinInfo &Info) {
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != ShtNote || S.Name != ".note.nv.tkinfo")
      continue;
    StringRef D = R.contents(S);
    if (D.size() < 12)
      continue;
    uint32_t NameSz = le32(D, 0), DescSz = le32(D, 4);
    uint64_t DescOff = 12 + ((uint64_t(NameSz) + 3) & ~uint64_t(3));
    if (DescOff > D.size() || DescSz > D.size() - DescOff) {
      R.Warn(S.Offset, "malformed .note.nv.tkinfo");
      continue;
    }
    StringRef Desc = D.substr(DescOff, DescSz);
    // Desc: a small header of u32 offsets, then NUL-separated strings; keep the printable strings.
    SmallVector<StringRef, 8> Parts;
    Desc.split(Parts, '\0', -1, false);
    for (StringRef Part : Parts)
      if (Part.size() > 1 && llvm::all_of(Part, [](char C) { return C >= 0x20 && C < 0x7f; }))
        Info.ToolInfo.push_back(Part.str());
  }
}

} // namespace

bool isCubin(StringRef B) {
  return B.size() >= 64 && B.starts_with("\x7f" "ELF") && B[4] == 2 && B[5] == 1 &&
         support::endian::read16le(B.data() + 0x12) == 190 && (uint8_t(B[7]) == 0x41 || uint8_t(B[7]) == 0x33);
}

std::vector<CubinSection> readElfSections(StringRef Bytes, const CubinWarnFn &Warn) {
  if (Bytes.size() < 64 || !Bytes.starts_with("\x7f" "ELF") || Bytes[4] != 2 || Bytes[5] != 1)
    return {};
  Reader R{Bytes, Warn};
  CubinInfo Info;
  readSections(R, Info);
  return std::move(Info.Sections);
}

std::optional<CubinInfo> readCubin(StringRef Bytes, const CubinWarnFn &Warn) {
  if (Bytes.size() < 64 || !Bytes.starts_with("\x7f" "ELF")) {
    Warn(0, "not an ELF file");
    return std::nullopt;
  }
  if (Bytes[4] != 2 || Bytes[5] != 1) {
    Warn(4, "not a 64-bit little-endian ELF file");
    return std::nullopt;
  }
  Reader R{Bytes, Warn};
  CubinInfo Info;
  Info.Type = R.u16(0x10);
  Info.OsAbi = uint8_t(Bytes[7]);
  Info.AbiVersion = uint8_t(Bytes[8]);
  Info.Flags = R.u32(0x30);
  if (R.u16(0x12) != 190)
    Warn(0x12, formatv("e_machine {0} is not EM_CUDA (190)", R.u16(0x12)));
  Info.Arch = targetFromCudaElfFlags(Info.Flags, Info.AbiVersion);
  if (Info.AbiVersion < 8)
    Info.VirtualSm = (Info.Flags & llvm::ELF::EF_CUDA_VIRTUAL_SM) >> 16;
  readSections(R, Info);
  readSymbols(R, Info);
  readRelocs(R, Info);
  readAttributes(R, Info);
  for (const CubinSection &S : Info.Sections)
    if (S.Name == ".nv.compat" && nvCompatSaysArchSpecific(R.contents(S)))
      Info.Arch.Suffix = 'a';
  buildFunctions(R, Info);
  readNotes(R, Info);
  return Info;
}

} // namespace ptxlink
