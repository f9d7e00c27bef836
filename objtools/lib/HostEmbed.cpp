// Fatbinaries inside host ELF files (see include/ptxlink/HostEmbed.h): locating them for ptxlink-dump,
// and emitting the embedding source for a host build.
//
// Objects keep the wrapper's data pointer as a relocation; executables hold an address (or, in a PIE,
// an R_X86_64_RELATIVE addend). Either way the fatbinary itself is found by section name, so the
// wrapper is decoded only to show what the host runtime will register.
#include "ptxlink/HostEmbed.h"

#include "ElfView.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace ptxlink {
namespace {

uint64_t rd64(StringRef B, uint64_t Off) { return support::endian::read64le(B.data() + Off); }
uint32_t rd32(StringRef B, uint64_t Off) { return support::endian::read32le(B.data() + Off); }

/// The NUL-terminated strings of Data spelled as PTX identifiers (letters, digits, `_`, `$`, `.`; the
/// names a registration call passes), appended to Out. Other literals (messages, format strings) are not.
void collectIdentifierStrings(StringRef Data, std::vector<std::string> &Out) {
  auto IdentifierChar = [](char C) { return isAlnum(C) || C == '_' || C == '$' || C == '.'; };
  while (!Data.empty()) {
    size_t End = Data.find('\0');
    StringRef S = Data.take_front(End);
    if (!S.empty() && llvm::all_of(S, IdentifierChar) && !isDigit(S.front()))
      Out.push_back(S.str());
    if (End == StringRef::npos)
      break;
    Data = Data.drop_front(End + 1);
  }
}

} // namespace

bool isHostElf(StringRef B) {
  const ElfHeader *H = elf64Header(B);
  return H && H->e_machine != ELF::EM_CUDA;
}

HostEmbedInfo readHostEmbedding(StringRef B, const CubinWarnFn &Warn) {
  HostEmbedInfo Info;
  // One view for the section list, the symbols and the contents: the section table's problems are
  // reported once, when it is opened.
  std::optional<ElfView> View = ElfView::open(B, ElfView::TablePolicy::Readable, Warn);
  if (!View)
    return Info;
  Info.Type = View->header().e_type;
  Info.Machine = View->header().e_machine;
  std::vector<CubinSection> Sections = readElfSections(*View, Warn);
  auto contents = [&](const CubinSection &S) { return View->contents(S.Index); };

  // Symbols of an object, to name the wrapper's data-pointer relocation target.
  std::vector<std::pair<std::string, uint16_t>> Symbols; // name, shndx
  for (const CubinSection &S : Sections) {
    if (S.Type != ELF::SHT_SYMTAB || S.Link >= Sections.size())
      continue;
    StringRef Strings = contents(Sections[S.Link]);
    ElfTable<ElfSymbol> Table = View->table<ElfSymbol>(View->section(S.Index), "symbol table", Warn);
    for (size_t I = 0; I < Table.size(); ++I) {
      const ElfSymbol &E = Table[I];
      StringRef Name = ElfView::stringAt(Strings, E.st_name);
      uint16_t Shndx = E.st_shndx;
      if (Name.empty() && E.getType() == ELF::STT_SECTION && Shndx < Sections.size())
        Name = Sections[Shndx].Name;
      Symbols.emplace_back(Name.str(), Shndx);
      if (Shndx != ELF::SHN_UNDEF && E.getBinding() == ELF::STB_GLOBAL && Name.starts_with("__cudaRegisterLinkedBinary_"))
        Info.LinkedBinaryFunctions.push_back(Name.str());
    }
  }

  for (const CubinSection &S : Sections) {
    StringRef Data = contents(S);
    if (S.Name == ".nv_fatbin" || S.Name == "__nv_relfatbin") {
      if (!View->hasContents(View->section(S.Index))) {
        Warn(S.Offset, formatv("section {0} has no readable contents", S.Name));
        continue;
      }
      Info.Fatbins.push_back({S.Name, S.Offset, Data});
    } else if (S.Name == "__nv_module_id") {
      Info.ModuleId = Data.take_until([](char C) { return !C; }).str();
      SmallVector<StringRef, 4> Ids;
      Data.split(Ids, '\0', -1, false);
      for (StringRef Id : Ids) {
        Id.consume_front("def ");
        Info.ModuleIds.push_back(Id.str());
      }
    } else if (StringRef(S.Name).starts_with(".rodata") && S.Type == ELF::SHT_PROGBITS) {
      collectIdentifierStrings(Data, Info.ReadOnlyNames);
    } else if (StringRef(S.Name).starts_with(".nvHR")) {
      SmallVector<StringRef, 4> Names;
      Data.split(Names, '\0', -1, false);
      std::vector<std::string> Out;
      for (StringRef N : Names)
        Out.push_back(N.str());
      Info.HostRefs.emplace_back(S.Name, std::move(Out));
    } else if (S.Name == ".nvFatBinSegment") {
      if (Data.size() % 24)
        Warn(S.Offset, formatv(".nvFatBinSegment size {0} is not a multiple of 24", Data.size()));
      // Object: relocations of this section name the wrappers' data.
      std::vector<ElfTable<ElfRela>> SegmentRelocs;
      for (const CubinSection &R : Sections)
        if (R.Type == ELF::SHT_RELA && R.Info == S.Index)
          SegmentRelocs.push_back(
              View->table<ElfRela>(View->section(R.Index), ("relocation section " + R.Name).c_str(), Warn));
      for (size_t P = 0; P + 24 <= Data.size(); P += 24) {
        FatbinWrapper W;
        W.FileOffset = S.Offset + P;
        W.Magic = rd32(Data, P);
        W.Version = rd32(Data, P + 4);
        W.Data = rd64(Data, P + 8);
        W.FilenameOrFatbins = rd64(Data, P + 16);
        if (W.Magic != FatbinWrapperMagic)
          Warn(W.FileOffset, formatv("fatbinary wrapper magic 0x{0:x-8}, expected 0x466243b1", W.Magic));
        // Object: the relocation at P+8 names the data.
        for (const ElfTable<ElfRela> &Relocs : SegmentRelocs) {
          for (size_t Q = 0; Q < Relocs.size(); ++Q) {
            if (Relocs[Q].r_offset != P + 8)
              continue;
            uint32_t Sym = Relocs[Q].getSymbol(false);
            uint64_t Addend = uint64_t(int64_t(Relocs[Q].r_addend));
            bool Negative = int64_t(Addend) < 0;
            // The magnitude in unsigned arithmetic: negating INT64_MIN as int64_t is undefined (found by fuzzing).
            if (Sym < Symbols.size())
              W.DataTarget = Symbols[Sym].first + (Negative ? "-" : "+") + std::to_string(Negative ? 0 - Addend : Addend);
          }
        }
        // Executable or shared library: an address inside a fatbinary section.
        if (W.DataTarget.empty())
          for (const CubinSection &F : Sections)
            if ((F.Name == ".nv_fatbin" || F.Name == "__nv_relfatbin") && W.Data >= F.Addr &&
                W.Data < F.Addr + F.Size)
              W.DataTarget = formatv("{0}+{1}", F.Name, W.Data - F.Addr).str();
        Info.Wrappers.push_back(std::move(W));
      }
    }
  }
  llvm::sort(Info.ReadOnlyNames);
  Info.ReadOnlyNames.erase(std::unique(Info.ReadOnlyNames.begin(), Info.ReadOnlyNames.end()), Info.ReadOnlyNames.end());
  return Info;
}

