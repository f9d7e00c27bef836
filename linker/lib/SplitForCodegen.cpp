// Cutting a linked module into per-input code generation units (`ptxlink --sass`, the default mode).
//
// The problem: ptxas over the whole linked module costs the whole program's code generation on every
// link, even when one input changed. Compiling each input's surviving code on its own (`ptxas -c`) costs
// only what changed, once the results are cached by content, and parallelises over modules. Each unit
// is the linked module's sections that came from one input (after resolution, renaming and dead-code
// removal, so its text is exactly what the whole-program link would print for them), plus `.extern`
// declarations of the symbols it uses from other inputs; nvlink then resolves those between the cubins.
// A unit's text depends only on its own input and the declarations it needs, so an unchanged input gives
// the same unit, byte for byte, in the next link: that is what makes the cache hit.
#include "LinkPasses.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Path.h"

#include <xxhash.h>

using namespace llvm;

namespace ptxlink {

/// The SASS images of module MI's input for the arches being linked; null if it has none (SassReuse.h).
static const std::vector<FatbinImage> *inputSass(const LinkOptions &Options, const InputFile &F) {
  if (Options.RecompileSass || !F.Host)
    return nullptr;
  for (const FatbinImage &I : F.Host->Sass) // without -arch, the link's arches are the inputs' (archesToLink)
    if (Options.Arches.empty() || is_contained(Options.Arches, fatbinArchName(I)))
      return &F.Host->Sass;
  return nullptr;
}

namespace {

/// Which unit each output section goes to (splitForCodegen's plan): the inputs' units (one per input with
/// code, small inputs batched), then the template-instantiation units.
struct UnitPlan {
  std::vector<uint32_t> Owner;        // per output section: the module it came from (~0u: none)
  std::vector<uint32_t> GroupOf;      // per module: its unit (~0u: it kept no code of its own)
  std::vector<uint32_t> SectionGroup; // per output section: its unit (~0u: none)
  uint32_t Groups = 0;                // units in all
  uint32_t FirstShared = 0;           // the first template-instantiation unit
  uint32_t SharedUnits = 0;           // how many there are
};

/// Per output section, the module it came from (~0u for none).
std::vector<uint32_t> sectionOwners(const SymbolTable &Symtab, const OutputModule &Linked) {
  std::vector<uint32_t> Owner(Linked.Module->Sections.size(), ~0u);
  for (uint32_t MI = 0; MI < Symtab.Modules.size(); ++MI)
    for (uint32_t SI = 0; SI < Symtab.Modules[MI].SecOut.size(); ++SI)
      if (uint32_t OS = Symtab.Modules[MI].SecOut[SI]; OS < Owner.size())
        Owner[OS] = MI;
  return Owner;
}

/// Template instantiations that several inputs define (nvcc writes a .weak copy of each into every
/// translation unit that uses it: CUB's and thrust's kernels, a header's templates) go to units of their
/// own, by a hash of their name into buckets, instead of staying with whichever input happened to win
/// resolution (the first). Otherwise that input's unit holds most of the program's template code, and
/// editing one line of it recompiles all of that; and a few inputs' units dwarf the others, which a worker
/// pool balances badly. A bucket's text depends on the names and bodies of its instantiations only, so
/// editing an input leaves the buckets in the cache. Kept with their input: aliases' targets (.alias needs
/// its aliasee in the same module) and code that names a module-local symbol (a file-static function or a
/// local .shared variable cannot be declared in another unit). Below 64K of such code in all (a ptxas
/// start costs ~25 ms, the time to compile ~12K) they stay with their inputs; above, one bucket per 256K, a
/// power of two up to 8, so that the count, and with it every bucket's content, changes only when the
/// program's template code doubles. Returns per output section its bucket (~0u: none); sets SharedUnits.
std::vector<uint32_t> templateBuckets(const SymbolTable &Symtab, const OutputModule &Linked, ArrayRef<uint32_t> Owner,
                                      ArrayRef<const std::vector<FatbinImage> *> Reuse, uint32_t &SharedUnits) {
  constexpr uint64_t SharedUnitsFrom = 64 << 10, BytesPerSharedUnit = 256 << 10;
  constexpr uint32_t MaxSharedUnits = 8;
  const ModuleVariant &Out = *Linked.Module;
  std::vector<bool> IsAliasee(Out.Sections.size(), false);
  for (const auto &[Alias, Aliasee] : Out.aliases())
    if (Aliasee < Out.Symbols.size() && Out.Symbols[Aliasee].Section < IsAliasee.size())
      IsAliasee[Out.Symbols[Aliasee].Section] = true;
  auto sharedBucket = [&](uint32_t OS) -> std::optional<uint32_t> {
    const Section &C = Out.Sections[OS];
    if (C.Kind != SectionKind::Function || C.Symbol >= Out.Symbols.size() || IsAliasee[OS])
      return std::nullopt;
    const Symbol &S = Out.Symbols[C.Symbol];
    if (S.Bind != Binding::Weak || C.Symbol >= Linked.Origin.size())
      return std::nullopt;
    SymRef From = Linked.Origin[C.Symbol];
    uint32_t G = Symtab.Modules[From.Module].Global[From.Symbol];
    if (G == NoGlobal || Symtab.Globals[G].NumDefs < 2)
      return std::nullopt;
    for (const Relocation &R : Out.relocs(C)) {
      if (R.Kind == RelocKind::FileIndex || R.Symbol >= Out.Symbols.size())
        continue;
      const Symbol &T = Out.Symbols[R.Symbol];
      if (T.Bind == Binding::Local && T.Section != OS)
        return std::nullopt;
    }
    return uint32_t(XXH3_64bits(S.name().data(), S.name().size()));
  };
  std::vector<uint32_t> Bucket(Out.Sections.size(), ~0u);
  uint64_t SharedBytes = 0;
  for (uint32_t OS = 0; OS < Out.Sections.size(); ++OS)
    if (Owner[OS] < Symtab.Modules.size() && !Reuse[Owner[OS]])
      if (auto H = sharedBucket(OS)) {
        Bucket[OS] = *H;
        SharedBytes += Out.Sections[OS].contents().size();
      }
  SharedUnits = 0;
  if (SharedBytes >= SharedUnitsFrom)
    for (SharedUnits = 1; SharedUnits < MaxSharedUnits && SharedBytes >= 2 * SharedUnits * BytesPerSharedUnit;)
      SharedUnits *= 2;
  for (uint32_t &B : Bucket)
    if (B != ~0u)
      B = SharedUnits ? B % SharedUnits : ~0u;
  return Bucket;
}

/// Units: one per input with code, except that small inputs are batched (each ptxas run costs ~25 ms
/// before it reads a line), and an input whose cubin may stand for its code has a unit of its own. A batch
/// boundary follows a module whose file name hashes to 0 mod 4, or the eighth module: it depends on names
/// only, so editing one module changes its batch and no other. The instantiation units follow.
UnitPlan planUnits(const SymbolTable &Symtab, const OutputModule &Linked, uint64_t BatchBelowBytes,
                   ArrayRef<const std::vector<FatbinImage> *> Reuse) {
  const ModuleVariant &Out = *Linked.Module;
  UnitPlan P;
  P.Owner = sectionOwners(Symtab, Linked);
  std::vector<uint32_t> Bucket = templateBuckets(Symtab, Linked, P.Owner, Reuse, P.SharedUnits);
  std::vector<uint64_t> Bytes(Symtab.Modules.size(), 0);
  for (uint32_t OS = 0; OS < Out.Sections.size(); ++OS)
    if (P.Owner[OS] < Symtab.Modules.size() && Bucket[OS] == ~0u)
      Bytes[P.Owner[OS]] += Out.Sections[OS].contents().size();
  P.GroupOf.assign(Symtab.Modules.size(), ~0u);
  uint32_t InBatch = 0;
  bool BatchOpen = false;
  for (uint32_t MI = 0; MI < Symtab.Modules.size(); ++MI) {
    if (!Bytes[MI])
      continue;
    if (Bytes[MI] >= BatchBelowBytes || Reuse[MI]) {
      P.GroupOf[MI] = P.Groups++;
      if (Reuse[MI]) // its unit holds its code alone: the next small input opens a new batch
        BatchOpen = false;
      continue;
    }
    if (!BatchOpen) {
      BatchOpen = true;
      InBatch = 0;
      ++P.Groups;
    }
    P.GroupOf[MI] = P.Groups - 1;
    // The file name without its folder: a path would make the batches, and so the output, depend on
    // where the project is checked out or built.
    StringRef Name = sys::path::filename(Symtab.Modules[MI].ObjectName);
    if (++InBatch == 8 || XXH3_64bits(Name.data(), Name.size()) % 4 == 0)
      BatchOpen = false;
  }
  P.FirstShared = P.Groups;
  P.Groups += P.SharedUnits;
  P.SectionGroup.assign(Out.Sections.size(), ~0u);
  for (uint32_t OS = 0; OS < Out.Sections.size(); ++OS)
    if (P.Owner[OS] < Symtab.Modules.size())
      P.SectionGroup[OS] = Bucket[OS] != ~0u ? P.FirstShared + Bucket[OS] : P.GroupOf[P.Owner[OS]];
  return P;
}

/// Unit GI's module: its sections Owned (in output order) and the symbols they use in order of first use,
/// those defined by another unit as declarations (with their ABI records, so that ptxas sees prototypes).
void fillUnitModule(const SymbolTable &Symtab, const OutputModule &Linked, const UnitPlan &P, uint32_t GI,
                    ArrayRef<uint32_t> Owned, ModuleVariant &V) {
  const ModuleVariant &Out = *Linked.Module;
  DenseMap<uint32_t, uint32_t> SecMap, SymMap;
  for (uint32_t OS : Owned)
    SecMap[OS] = SecMap.size();

  auto addSymbol = [&](auto &Self, uint32_t O) -> uint32_t {
    if (O >= Out.Symbols.size())
      return NoSymbol;
    if (auto It = SymMap.find(O); It != SymMap.end())
      return It->second;
    const Symbol &S = Out.Symbols[O];
    uint32_t Index = V.Symbols.size();
    SymMap[O] = Index;
    V.Symbols.push_back(S);
    // Defined in this unit: its section is here (a symbol without one, an alias, goes with its input).
    bool Here = S.Bind != Binding::Undefined && O < Linked.Origin.size() &&
                (S.Section < P.SectionGroup.size() ? P.SectionGroup[S.Section] == GI
                                                   : P.GroupOf[Linked.Origin[O].Module] == GI);
    if (Here) {
      auto Sec = SecMap.find(S.Section);
      V.Symbols[Index].Section = Sec == SecMap.end() ? NoSection : Sec->second;
      if (const uint32_t OutAliasee = Out.aliasOf(O); OutAliasee != NoSymbol)
        V.setAliasOf(Index, Self(Self, OutAliasee)); // (S may dangle now: Self adds symbols)
      return Index;
    }
    Symbol &N = V.Symbols[Index];
    N.Bind = Binding::Undefined;
    N.Section = NoSection;
    if (N.Kind == SymbolKind::Label)
      N.setValue(0);
    if (O < Linked.Origin.size()) {
      if (const FunctionAbi *F = Symtab.functionAbi(Linked.Origin[O])) {
        V.copyFunction(*Symtab.Modules[Linked.Origin[O].Module].M, *F, Index); // the symbol N is made
      } else if (const VariableAbi *Var = Symtab.variableAbi(Linked.Origin[O])) {
        VariableAbi D = *Var;
        D.Symbol = Index;
        D.Initialized = false;
        V.Variables.push_back(std::move(D));
      }
    }
    return Index;
  };

  DenseSet<uint64_t> FilesUsed; // 64-bit keys: a file's number may be DenseSet<uint32_t>'s reserved 0xffffffff
  V.Sections.reserve(Owned.size());
  size_t NumRelocs = 0;
  for (uint32_t OS : Owned)
    NumRelocs += Out.Sections[OS].RelocCount;
  V.Relocs.reserve(NumRelocs);
  for (uint32_t OS : Owned) {
    Section C = Out.Sections[OS];
    if (C.Symbol != NoSymbol)
      C.Symbol = addSymbol(addSymbol, C.Symbol);
    // The unit's copy of its symbol has the output's name and place; a label is one of V's. So V labels
    // only sections that Out labels, and Out holds at most MaxSectionLabels labels (the emit refuses
    // more): this cannot fail.
    [[maybe_unused]] const bool Labelled = V.labelSection(C, Out.sectionName(OS), Out.sectionWhere(OS));
    assert(Labelled && "a unit labels more sections than the output it splits");
    V.appendRelocs(C, Out.relocs(Out.Sections[OS]));
    for (Relocation &R : V.relocs(C)) {
      if (R.Kind == RelocKind::FileIndex)
        FilesUsed.insert(R.Symbol);
      else
        R.Symbol = addSymbol(addSymbol, R.Symbol);
    }
    V.Sections.push_back(std::move(C));
    // Where ptxas messages about this section point (a batch holds several inputs' sections).
    V.setSectionSource(V.Sections.size() - 1, Out.sectionSource(OS));
  }
  for (const FileEntry &F : Out.files())
    if (FilesUsed.contains(F.Index))
      V.rare().Files.push_back(F);
}

} // namespace

std::vector<CodegenUnit> splitForCodegen(const SymbolTable &Symtab, const OutputModule &Output, const LinkOptions &Options,
                                         ArrayRef<InputFile> Inputs, uint64_t BatchBelowBytes,
                                         std::vector<std::string> *ReuseNotes) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  std::vector<CodegenUnit> Units;
  if (!Output.Module)
    return Units;
  const ModuleVariant &Out = *Output.Module;
  // DWARF sections are merged across modules and refer to labels in every module's code (the losing weak
  // copies' entries name the winner's), so the linked module cannot be cut apart. Each input's own
  // module, with its own DWARF, is a unit instead.
  for (const Section &S : Out.Sections)
    if (S.Kind == SectionKind::Debug)
      return splitDebugInputs(Symtab, Out, Options, Inputs);

