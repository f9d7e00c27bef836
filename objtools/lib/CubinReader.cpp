// Decoding an NVIDIA cubin from memory (see include/ptxlink/Cubin.h and docs/nvidia-formats.md).
//
// The ELF tables are read through ElfView, which keeps going past a broken section header, symbol or
// relocation table (reporting its file offset) instead of failing the whole file; NVIDIA's own records
// (.nv.info, .nv.callgraph, .note.nv.tkinfo) are decoded here from the sections' contents.
#include "ptxlink/Cubin.h"

#include "ElfView.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace ptxlink {
namespace {

struct Reader {
  const ElfView &View;
  const CubinWarnFn &Warn;
  StringRef contents(const CubinSection &S) const { return View.contents(S.Index); }
};

void readSections(Reader &R, CubinInfo &Info) {
  const ElfView &V = R.View;
  Info.Sections.reserve(V.sectionCount());
  for (size_t I = 0; I < V.sectionCount(); ++I) {
    const ElfSectionHeader &H = V.section(I);
    CubinSection S;
    S.Index = uint32_t(I);
    S.Name = V.sectionName(I).str();
    S.Type = H.sh_type;
    S.Flags = H.sh_flags;
    S.Addr = H.sh_addr;
    S.Offset = H.sh_offset;
    S.Size = H.sh_size;
    S.Link = H.sh_link;
    S.Info = H.sh_info;
    S.Align = H.sh_addralign;
    S.EntSize = H.sh_entsize;
    Info.Sections.push_back(std::move(S));
  }
}

void readSymbols(Reader &R, CubinInfo &Info) {
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != ELF::SHT_SYMTAB)
      continue;
    StringRef Strings;
    if (S.Link < Info.Sections.size())
      Strings = R.contents(Info.Sections[S.Link]);
    ElfTable<ElfSymbol> Symbols = R.View.table<ElfSymbol>(R.View.section(S.Index), "symbol table", R.Warn);
    Info.Symbols.reserve(Symbols.size());
    for (size_t I = 0; I < Symbols.size(); ++I) {
      const ElfSymbol &E = Symbols[I];
      CubinSymbol Sym;
      Sym.Index = uint32_t(I);
      Sym.Name = ElfView::stringAt(Strings, E.st_name).str();
      Sym.Bind = E.getBinding();
      Sym.Type = E.getType();
      Sym.Other = E.st_other;
      Sym.Shndx = E.st_shndx;
      Sym.Value = E.st_value;
      Sym.Size = E.st_size;
      if (Sym.Name.empty() && Sym.Type == ELF::STT_SECTION && Sym.Shndx < Info.Sections.size())
        Sym.Name = Info.Sections[Sym.Shndx].Name;
      Info.Symbols.push_back(std::move(Sym));
    }
    break; // one .symtab per cubin
  }
}

void readRelocs(Reader &R, CubinInfo &Info) {
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != ELF::SHT_RELA && S.Type != ELF::SHT_REL)
      continue;
    const ElfSectionHeader &H = R.View.section(S.Index);
    std::string What = "relocation section " + S.Name;
    auto Add = [&](uint64_t At, uint64_t Offset, uint32_t Type, uint32_t Symbol, int64_t Addend) {
      if (Symbol >= Info.Symbols.size())
        R.Warn(At + offsetof(ElfRel, r_info),
               formatv("relocation refers to symbol {0}, but there are {1}", Symbol, Info.Symbols.size()));
      Info.Relocs.push_back({S.Index, S.Info, Offset, Type, Symbol, Addend});
    };
    if (S.Type == ELF::SHT_RELA) {
      ElfTable<ElfRela> Relocs = R.View.table<ElfRela>(H, What.c_str(), R.Warn);
      for (size_t I = 0; I < Relocs.size(); ++I)
        Add(Relocs.offsetOf(I), Relocs[I].r_offset, Relocs[I].getType(false), Relocs[I].getSymbol(false),
            Relocs[I].r_addend);
    } else {
      ElfTable<ElfRel> Relocs = R.View.table<ElfRel>(H, What.c_str(), R.Warn);
      for (size_t I = 0; I < Relocs.size(); ++I)
        Add(Relocs.offsetOf(I), Relocs[I].r_offset, Relocs[I].getType(false), Relocs[I].getSymbol(false), 0);
    }
  }
}