Expected<HostDeviceCode> readHostDeviceCode(StringRef Bytes, StringRef Name) {
  std::string Problem;
  uint64_t ProblemAt = 0;
  auto Warn = [&](uint64_t Offset, const Twine &Message) {
    if (Problem.empty()) {
      Problem = Message.str();
      ProblemAt = Offset;
    }
  };
  HostEmbedInfo Info = readHostEmbedding(Bytes, Warn);
  HostDeviceCode Code;
  Code.ModuleId = Info.ModuleId;
  Code.RegisteredNames = std::move(Info.ReadOnlyNames);
  for (const EmbeddedFatbin &F : Info.Fatbins) {
    if (F.SectionName != "__nv_relfatbin")
      continue; // `nvcc -c` (whole-program) device code: already linked, registered by the object itself
    Code.HasRelocatableFatbin = true;
    // Nothing is decompressed here: the linker decompresses the PTX images it uses, one at a time and
    // against its run's budget (hostObjectFromBuffer); cubins stay compressed.
    std::vector<FatbinImage> Images = readFatbin(
        F.Bytes, [&](uint64_t Offset, const Twine &Message) { Warn(F.FileOffset + Offset, Message); }, /*Decompress=*/false);
    for (FatbinImage &I : Images) {
      I.EntryOffset += F.FileOffset; // from the start of the host object, for messages
      Code.Images.push_back(std::move(I));
    }
  }
  if (!Problem.empty())
    return createStringError(inconvertibleErrorCode(), formatv("{0}: offset {1:x}: {2}", Name, ProblemAt, Problem).str());
  if (Code.HasRelocatableFatbin && Code.ModuleId.empty())
    return createStringError(inconvertibleErrorCode(),
                             (Name + ": has relocatable device code (__nv_relfatbin) but no module id (__nv_module_id section); "
                                     "was it made by nvcc -rdc=true -c?").str());
  return Code;
}

void writeEmbeddedFatbinSource(StringRef Fatbin, raw_ostream &OS, bool Relocatable, StringRef ModuleId) {
  StringRef Section = Relocatable ? "__nv_relfatbin" : ".nv_fatbin";
  size_t Words = (Fatbin.size() + 7) / 8;
  OS << "/* Generated by ptxlink: a fatbinary embedded for the CUDA host runtime. */\n"
     << "typedef struct { int magic; int version; const unsigned long long *data; void *filename_or_fatbins; }\n"
     << "  __ptxlink_fatBinC_Wrapper_t;\n"
     << "asm(\n\".section " << Section << ", \\\"a\\\"\\n\"\n\".align 8\\n\"\n\"__ptxlink_fatbinData:\\n\"\n";
  for (size_t W = 0; W < Words; ++W) {
    uint64_t V = 0;
    for (size_t I = 0; I < 8 && W * 8 + I < Fatbin.size(); ++I)
      V |= uint64_t(uint8_t(Fatbin[W * 8 + I])) << (8 * I);
    OS << (W % 4 == 0 ? "\".quad " : ",") << format_hex(V, 18);
    if (W % 4 == 3 || W + 1 == Words)
      OS << "\\n\"\n";
  }
  OS << "\".text\\n\");\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
     << "extern const unsigned long long __ptxlink_fatbinData[" << (Words ? Words : 1) << "];\n";
  if (Relocatable)
    OS << "extern const __ptxlink_fatBinC_Wrapper_t __fatbinwrap_" << ModuleId;
  else
    OS << "static const __ptxlink_fatBinC_Wrapper_t __fatDeviceText __attribute__((used))";
  OS << " __attribute__((aligned(8))) __attribute__((section(\".nvFatBinSegment\"))) =\n"
     << "  { 0x466243b1, 1, __ptxlink_fatbinData, 0 };\n"
     << "#ifdef __cplusplus\n}\n#endif\n";
}

} // namespace ptxlink
