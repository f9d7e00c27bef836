// Relocatable cubins as link inputs (see CubinInputs.h): the module made of a cubin's symbol table, the
// records it borrows from the other inputs, and the checks of the options and units such a link needs.
#include "CubinInputs.h"
#include "LinkOutput.h"
#include "LinkPasses.h"
#include "SassReuse.h"

#include "ptxlink/Cubin.h"
#include "ptxlink/Fatbin.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace ptxlink {

namespace {
/// Whether ptxas compiled Cubin with debug information (-g, nvcc -G), as its .note.nv.tkinfo records.
bool compiledWithDebugInfo(StringRef Cubin) {
  Expected<ToolkitNote> Note = readToolkitNote(Cubin);
  if (!Note) {
    consumeError(Note.takeError());
    return false;
  }
  SmallVector<StringRef, 16> Options;
  SplitString(Note->Options, Options);
  return is_contained(Options, "-g") || is_contained(Options, "--device-debug");
}

/// Adds to Obj the variant that stands for a relocatable cubin (Info, read from its bytes Cubin): its global
/// and weak symbols, a section per definition, and one module-text section that refers to every name it
/// leaves undefined. False (reported into Problems, nothing added) for a cubin with a .common variable.
bool addCubinVariant(ObjectFile &Obj, const CubinInfo &Info, StringRef Cubin, StringRef DisplayName,
                     std::vector<Diagnostic> &Problems) {
  const std::string Arch = Info.archName();
  ModuleVariant &V = Obj.Variants.emplace_back();
  V.SourceName = Obj.save(DisplayName);
  V.Target.Arch = Obj.save(Arch);
  // A -G cubin makes the arch's link a debug one, as a `.target ..., debug` module does: nvlink then gets
  // -g (as from nvcc -dlink -G), without which it drops the functions nothing calls, the device runtime's
  // among them (cuda-samples' cdpSimplePrint -G: 253 KB images against nvcc's 803 KB).
  V.Target.Debug = compiledWithDebugInfo(Cubin);
  // The lowest PTX ISA that names the arch: the cubin has no PTX, and must not raise the linked module's
  // `.version`, nor lower it below what the arch needs.
  if (auto Need = minPtxVersion(Info.Arch)) {
    V.Target.VersionMajor = Need->first;
    V.Target.VersionMinor = Need->second;
  }
  V.Target.AddressSize = 64;
  V.Target.AddressSizeGiven = true;

  // The names it refers to and leaves undefined, spelled in one piece of module text whose relocations
  // name them: that section is always kept, so everything the cubin uses is kept and must be defined
  // (nvlink resolves every reference of the cubin, even from its functions that nothing calls).
  std::string Text = "// SASS of " + DisplayName.str() + ", given to nvlink as it is; it refers to:";
  std::vector<std::pair<uint32_t, uint32_t>> Refs; // (offset in Text, symbol)
  for (const CubinSymbol &S : Info.Symbols) {
    if (S.Bind != ELF::STB_GLOBAL && S.Bind != ELF::STB_WEAK)
      continue;
    if (S.Type == ELF::STT_SECTION || S.Type == ELF::STT_FILE || S.Name.empty())
      continue;
    // A weak reference needs no definition (ELF's rule). Every sm_90 and newer cubin has nine that nvlink
    // defines itself, its function and data tables (__UFT, __UFT_OFFSET, __UDT_CANONICAL, ...) and
    // .nv.reservedSmem.offset0: as references they made every such link "undefined symbol: __UFT".
    if (S.Shndx == ELF::SHN_UNDEF && S.Bind == ELF::STB_WEAK)
      continue;
    if (S.Shndx == ELF::SHN_COMMON) {
      Problems.push_back(toolError(DisplayName + ": its .common variable " + S.Name +
                                       " cannot be linked from SASS (the link gives a .common the size of its "
                                       "largest definition, which needs every module's PTX); give this module "
                                       "as PTX",
                                   "unsupported-input"));
      Obj.Variants.pop_back();
      return false;
    }
    Symbol Sym;
    Sym.setName(Obj.saveName(S.Name));
    const bool Function = S.Type == ELF::STT_FUNC || (S.Type == ELF::STT_NOTYPE && !(S.Other & nvelf::STO_CUDA_SPACE_MASK));
    if (Function) {
      Sym.Kind = S.isKernel() ? SymbolKind::Kernel : SymbolKind::Function;
    } else {
      Sym.Kind = SymbolKind::Variable;
      const uint8_t Space = S.Other & nvelf::STO_CUDA_SPACE_MASK;
      Sym.Space = Space == nvelf::STO_CUDA_SHARED     ? StateSpace::Shared
                  : Space == nvelf::STO_CUDA_CONSTANT ? StateSpace::Const
                                                      : StateSpace::Global;
      Sym.setSize(std::min<uint64_t>(S.Size, MaxSymbolValue));
    }
    const uint32_t Index = uint32_t(V.Symbols.size());
    if (S.Shndx == ELF::SHN_UNDEF) {
      Sym.Bind = Binding::Undefined;
      V.Symbols.push_back(Sym);
      Text += ' ';
      Refs.push_back({uint32_t(Text.size()), Index});
      Text += S.Name;
      continue;
    }
    Sym.Bind = S.Bind == ELF::STB_WEAK ? Binding::Weak : Binding::Global;
    Sym.Initialized = Sym.Kind == SymbolKind::Variable; // its bytes are the cubin's: never a tentative one
    Sym.Section = uint32_t(V.Sections.size());
    V.Symbols.push_back(Sym);
    // Its definition, as the link knows it: a section of the cubin's code or data, with no PTX (never
    // printed: the cubin is its unit, and an output holding PTX is refused).
    Section Sec;
    Sec.Kind = Sym.Kind == SymbolKind::Variable ? SectionKind::Variable : SectionKind::Function;
    Sec.Symbol = Index;
    Sec.setContents(Obj.save(("// " + S.Name + ": SASS in " + DisplayName).str()));
    V.startRelocs(Sec);
    V.endRelocs(Sec);
    V.Sections.push_back(Sec);
  }
  Section Module;
  Module.Kind = SectionKind::Module;
  StringRef Saved = Obj.save(Text);
  Module.setContents(Saved);
  V.startRelocs(Module);
  for (auto [Offset, Sym] : Refs)
    V.Relocs.push_back(Relocation(Offset, Sym, RelocKind::NameRef, V.Symbols[Sym].name().size(), 0));
  V.endRelocs(Module);
  // "referenced by a.cubin in its code" in the undefined-symbol error.
  [[maybe_unused]] bool Labelled = V.labelSection(Module, "its code", Loc());
  V.Sections.push_back(Module);

  return true;
}
} // namespace