void readAttributes(Reader &R, CubinInfo &Info) {
  for (const CubinSection &S : Info.Sections) {
    if (S.Type != nvelf::SHT_CUDA_INFO)
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
  // Looked up per function and per attribute below: indexed once, so that a cubin of many functions
  // costs n log n, not n^2 (10,000 functions took 2 s). Where a name occurs twice, the last one counts,
  // as it did when each function scanned the tables.
  StringMap<bool> KernelByName;
  for (const CubinSymbol &Sym : Info.Symbols)
    if (Sym.Type == ELF::STT_FUNC)
      KernelByName[Sym.Name] = Sym.isKernel();
  StringMap<uint64_t> SharedSizeByName;
  for (const CubinSection &Sh : Info.Sections)
    if (StringRef Name(Sh.Name); Name.starts_with(".nv.shared."))
      SharedSizeByName[Name.drop_front(11)] = Sh.Size;
  // Section index -> function: a table, since the lookups below use a file's sh_info, which may be any
  // 32-bit value (0xffffffff and 0xfffffffe would be DenseMap's reserved keys).
  constexpr size_t NoFunction = SIZE_MAX;
  std::vector<size_t> FunctionByTextSection;
  for (const CubinSection &S : Info.Sections) {
    if (!StringRef(S.Name).starts_with(".text."))
      continue;
    Names.ByInfoIndex[S.Info & 0xffffff] = S.Index;
    CubinFunction F;
    F.Name = StringRef(S.Name).drop_front(6).str();
    F.TextSection = S.Index;
    F.CodeSize = S.Size;
    if (auto It = KernelByName.find(F.Name); It != KernelByName.end())
      F.IsKernel = It->second;
    if (auto It = SharedSizeByName.find(F.Name); It != SharedSizeByName.end())
      F.SharedSize = It->second;
    ByName[F.Name] = Info.Functions.size();
    if (FunctionByTextSection.size() <= S.Index)
      FunctionByTextSection.resize(size_t(S.Index) + 1, NoFunction);
    FunctionByTextSection[S.Index] = Info.Functions.size();
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
    if (S.Name != ".nv.info" && S.Info < FunctionByTextSection.size() &&
        FunctionByTextSection[S.Info] != NoFunction)
      Owner = &Info.Functions[FunctionByTextSection[S.Info]];
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
    if (S.Type != nvelf::SHT_CUDA_CALLGRAPH)
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
    if (S.Type != ELF::SHT_NOTE || S.Name != ".note.nv.tkinfo")
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
  const ElfHeader *H = elf64Header(B);
  return H && H->e_machine == ELF::EM_CUDA &&
         (H->e_ident[ELF::EI_OSABI] == nvelf::ELFOSABI_CUDA_V2 || H->e_ident[ELF::EI_OSABI] == ELF::ELFOSABI_CUDA);
}

std::vector<CubinSection> readElfSections(const ElfView &View, const CubinWarnFn &Warn) {
  Reader R{View, Warn};
  CubinInfo Info;
  readSections(R, Info);
  return std::move(Info.Sections);
}

std::vector<CubinSection> readElfSections(StringRef Bytes, const CubinWarnFn &Warn) {
  std::optional<ElfView> View = ElfView::open(Bytes, ElfView::TablePolicy::Readable, Warn);
  if (!View)
    return {};
  return readElfSections(*View, Warn);
}

std::optional<CubinInfo> readCubin(StringRef Bytes, const CubinWarnFn &Warn) {
  if (Bytes.size() < sizeof(ElfHeader) || !Bytes.starts_with(ELF::ElfMagic)) {
    Warn(0, "not an ELF file");
    return std::nullopt;
  }
  const ElfHeader *H = elf64Header(Bytes);
  if (!H) {
    Warn(ELF::EI_CLASS, "not a 64-bit little-endian ELF file");
    return std::nullopt;
  }
  CubinInfo Info;
  Info.Type = H->e_type;
  Info.OsAbi = H->e_ident[ELF::EI_OSABI];
  Info.AbiVersion = H->e_ident[ELF::EI_ABIVERSION];
  Info.Flags = H->e_flags;
  if (H->e_machine != ELF::EM_CUDA)
    Warn(offsetof(ElfHeader, e_machine), formatv("e_machine {0} is not EM_CUDA (190)", uint16_t(H->e_machine)));
  std::optional<ElfView> View = ElfView::open(Bytes, ElfView::TablePolicy::Readable, Warn);
  Reader R{*View, Warn};
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
