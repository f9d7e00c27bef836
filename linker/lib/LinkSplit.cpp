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
#include "LinkContext.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <xxhash.h>

using namespace llvm;

namespace ptxlink {

std::vector<CodegenUnit> ArchLink::splitForCodegen(uint64_t BatchBelowBytes) const {
  std::vector<CodegenUnit> Units;
  if (!Output)
    return Units;
  const ModuleVariant &Out = *Output;
  // DWARF sections are merged across modules and refer to labels in every module's code (the losing weak
  // copies' entries name the winner's), so the linked module cannot be cut apart. Each input's own
  // module, with its own DWARF, is a unit instead.
  for (const Section &S : Out.Sections)
    if (S.Kind == SectionKind::Debug)
      return splitDebugInputs();

  std::vector<uint32_t> Owner(Out.Sections.size(), ~0u);
  for (uint32_t MI = 0; MI < Modules.size(); ++MI)
    for (uint32_t SI = 0; SI < Modules[MI].SecOut.size(); ++SI)
      if (uint32_t OS = Modules[MI].SecOut[SI]; OS < Owner.size())
        Owner[OS] = MI;

  // Units: one per input with code, except that small inputs are batched (each ptxas run costs ~25 ms
  // before it reads a line). A batch boundary follows a module whose name hashes to 0 mod 4, or the
  // eighth module: it depends on names only, so editing one module changes its batch and no other.
  std::vector<uint64_t> Bytes(Modules.size(), 0);
  for (uint32_t OS = 0; OS < Out.Sections.size(); ++OS)
    if (Owner[OS] < Modules.size())
      Bytes[Owner[OS]] += Out.Sections[OS].Contents.size();
  std::vector<uint32_t> GroupOf(Modules.size(), ~0u);
  uint32_t Groups = 0, InBatch = 0;
  bool BatchOpen = false;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    if (!Bytes[MI])
      continue;
    if (Bytes[MI] >= BatchBelowBytes) {
      GroupOf[MI] = Groups++;
      continue;
    }
    if (!BatchOpen) {
      BatchOpen = true;
      InBatch = 0;
      ++Groups;
    }
    GroupOf[MI] = Groups - 1;
    StringRef Name = Modules[MI].ObjectName;
    if (++InBatch == 8 || XXH3_64bits(Name.data(), Name.size()) % 4 == 0)
      BatchOpen = false;
  }

  std::vector<std::vector<uint32_t>> OwnedBy(Groups); // output sections of each unit, in output order
  for (uint32_t OS = 0; OS < Out.Sections.size(); ++OS)
    if (Owner[OS] < Modules.size())
      OwnedBy[GroupOf[Owner[OS]]].push_back(OS);

  for (uint32_t GI = 0; GI < Groups; ++GI) {
    const std::vector<uint32_t> &Owned = OwnedBy[GI];
    if (Owned.empty())
      continue;
    uint32_t MI = Owner[Owned.front()]; // the batch's first input (sections follow input order)
    CodegenUnit U;
    U.ObjectName = Modules[MI].ObjectName.str();
    for (uint32_t Other = MI + 1; Other < Modules.size(); ++Other)
      if (GroupOf[Other] == GI)
        U.ObjectName += ", " + Modules[Other].ObjectName.str();
    U.SourceName = Modules[MI].M->SourceName.str();
    ModuleVariant &V = U.Module;
    V.SourceName = Modules[MI].M->SourceName;
    V.Target = Out.Target;
    DenseMap<uint32_t, uint32_t> SecMap, SymMap;
    for (uint32_t OS : Owned)
      SecMap[OS] = SecMap.size();

    // Symbols in order of first use; those defined by another input become declarations.
    auto addSymbol = [&](auto &Self, uint32_t O) -> uint32_t {
      if (O >= Out.Symbols.size())
        return NoSymbol;
      if (auto It = SymMap.find(O); It != SymMap.end())
        return It->second;
      const Symbol &S = Out.Symbols[O];
      uint32_t Index = V.Symbols.size();
      SymMap[O] = Index;
      V.Symbols.push_back(S);
      bool Here = S.Bind != Binding::Undefined && O < OutOrigin.size() &&
                  GroupOf[OutOrigin[O].Module] == GI;
      if (Here) {
        auto Sec = SecMap.find(S.Section);
        V.Symbols[Index].Section = Sec == SecMap.end() ? NoSection : Sec->second;
        if (S.AliasOf != NoSymbol) {
          uint32_t Aliasee = Self(Self, S.AliasOf);
          V.Symbols[Index].AliasOf = Aliasee;
        }
        return Index;
      }
      Symbol &N = V.Symbols[Index];
      N.Bind = Binding::Undefined;
      N.Section = NoSection;
      N.AliasOf = NoSymbol;
      N.Value = 0;
      if (O < OutOrigin.size()) {
        if (const FunctionAbi *F = functionAbi(OutOrigin[O])) {
          FunctionAbi D = *F;
          D.Symbol = Index;
          V.Functions.push_back(std::move(D));
        } else if (const VariableAbi *Var = variableAbi(OutOrigin[O])) {
          VariableAbi D = *Var;
          D.Symbol = Index;
          D.Initialized = false;
          V.Variables.push_back(std::move(D));
        }
      }
      return Index;
    };

    DenseSet<uint32_t> FilesUsed;
    V.Sections.reserve(Owned.size());
    for (uint32_t OS : Owned) {
      Section C = Out.Sections[OS];
      if (C.Symbol != NoSymbol)
        C.Symbol = addSymbol(addSymbol, C.Symbol);
      for (Relocation &R : C.Relocs) {
        if (R.Kind == RelocKind::FileIndex)
          FilesUsed.insert(R.Symbol);
        else
          R.Symbol = addSymbol(addSymbol, R.Symbol);
      }
      V.Sections.push_back(std::move(C));
      // Where ptxas messages about this section point (a batch holds several inputs' sections).
      V.SectionSources.push_back(OS < Out.SectionSources.size() ? Out.SectionSources[OS] : V.SourceName);
    }
    for (const FileEntry &F : Out.Files)
      if (FilesUsed.contains(F.Index))
        V.Files.push_back(F);
    Units.push_back(std::move(U));
  }
  return Units;
}

std::vector<CodegenUnit> ArchLink::splitDebugInputs() const {
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
  bool Renamed = false;
  forEachRenamedRegistrable([&](uint32_t, uint32_t, StringRef) { Renamed = true; });
  if (Renamed)
    return Units;
  for (const LinkModule &LM : Modules) {
    if (LM.M->Sections.empty())
      continue;
    CodegenUnit U;
    U.ObjectName = LM.ObjectName.str();
    U.SourceName = LM.M->SourceName.str();
    U.Module = *LM.M;
    U.Module.Target = Output->Target;
    U.Module.Target.Debug = LM.M->Target.Debug; // a plain input in a -G link is compiled without -g
    Units.push_back(std::move(U));
  }
  return Units;
}

} // namespace ptxlink