std::unique_ptr<ObjectFile> cubinObjectFromBuffer(std::unique_ptr<MemoryBuffer> Buffer, StringRef DisplayName,
                                                  std::optional<HostOrigin> &Host, std::vector<Diagnostic> &Problems) {
  StringRef Bytes = Buffer->getBuffer();
  std::string Problem;
  uint64_t ProblemAt = 0;
  std::optional<CubinInfo> Info = readCubin(Bytes, [&](uint64_t Offset, const Twine &Message) {
    if (Problem.empty()) {
      Problem = Message.str();
      ProblemAt = Offset;
    }
  });
  // nvlink reads every byte of it: a damaged cubin is refused here, not handed on.
  if (!Info || !Problem.empty()) {
    Problems.push_back(toolError(formatv("{0}: offset {1:x}: damaged cubin: {2}", DisplayName, ProblemAt,
                                         Problem.empty() ? "its ELF header cannot be read" : Problem)
                                     .str(),
                                 "bad-cubin"));
    return nullptr;
  }
  if (!isLinkableCubinType(Info->Type)) {
    // nvlink 13 passes over an executable cubin without a word (its kernels are simply not in the output).
    Problems.push_back(toolError(DisplayName + ": an executable cubin (" + Info->archName() +
                                     ") cannot be linked: its code is already linked; compile the module "
                                     "relocatable (nvcc -cubin -rdc=true, ptxas -c), or as PTX",
                                 "unsupported-input"));
    return nullptr;
  }
  auto Obj = std::make_unique<ObjectFile>();
  if (!addCubinVariant(*Obj, *Info, Bytes, DisplayName, Problems))
    return nullptr;
  const std::string Arch = Info->archName();

  HostOrigin Origin;
  Origin.CubinInput = true;
  Origin.CubinArches.push_back(Arch);
  Origin.ObjectBytes = Bytes;
  FatbinImage Image;
  Image.Kind = FatbinKind::Elf;
  Image.Arch = Info->Arch;
  Image.VersionMajor = 1;
  Image.VersionMinor = Info->AbiVersion;
  Image.Payload = Bytes.str();
  Origin.Sass.push_back(std::move(Image));
  Obj->adopt(std::move(Buffer));
  Host = std::move(Origin);
  return Obj;
}