  // Inputs whose own cubin may stand for their part of the link (SassReuse.h): each is a unit of its own,
  // holding all its code (its weak definitions too, which its cubin defines), so that nvlink can take the
  // cubin instead; whether it does depends on the cubin itself (the arch, the ptxas that made it), decided
  // where it is used.
  std::vector<const std::vector<FatbinImage> *> Reuse(Modules.size(), nullptr);
  for (uint32_t MI = 0; MI < Modules.size(); ++MI)
    if (const std::vector<FatbinImage> *Sass = inputSass(Options, Inputs[Modules[MI].Input])) {
      std::string Why = sassReuseRefusal(Symtab, &Out, Options, MI);
      if (Why.empty())
        Reuse[MI] = Sass;
      else if (ReuseNotes)
        ReuseNotes->push_back(Modules[MI].ObjectName.str() + ": SASS compiled from PTX: " + Why);
    }

  const UnitPlan P = planUnits(Symtab, Output, BatchBelowBytes, Reuse);
  std::vector<std::vector<uint32_t>> OwnedBy(P.Groups); // output sections of each unit, in output order
  for (uint32_t OS = 0; OS < Out.Sections.size(); ++OS)
    if (P.SectionGroup[OS] < P.Groups)
      OwnedBy[P.SectionGroup[OS]].push_back(OS);

