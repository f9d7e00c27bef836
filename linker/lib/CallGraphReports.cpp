// The call-graph reports of a link (LinkPasses.h): --dump-callgraph (the live functions and their
// callees, as text) and --callgraph-dot (the whole graph, removed code marked, for Graphviz).
//
// The problem: when a kernel keeps more code than expected, or a function is removed that should not be,
// the user needs the graph mark-live walked: which function calls, takes the address of, or may reach
// through an indirect call, which other. Both reports walk the relocations as markLive does.
#include "LinkPasses.h"
#include "ptxlink/CallGraphDot.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace ptxlink {

void dumpCallgraph(const SymbolTable &Symtab, StringRef ArchName, raw_ostream &OS) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  // Number the live functions in output order.
  DenseMap<std::pair<uint32_t, uint32_t>, unsigned> Number;
  std::vector<std::pair<uint32_t, uint32_t>> Functions;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI)
    for (uint32_t SI = 0; SI < Modules[MI].M->Sections.size(); ++SI)
      if (Modules[MI].SectionLive[SI] && Modules[MI].M->Sections[SI].Kind == SectionKind::Function) {
        Number[{MI, SI}] = Functions.size() + 1;
        Functions.push_back({MI, SI});
      }
  std::vector<uint8_t> AddressTaken(Functions.size() + 1, 0);
  std::vector<std::vector<unsigned>> Callees(Functions.size() + 1);
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      const Section &S = M.Sections[SI];
      if (!Modules[MI].SectionLive[SI] || S.Kind == SectionKind::Debug)
        continue;
      auto Self = Number.find({MI, SI});
      for (const Relocation &R : M.relocs(S)) {
        if (R.Kind != RelocKind::NameRef || R.Symbol >= M.Symbols.size())
          continue;
        SymRef T = Symtab.target(MI, R.Symbol);
        if (!T.valid())
          continue;
        uint32_t Sec = Symtab.definingSection(T);
        auto It = Number.find({T.Module, Sec});
        if (It == Number.end() || (Self != Number.end() && It->second == Self->second))
          continue;
        if (S.Kind == SectionKind::Function && Self != Number.end() && R.isCall()) {
          auto &C = Callees[Self->second];
          if (std::find(C.begin(), C.end(), It->second) == C.end())
            C.push_back(It->second);
        } else {
          AddressTaken[It->second] = 1;
        }
      }
    }
  }
  OS << "callgraph for " << ArchName << ":\n";
  for (unsigned N = 1; N <= Functions.size(); ++N) {
    auto [MI, SI] = Functions[N - 1];
    const Section &S = Modules[MI].M->Sections[SI];
    bool Kernel = S.Symbol < Modules[MI].M->Symbols.size() &&
                  Modules[MI].M->Symbols[S.Symbol].Kind == SymbolKind::Kernel;
    OS << N << ": " << (Kernel ? "^" : "") << (AddressTaken[N] ? "&" : "") << Modules[MI].M->sectionName(S);
    if (!Callees[N].empty()) {
      OS << " ->";
      for (unsigned C : Callees[N])
        OS << " " << C;
    }
    OS << "\n";
  }
}

void addCallGraph(const SymbolTable &Symtab, CallGraphDot &G, StringRef Group) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  using NK = CallGraphDot::NodeKind;
  using EK = CallGraphDot::EdgeKind;
  std::string Prefix = Group.empty() ? std::string() : Group.str() + "/";
  auto Id = [&](uint32_t MI, uint32_t SI) { return Prefix + std::to_string(MI) + ":" + std::to_string(SI); };
  // Losing definitions of a global name are not part of the program (resolution dropped them).
  auto isWinner = [&](uint32_t MI, uint32_t SI) {
    const ModuleVariant &M = *Modules[MI].M;
    uint32_t S = M.Sections[SI].Symbol;
    if (S >= M.Symbols.size())
      return false;
    uint32_t GI = Modules[MI].Global[S];
    return GI == NoGlobal || (Symtab.def(GI).Module == MI && Symtab.definingSection(Symtab.def(GI)) == SI);
  };
  auto holdsFunctions = [&](uint32_t MI, const Section &S) {
    const ModuleVariant &M = *Modules[MI].M;
    return llvm::any_of(M.relocs(S), [&](const Relocation &R) {
      return R.Kind == RelocKind::NameRef && R.Symbol < M.Symbols.size() && R.Symbol != S.Symbol &&
             (M.Symbols[R.Symbol].Kind == SymbolKind::Function || M.Symbols[R.Symbol].Kind == SymbolKind::Kernel);
    });
  };
  // Nodes: every function and kernel, and every variable whose initializer holds function addresses.
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      const Section &S = M.Sections[SI];
      if ((S.Kind != SectionKind::Function && S.Kind != SectionKind::Variable) || !isWinner(MI, SI))
        continue;
      NK Kind = S.Kind == SectionKind::Variable ? NK::Table
                : M.Symbols[S.Symbol].Kind == SymbolKind::Kernel ? NK::Kernel
                                                                  : NK::Function;
      if (Kind == NK::Table && !holdsFunctions(MI, S))
        continue;
      G.node(Id(MI, SI), M.sectionName(S), Kind, Group, Modules[MI].ObjectName, !Modules[MI].SectionLive[SI]);
    }
  }
  // Where a reference from module MI to its symbol Sym leads: a node, or an external one (vprintf).
  auto nodeOf = [&](uint32_t MI, uint32_t Sym) -> long {
    SymRef T = Symtab.target(MI, Sym);
    if (!T.valid()) {
      const Symbol &S = Modules[MI].M->Symbols[Sym];
      if (S.Kind != SymbolKind::Function && S.Kind != SymbolKind::Kernel)
        return -1;
      return static_cast<long>(G.node(Prefix + "extern:" + S.name().str(), S.name(), NK::External, Group, ""));
    }
    uint32_t Sec = Symtab.definingSection(T);
    return Sec == NoSection ? -1 : G.find(Id(T.Module, Sec));
  };
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      long From = G.find(Id(MI, SI));
      if (From < 0)
        continue;
      const Section &S = M.Sections[SI];
      for (const Relocation &R : M.relocs(S)) {
        if (R.Kind != RelocKind::NameRef || R.Symbol >= M.Symbols.size() || R.Symbol == S.Symbol)
          continue;
        long To = nodeOf(MI, R.Symbol);
        if (To < 0 || To == From)
          continue;
        EK Kind = S.Kind == SectionKind::Variable     ? EK::TableEntry
                  : G.nodes()[To].Kind == NK::Table   ? EK::AddressOf
                  : R.isCall()                        ? EK::Call
                  : R.isCallTarget()                  ? EK::Indirect // a function an indirect call may reach
                                                      : EK::AddressOf;
        G.edge(From, To, Kind);
      }
    }
    // `.calltargets`: the functions an indirect call through a prototype of this function may reach.
    for (const PrototypeAbi &P : M.prototypes()) {
      if (P.Function >= M.Symbols.size())
        continue;
      uint32_t Sec = M.Symbols[P.Function].Section;
      long From = Sec < M.Sections.size() ? G.find(Id(MI, Sec)) : -1;
      if (From < 0)
        continue;
      for (uint32_t T : P.CallTargets)
        if (long To = T < M.Symbols.size() ? nodeOf(MI, T) : -1; To >= 0)
          G.edge(From, To, EK::Indirect);
    }
  }
}

} // namespace ptxlink