namespace {

/// Whether V is SASS known by its symbol table: a cubin input's variant, or an nvcc object's cubin for an
/// arch its PTX does not serve (addSassVariants).
bool isSassVariant(const InputFile &In, const ModuleVariant &V) { return isCubinInput(In) || V.Target.SassOnly; }

/// Whether In has such a variant.
bool hasSassVariants(const InputFile &In) {
  return In.Object && In.Host && (In.Host->CubinInput || In.Host->SassVariants);
}

/// The records another input's PTX has for a name a cubin's symbol bears (first found wins).
struct BorrowedRecords {
  const ModuleVariant *FunctionFrom = nullptr;
  const FunctionAbi *Function = nullptr;
  const ModuleVariant *VariableFrom = nullptr;
  const VariableAbi *Variable = nullptr;
  std::optional<uint64_t> WeakHash;
};

/// Gives the cubin's variant V the records found for its symbols' names, in symbol order: the records stay
/// sorted by symbol, as the link's look-up expects (LinkModule::AbiOf).
void borrowRecords(ModuleVariant &V, const StringMap<BorrowedRecords> &Names) {
  for (uint32_t SI = 0; SI < V.Symbols.size(); ++SI) {
    const BorrowedRecords &W = Names.find(V.Symbols[SI].name())->second;
    const Symbol &S = V.Symbols[SI];
    if ((S.Kind == SymbolKind::Function || S.Kind == SymbolKind::Kernel) && W.Function) {
      FunctionAbi &F = V.copyFunction(*W.FunctionFrom, *W.Function, SI);
      F.HasBody = S.Bind != Binding::Undefined;
      F.IsKernel = S.Kind == SymbolKind::Kernel;
      V.setFunctionWhere(F, Loc()); // the cubin's own (it has no lines), not the other input's
    } else if (S.Kind == SymbolKind::Variable && W.Variable) {
      VariableAbi Var = *W.Variable;
      Var.Symbol = SI;
      Var.Initialized = S.Bind != Binding::Undefined;
      Var.Where = Loc();
      V.Variables.push_back(std::move(Var));
    }
    if (S.Bind == Binding::Weak && W.WeakHash && S.Section < V.Sections.size())
      V.facts().OdrHashes.push_back({S.Section, *W.WeakHash});
  }
}

} // namespace

void completeCubinInputs(std::vector<InputFile> &Inputs) {
  // The names the cubins' symbols want records for: name -> the records found.
  StringMap<BorrowedRecords> Names;
  for (const InputFile &In : Inputs)
    if (hasSassVariants(In))
      for (const ModuleVariant &V : In.Object->Variants)
        if (isSassVariant(In, V))
          for (const Symbol &S : V.Symbols)
            Names.try_emplace(S.name());
  if (Names.empty())
    return;
  for (const InputFile &In : Inputs) {
    if (!In.Object)
      continue;
    for (const ModuleVariant &M : In.Object->Variants) {
      if (isSassVariant(In, M))
        continue;
      for (const FunctionAbi &F : M.Functions)
        if (F.Symbol < M.Symbols.size())
          if (auto It = Names.find(M.Symbols[F.Symbol].name()); It != Names.end() && !It->second.Function) {
            It->second.Function = &F;
            It->second.FunctionFrom = &M;
          }
      for (const VariableAbi &Var : M.Variables)
        if (Var.Symbol < M.Symbols.size())
          if (auto It = Names.find(M.Symbols[Var.Symbol].name()); It != Names.end() && !It->second.Variable) {
            It->second.Variable = &Var;
            It->second.VariableFrom = &M;
          }
      for (const ModuleVariant::OdrHashEntry &H : M.odrHashes())
        if (H.Section < M.Sections.size() && M.Sections[H.Section].Symbol < M.Symbols.size())
          if (auto It = Names.find(M.Symbols[M.Sections[H.Section].Symbol].name());
              It != Names.end() && !It->second.WeakHash)
            It->second.WeakHash = H.Hash;
    }
  }
  for (InputFile &In : Inputs)
    if (hasSassVariants(In))
      for (ModuleVariant &V : In.Object->Variants)
        if (isSassVariant(In, V))
          borrowRecords(V, Names);
}

