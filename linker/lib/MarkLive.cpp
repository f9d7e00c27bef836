// Liveness (markLive, LinkPasses.h): dead-code removal.
//
// The problem: nvlink keeps kernels, visible variables and what they reach (calls, address-of, call
// tables) and drops the rest, section by section; references from dropped code do not need to resolve.
// Because every reference in a section is a relocation (ObjectModel.h), the graph is explicit: nodes are
// (module, section), edges are relocations followed through the symbol table to the winning definition.
// Debug sections are roots: the code the debug info describes (it refers to labels inside those
// functions) stays, unused functions included, as in nvlink -g's output.
#include "LinkPasses.h"

using namespace llvm;

namespace ptxlink {

static bool matchesAny(StringRef Name, const std::vector<std::string> &Patterns) {
  for (const std::string &P : Patterns)
    if (Name.contains(P))
      return true;
  return false;
}

static void markSection(SymbolTable &Symtab, uint32_t Module, uint32_t Sec,
                        std::vector<std::pair<uint32_t, uint32_t>> &Work) {
  std::vector<LinkModule> &Modules = Symtab.Modules;
  if (Sec >= Modules[Module].SectionLive.size() || Modules[Module].SectionLive[Sec])
    return;
  // A definition that lost resolution (a later weak copy, say) is never kept, even when something in
  // its own module (typically DWARF naming its labels) refers to it.
  const ModuleVariant &M = *Modules[Module].M;
  if (uint32_t S = M.Sections[Sec].Symbol; S < M.Symbols.size()) {
    uint32_t G = Modules[Module].Global[S];
    if (G != NoGlobal &&
        !(Symtab.def(G).valid() && Symtab.def(G).Module == Module && Symtab.definingSection(Symtab.def(G)) == Sec))
      return;
  }
  Modules[Module].SectionLive[Sec] = 1;
  Work.push_back({Module, Sec});
}

void markLive(SymbolTable &Symtab, const LinkOptions &Options, ArrayRef<InputFile> Inputs) {
  std::vector<LinkModule> &Modules = Symtab.Modules;
  std::vector<GlobalSymbol> &Globals = Symtab.Globals;
  std::vector<std::pair<uint32_t, uint32_t>> Work;
  bool KeepAll = Options.NoGc || Options.Relocatable;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      const Section &S = M.Sections[SI];
      if (S.Kind == SectionKind::Debug || S.Kind == SectionKind::Module) {
        markSection(Symtab, MI, SI, Work);
        continue;
      }
      if (S.Symbol >= M.Symbols.size())
        continue;
      uint32_t G = Modules[MI].Global[S.Symbol];
      if (G == NoGlobal) {
        // A module-local kernel (`.entry` without `.visible`, nvcc's static kernels) is still launched
        // by its module's host code: a root like any kernel.
        const Symbol &Local = M.Symbols[S.Symbol];
        bool LocalKernel = Local.Kind == SymbolKind::Kernel && M.aliasOf(S.Symbol) == NoSymbol &&
                           (!Options.KernelsUsed || matchesAny(Local.name(), *Options.KernelsUsed));
        // So is a module-local device variable that host code registers by name (a static __device__
        // variable, nvcc's __nv_static_* copies of libcu++'s constexpr objects in a thrust program): the
        // runtime looks it up in the linked module (cudaMemcpyFromSymbol), and nvlink keeps it.
        const HostOrigin *Host = Inputs[Modules[MI].Input].Host.get();
        bool RegisteredVariable = Local.Kind == SymbolKind::Variable && M.aliasOf(S.Symbol) == NoSymbol && Host &&
                                  Host->registers(Local.name()) &&
                                  (!Options.VariablesUsed || matchesAny(Local.name(), *Options.VariablesUsed));
        if (KeepAll || LocalKernel || RegisteredVariable)
          markSection(Symtab, MI, SI, Work);
        continue;
      }
      // Only the winning definition of a global name can be live.
      const GlobalSymbol &GS = Globals[G];
      if (SymRef D = Symtab.def(GS); !D.valid() || D.Module != MI || Symtab.definingSection(D) != SI)
        continue;
      const Symbol &Sym = M.Symbols[S.Symbol];
      bool Root = KeepAll;
      if (Sym.Kind == SymbolKind::Kernel)
        Root = Root || !Options.KernelsUsed || matchesAny(Symtab.name(GS), *Options.KernelsUsed);
      else if (Sym.Kind == SymbolKind::Variable)
        Root = Root || !Options.VariablesUsed || matchesAny(Symtab.name(GS), *Options.VariablesUsed);
      if (Root) {
        Globals[G].Live = true;
        markSection(Symtab, MI, SI, Work);
      }
    }
  }
  while (!Work.empty()) {
    auto [MI, SI] = Work.back();
    Work.pop_back();
    const ModuleVariant &M = *Modules[MI].M;
    for (const Relocation &R : M.relocs(M.Sections[SI])) {
      if (R.Kind == RelocKind::FileIndex || R.Symbol >= M.Symbols.size())
        continue;
      uint32_t G = Modules[MI].Global[R.Symbol];
      if (G != NoGlobal) {
        // A live name's definition has been marked already: Live is set only where its definition's
        // section is marked next. Most references are to names met before (a callee of many), and
        // the test reads 12 bytes of one table instead of the defining module's tables, scattered over
        // the link.
        if (Globals[G].Live)
          continue;
        Globals[G].Live = true;
      }
      // A global name's target is its winning definition, a site of the same name (G, marked above); a
      // local's is the symbol itself.
      SymRef T = Symtab.target(MI, R.Symbol);
      if (!T.valid())
        continue;
      uint32_t Sec = Symtab.definingSection(T);
      if (Sec != NoSection)
        markSection(Symtab, T.Module, Sec, Work);
    }
  }
}

} // namespace ptxlink