  for (uint32_t GI = 0; GI < P.Groups; ++GI) {
    const std::vector<uint32_t> &Owned = OwnedBy[GI];
    if (Owned.empty())
      continue;
    uint32_t MI = P.Owner[Owned.front()]; // the batch's first input (sections follow input order)
    CodegenUnit U;
    if (GI >= P.FirstShared) {
      U.ObjectName = "template instantiations " + std::to_string(GI - P.FirstShared + 1) + " of " +
                     std::to_string(P.SharedUnits) + " (first from " + Modules[MI].ObjectName.str() + ")";
    } else {
      U.ObjectName = Modules[MI].ObjectName.str();
      for (uint32_t Other = MI + 1; Other < Modules.size(); ++Other)
        if (P.GroupOf[Other] == GI)
          U.ObjectName += ", " + Modules[Other].ObjectName.str();
    }
    U.SourceName = Modules[MI].M->SourceName.str();
    if (GI < P.FirstShared && Reuse[MI]) {
      U.InputSass = Reuse[MI];
      U.InputTarget = Modules[MI].M->Target.Arch.str();
    }
    if (GI < P.FirstShared) // one module's unit: compiled as nvcc compiled it, unless the link says otherwise
      U.RecordedPtxasOptions = recordedPtxasOptions(Modules[MI], Inputs);
    U.Module.SourceName = Modules[MI].M->SourceName;
    U.Module.Target = Out.Target;
    fillUnitModule(Symtab, Output, P, GI, Owned, U.Module);
    Units.push_back(std::move(U));
  }
  return Units;
}