SassInputBar sassInputBar(const LinkOptions &Options) {
  if (Options.Relocatable || Options.Emit == EmitKind::Object)
    return SassInputBar::RelocatableOutput;
  if (Options.Emit == EmitKind::Ptx)
    return SassInputBar::PtxOutput;
  if (Options.WholeProgram)
    return SassInputBar::WholeProgram;
  if (Options.RecompileSass)
    return SassInputBar::RecompileSass;
  if (Options.KernelsUsed || Options.VariablesUsed)
    return SassInputBar::UsedLists;
  return SassInputBar::None;
}

void addSassVariants(const LinkOptions &Options, ObjectFile &Obj, HostOrigin &Host, StringRef DisplayName,
                     std::vector<Diagnostic> &Problems) {
  // A link that could take the SASS (sassInputBar) is made one with --sass where it was not (linkImpl, as
  // nvcc -dlink makes SASS). Elsewhere, and under -dlto (nvJitLink is given the object's SASS where it has
  // no LTO-IR, LtoLink.cpp), an nvcc object without PTX for an arch stays the error it was ("no PTX
  // usable", with the option that keeps PTX).
  if (Host.CubinInput || Host.Sass.empty() || Options.Dlto || sassInputBar(Options) != SassInputBar::None)
    return;
  for (FatbinImage &Image : Host.Sass) {
    std::optional<Target> Arch = parseArch(fatbinArchName(Image));
    // The arches linked: -arch's, or, without one, those the inputs are found to have (archesToLink).
    if (Image.Kind != FatbinKind::Elf || !Arch ||
        (!Options.Arches.empty() && !is_contained(Options.Arches, Arch->name())) ||
        (!Options.SassArches.empty() && !is_contained(Options.SassArches, Arch->name())) ||
        selectVariant(Obj, *Arch) >= 0)
      continue;
    // A cubin that cannot be read leaves the module without a variant for the arch: the link then says
    // that it has no PTX for it, as before.
    Expected<std::string> Cubin = cubinOfImage(Image);
    if (!Cubin) {
      consumeError(Cubin.takeError());
      continue;
    }
    bool Damaged = false;
    std::optional<CubinInfo> Info = readCubin(*Cubin, [&](uint64_t, const Twine &) { Damaged = true; });
    if (!Info || Damaged || !isLinkableCubinType(Info->Type))
      continue;
    if (!addCubinVariant(Obj, *Info, *Cubin, DisplayName, Problems))
      return;
    Obj.Variants.back().Target.SassOnly = true;
    Host.SassVariants = true;
    // Kept decompressed: the unit's cubin goes to nvlink as these bytes (SassBuild::keyJob), which would
    // otherwise be decompressed again (a -G cubin can be hundreds of MB).
    Image.Payload = std::move(*Cubin);
    Image.Compression = FatbinCompression::None;
    Image.CompressedSize = 0;
    Image.UncompressedSize = 0;
  }
}

