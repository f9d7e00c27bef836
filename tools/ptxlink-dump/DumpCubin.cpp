// ptxlink-dump on NVIDIA cubins: ELF header with the arch decoded from e_flags, sections with NVIDIA's
// section type names, symbols with kernel flag and memory space, R_CUDA_* relocations, the .nv.info
// records by name, per-kernel resources and parameter layout, the call graph and the DWARF units.
#include "DumpInternal.h"

#include "ptxlink/Cubin.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace ptxlink::dump {
namespace {

const char *bindingName(uint8_t B) {
  switch (B) {
  case ELF::STB_LOCAL: return "local";
  case ELF::STB_GLOBAL: return "global";
  case ELF::STB_WEAK: return "weak";
  default: return "other";
  }
}

std::string symbolKind(const CubinSymbol &S) {
  switch (S.Type) {
  case ELF::STT_NOTYPE: return "notype";
  case ELF::STT_OBJECT: return "object";
  case ELF::STT_FUNC: return S.isKernel() ? "kernel" : "function";
  case ELF::STT_SECTION: return "section";
  case ELF::STT_FILE: return "file";
  case nvelf::STT_CUDA_VARIABLE: return "variable"; // NVIDIA's variables in relocatable cubins
  default: return "type" + std::to_string(S.Type);
  }
}

const char *spaceName(uint8_t Other) {
  switch (Other & nvelf::STO_CUDA_SPACE_MASK) {
  case nvelf::STO_CUDA_GLOBAL: return "global";
  case nvelf::STO_CUDA_SHARED: return "shared";
  case nvelf::STO_CUDA_CONSTANT: return "const";
  case 0: return "";
  default: return "other";
  }
}

std::string sectionTypeName(uint32_t T) {
  switch (T) {
  case ELF::SHT_NULL: return "NULL";
  case ELF::SHT_PROGBITS: return "PROGBITS";
  case ELF::SHT_SYMTAB: return "SYMTAB";
  case ELF::SHT_STRTAB: return "STRTAB";
  case ELF::SHT_RELA: return "RELA";
  case ELF::SHT_HASH: return "HASH";
  case ELF::SHT_DYNAMIC: return "DYNAMIC";
  case ELF::SHT_NOTE: return "NOTE";
  case ELF::SHT_NOBITS: return "NOBITS";
  case ELF::SHT_REL: return "REL";
  default: break;
  }
  StringRef N = cudaSectionTypeName(T);
  return N.empty() ? hex(T) : N.str();
}

// The driver's limit on a kernel's parameter buffer for a cubin (PTX version unknown here): 32764
// bytes from sm_70 on (with PTX ISA 8.1+ producers), else 4096.
uint32_t cubinParamLimit(uint32_t Sm) { return Sm >= 70 ? 32764 : 4096; }

// Names of a section or symbol by index, as the views print them (the index itself when out of range).
std::string sectionNameOf(const CubinInfo &Info, uint32_t I) {
  return I < Info.Sections.size() ? Info.Sections[I].Name : std::to_string(I);
}
std::string symbolNameOf(const CubinInfo &Info, uint32_t I) {
  return I < Info.Symbols.size() ? Info.Symbols[I].Name : formatv("<symbol {0}>", I).str();
}

} // namespace