std::vector<CodegenUnit> splitDebugInputs(const SymbolTable &Symtab, const ModuleVariant &Output, const LinkOptions &Options,
                                          ArrayRef<InputFile> Inputs) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  // What nvcc -G's own pipeline does: every input module as it was assembled, compiled with `ptxas -c -g`,
  // joined by `nvlink -g`, which picks one copy of each weak definition and merges the DWARF itself
  // (tests/lit/linker/sass-debug.test compares the result with that pipeline's). The code ptxas compiles
  // is then the inputs', not the link's: losing weak copies and dead functions are compiled too, as
  // nvcc's pipeline compiles them, and nvlink's resolution decides. Where the link changed what a module
  // means, the whole module is compiled instead (empty result): a module-local kernel or variable that was
  // renamed (two inputs had the same one, and host code finds the renamed one), and --kernels-used or
  // --variables-used, whose dead-code removal nvlink would not repeat.
  std::vector<CodegenUnit> Units;
  if (Options.KernelsUsed || Options.VariablesUsed)
    return Units;
  // Names no host code registers do not count: the CUDA math library's tables (`__cudart_i2opi_f`, a
  // module-local .global in every file that calls sinf/cosf) and nvcc's `$str` constants; nvlink keeps
  // each input's copy local, as it does in nvcc's own pipeline. An nvcc object says what it registers
  // (HostOrigin::registers); for other inputs the names CUDA's headers and nvcc make are recognised.
  bool Renamed = false;
  forEachRenamedRegistrable(Symtab, Output, [&](uint32_t MI, uint32_t SI, StringRef) {
    StringRef Name = Modules[MI].M->Symbols[SI].name();
    const HostOrigin *Host = Inputs[Modules[MI].Input].Host.get();
    if (Host ? Host->registers(Name) : (!Name.starts_with("__cudart_") && !Name.contains('$')))
      Renamed = true;
  });
  if (Renamed)
    return Units;
  for (const LinkModule &LM : Modules) {
    if (LM.M->Sections.empty())
      continue;
    CodegenUnit U;
    U.ObjectName = LM.ObjectName.str();
    U.SourceName = LM.M->SourceName.str();
    U.Module = *LM.M;
    U.Module.Target = Output.Target;
    U.Module.Target.Debug = LM.M->Target.Debug; // a plain input in a -G link is compiled without -g
    // Every input's module is compiled as it was assembled and nvlink -g resolves between them, as in
    // nvcc's pipeline: its own cubin may stand for it whatever the link decided.
    if ((U.InputSass = inputSass(Options, Inputs[LM.Input])))
      U.InputTarget = LM.M->Target.Arch.str();
    U.RecordedPtxasOptions = recordedPtxasOptions(LM, Inputs);
    Units.push_back(std::move(U));
  }
  return Units;
}

} // namespace ptxlink