bool checkCubinInputs(const LinkOptions &Options, ArrayRef<InputFile> Inputs, ArrayRef<Target> Arches,
                      DiagnosticEngine &Diags) {
  bool Ok = true;
  for (const InputFile &In : Inputs) {
    if (!isCubinInput(In))
      continue;
    const std::string Arch = In.Host->CubinArches.front();
    auto Refuse = [&](const Twine &Why) {
      Diags.error(In.Name + ": a cubin (SASS for " + Arch + ", no PTX) " + Why, std::vector<DiagSite>(),
                  "cubin-input");
      Ok = false;
    };
    const std::string Instead = "give the module as PTX, or as a fatbinary that keeps both (nvcc -fatbin -rdc=true "
                                "-gencode arch=compute_XX,code=[sm_XX,compute_XX])";
    const std::string LinkSass = "link it with --sass into a fatbinary or a device-link object (SASS only, as "
                                 "nvcc -dlink writes), or " + Instead;
    const SassInputBar Bar = sassInputBar(Options);
    if (Bar == SassInputBar::RelocatableOutput)
      Refuse("cannot go into a relocatable object (-r), which holds PTX: " + LinkSass);
    else if (Bar == SassInputBar::PtxOutput)
      Refuse("cannot go into linked PTX (--emit ptx): " + LinkSass);
    else if (!Options.Sass && !Options.Dlto) // -dlto gives it to nvJitLink as SASS (LtoLink.cpp)
      Refuse("needs --sass: without it the fatbinary holds the linked PTX, which cannot include the cubin's "
             "code; add --sass (the fatbinary then holds the linked SASS only, as nvcc -dlink's), or " + Instead);
    else if (Bar == SassInputBar::WholeProgram)
      Refuse("cannot be part of --whole-program, one ptxas run over the linked PTX: link without it (per-module "
             "code generation, nvlink joining the cubins)");
    else if (Bar == SassInputBar::RecompileSass)
      Refuse("cannot be compiled again (--recompile-sass): link without --recompile-sass, or " + Instead);
    else if (Bar == SassInputBar::UsedLists)
      Refuse("cannot be linked with --kernels-used/--variables-used, whose dead-code removal nvlink would not "
             "repeat on its code");
    if (!Ok)
      continue;
    for (const Target &A : Arches) {
      if (A.name() != Arch) {
        Refuse("cannot be linked for " + A.name() + ": SASS runs on the arch it was compiled for, and nvlink "
               "links one arch's; compile it for " + A.name() + " (nvcc -cubin -rdc=true -arch=" + A.name() +
               "), or link for " + Arch + " alone");
        break;
      }
      if (!Options.SassArches.empty() && !is_contained(Options.SassArches, A.name())) {
        Refuse("needs SASS for " + A.name() + ", which -gencode does not ask for (code=" + A.name() + ")");
        break;
      }
    }
  }
  return Ok;
}

bool markCubinUnits(const SymbolTable &Symtab, const ModuleVariant &Output, const LinkOptions &Options,
                    ArrayRef<InputFile> Inputs, std::vector<CodegenUnit> &Units, DiagnosticEngine &Diags,
                    std::vector<std::string> *Notes) {
  bool Ok = true;
  for (uint32_t MI = 0; MI < Symtab.Modules.size(); ++MI) {
    const InputFile &In = Inputs[Symtab.Modules[MI].Input];
    if (!isSassVariant(In, *Symtab.Modules[MI].M))
      continue;
    auto Unit = llvm::find_if(Units, [&](const CodegenUnit &U) { return U.InputSass == &In.Host->Sass; });
    if (Unit != Units.end()) {
      Unit->InputIsCubin = true;
      if (Notes)
        Notes->push_back(In.Name +
                         (isCubinInput(In) ? std::string(": a cubin")
                                           : ": its " + Symtab.Modules[MI].M->Target.Arch.str() + " SASS (no PTX for it)") +
                         ": resolved by its symbol table, given to nvlink as it is; the ABI checks that need its PTX "
                         "(parameters, ODR of its weak copies) are skipped");
      continue;
    }
    // Where the split could not give it a unit of its own: the link changed what the module means.
    std::string Why = sassReuseRefusal(Symtab, &Output, Options, MI);
    Diags.error(In.Name + ": a cubin (SASS only) cannot be linked here: " +
                    (!Why.empty()       ? Why
                     : Units.empty()    ? std::string("the linked module is compiled in one piece (a -G link whose "
                                                      "locals were renamed)")
                                        : std::string("it was given no code-generation unit of its own")),
                std::vector<DiagSite>(), "cubin-input");
    Ok = false;
  }
  return Ok;
}

} // namespace ptxlink