void describeCubin(Context &C, const Origin &O, StringRef Bytes, Node &N) {
  auto Warn = [&](uint64_t Off, const Twine &Msg) { C.warn(O, Off, Msg); };
  std::optional<CubinInfo> Read = readCubin(Bytes, Warn);
  if (!Read)
    return;
  // The views whose length grows with the cubin (sections, symbols, relocations, .nv.info attributes,
  // functions, call edges) are streams over the parsed cubin, which they keep alive: each record is made
  // when the output reaches it and dropped once written, instead of a JSON array of them all (a cubin of
  // 10,000 functions took 615 MB for --all that way).
  auto Info = std::make_shared<const CubinInfo>(std::move(*Read));
  json::Object &Node = N.Fields;
  const uint64_t Base = O.Base;

  if (C.Opts.Headers) {
    json::Array Tool;
    for (const std::string &T : Info->ToolInfo)
      Tool.push_back(T);
    json::Object H{{"type", Info->Type == 1 ? "REL" : Info->Type == 2 ? "EXEC" : hex(Info->Type)},
                   {"arch", Info->archName()},
                   {"sm", Info->Arch.Sm},
                   {"archSpecific", Info->Arch.isArchSpecific()},
                   {"osabi", hex(Info->OsAbi)},
                   {"abiVersion", Info->AbiVersion},
                   {"eflags", hex(Info->Flags)},
                   {"toolInfo", std::move(Tool)}};
    if (Info->VirtualSm)
      H["virtualSm"] = Info->VirtualSm;
    Node["headers"] = std::move(H);
  }
  if (C.Opts.Sections)
    N.Streams.emplace_back("sections", [Info, Base](dump::Node::Emit Emit) {
      for (const CubinSection &S : Info->Sections) {
        dump::Node Record;
        Record.Fields = json::Object{{"index", S.Index},   {"name", S.Name},         {"type", sectionTypeName(S.Type)},
                                     {"flags", hex(S.Flags)}, {"offset", Base + S.Offset}, {"size", S.Size},
                                     {"link", S.Link},     {"info", S.Info},         {"align", S.Align}};
        Emit(Record);
      }
    });
  if (C.Opts.Symbols)
    N.Streams.emplace_back("symbols", [Info](dump::Node::Emit Emit) {
      for (const CubinSymbol &S : Info->Symbols) {
        if (S.Index == 0)
          continue;
        dump::Node Record;
        json::Object &J = Record.Fields;
        J = json::Object{{"index", S.Index},
                         {"name", S.Name},
                         {"binding", bindingName(S.Bind)},
                         {"kind", symbolKind(S)},
                         {"space", spaceName(S.Other)},
                         {"size", S.Size},
                         {"value", S.Value},
                         {"section", S.Shndx == 0       ? "UND"
                                     : S.Shndx == 0xfff2 ? "COMMON"
                                     : S.Shndx >= 0xff00 ? hex(S.Shndx)
                                                         : sectionNameOf(*Info, S.Shndx)}};
        if (std::string D = demangled(S.Name); !D.empty())
          J["demangled"] = D;
        Emit(Record);
      }
    });
  if (C.Opts.Relocs)
    N.Streams.emplace_back("relocs", [Info](dump::Node::Emit Emit) {
      for (const CubinReloc &R : Info->Relocs) {
        StringRef TypeName = cudaRelocName(R.Type);
        dump::Node Record;
        Record.Fields = json::Object{{"section", sectionNameOf(*Info, R.Section)},
                                     {"target", sectionNameOf(*Info, R.Target)},
                                     {"offset", hex(R.Offset)},
                                     {"type", TypeName.empty() ? "R_CUDA_" + std::to_string(R.Type) : TypeName.str()},
                                     {"typeNumber", R.Type},
                                     {"symbol", symbolNameOf(*Info, R.Symbol)},
                                     {"addend", R.Addend}};
        Emit(Record);
      }
    });
  if (C.Opts.NvInfo)
    N.Streams.emplace_back("nvinfo", [Info, Base](dump::Node::Emit Emit) {
      for (const CubinAttribute &At : Info->Attributes) {
        StringRef Name = cudaAttributeName(At.Id);
        dump::Node Record;
        json::Object &J = Record.Fields;
        J = json::Object{{"section", sectionNameOf(*Info, At.Section)},
                         {"offset", Base + At.FileOffset},
                         {"attribute", Name.empty() ? "EIATTR_UNKNOWN_" + hex(At.Id) : Name.str()},
                         {"id", hex(At.Id)},
                         {"format", At.Format}};
        if (At.Format == 2 || At.Format == 3)
          J["value"] = At.Value;
        if (At.Format == 4) {
          J["payload"] = toHex(At.Payload, /*LowerCase=*/true);
          // Attributes that are {symbol, value} pairs or lists of u32 read better decoded.
          if ((At.Id == 0x2f || At.Id == 0x11 || At.Id == 0x12 || At.Id == 0x23) && At.Payload.size() == 8) {
            uint32_t Index = support::endian::read32le(At.Payload.data());
            J["symbolIndex"] = Index;
            auto It = llvm::lower_bound(Info->InfoSymbolNames, std::make_pair(Index, std::string()));
            if (It != Info->InfoSymbolNames.end() && It->first == Index)
              J["symbol"] = It->second;
            else if (Index < Info->Symbols.size())
              J["symbol"] = Info->Symbols[Index].Name;
            J["value"] = support::endian::read32le(At.Payload.data() + 4);
          }
        }
        Emit(Record);
      }
    });
  if (C.Opts.Abi) {
    dump::Node Abi;
    Abi.Streams.emplace_back("functions", [Info](dump::Node::Emit Emit) {
      for (const CubinFunction &F : Info->Functions) {
        dump::Node Record;
        json::Object &J = Record.Fields;
        J = json::Object{{"name", F.Name}, {"kind", F.IsKernel ? "kernel" : "function"}, {"codeSize", F.CodeSize},
                         {"sharedSize", F.SharedSize}};
        if (std::string D = demangled(F.Name); !D.empty())
          J["demangled"] = D;
        auto Opt = [&](const char *Key, const std::optional<uint32_t> &V) {
          if (V)
            J[Key] = *V;
        };
        Opt("registers", F.Registers);
        Opt("frameSize", F.FrameSize);
        Opt("minStackSize", F.MinStack);
        Opt("maxStackSize", F.MaxStack);
        Opt("maxRegCount", F.MaxRegCount);
        if (F.IsKernel) {
          json::Array Params;
          uint64_t End = 0;
          for (const CubinParam &P : F.Params) {
            Params.push_back(json::Object{{"ordinal", P.Ordinal}, {"offset", P.Offset}, {"size", P.Size},
                                          {"word", hex(P.Word)}});
            End = std::max<uint64_t>(End, uint64_t(P.Offset) + P.Size);
          }
          uint64_t Total = F.ParamSize ? *F.ParamSize : End;
          uint32_t Limit = cubinParamLimit(Info->Arch.Sm);
          json::Object Layout{{"params", std::move(Params)}, {"totalSize", Total}, {"limit", Limit},
                              {"fits", Total <= Limit}};
          if (F.ParamBankOffset)
            Layout["constantBankOffset"] = hex(*F.ParamBankOffset);
          J["layout"] = std::move(Layout);
        }
        Emit(Record);
      }
    });
    N.Objects.emplace_back("abi", std::move(Abi));
  }
  if (C.Opts.Callgraph)
    N.Streams.emplace_back("callgraph", [Info](dump::Node::Emit Emit) {
      for (const CubinCallEdge &E : Info->CallGraph) {
        dump::Node Record;
        Record.Fields = json::Object{{"caller", E.Caller}, {"callee", E.Callee}, {"kind", "call"}};
        Emit(Record);
      }
    });
  if (C.Opts.Debug)
    Node["debug"] = describeDwarfOfElf(C, O, Bytes);
}

} // namespace ptxlink::dump
