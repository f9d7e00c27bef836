// Pass 4: liveness (dead-code removal) and the undefined-symbol check, plus the reports that walk the
// reference graph (--print-gc, --dump-callgraph).
//
// The problem: nvlink keeps kernels, visible variables and what they reach (calls, address-of, call
// tables) and drops the rest, section by section; references from dropped code do not need to resolve.
// Because every reference in a section is a relocation (ObjectModel.h), the graph is explicit: nodes are
// (module, section), edges are relocations followed through the symbol table to the winning definition.
// Debug sections are roots: the code the debug info describes (it refers to labels inside those
// functions) stays, unused functions included, as in nvlink -g's output.
#include "ptxlink/AbiCheck.h"
#include "ptxlink/CallGraphDot.h"
#include "LinkContext.h"
#include "SassBuild.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <chrono>

using namespace llvm;

namespace ptxlink {

static bool matchesAny(StringRef Name, const std::vector<std::string> &Patterns) {
  for (const std::string &P : Patterns)
    if (Name.contains(P))
      return true;
  return false;
}

void ArchLink::markSection(uint32_t Module, uint32_t Sec, std::vector<std::pair<uint32_t, uint32_t>> &Work) {
  if (Sec >= Modules[Module].SectionLive.size() || Modules[Module].SectionLive[Sec])
    return;
  // A definition that lost resolution (a later weak copy, say) is never kept, even when something in
  // its own module (typically DWARF naming its labels) refers to it.
  const ModuleVariant &M = *Modules[Module].M;
  if (uint32_t S = M.Sections[Sec].Symbol; S < M.Symbols.size()) {
    uint32_t G = Modules[Module].Global[S];
    if (G != NoGlobal &&
        !(def(G).valid() && def(G).Module == Module && definingSection(def(G)) == Sec))
      return;
  }
  Modules[Module].SectionLive[Sec] = 1;
  Work.push_back({Module, Sec});
}

void ArchLink::markLive() {
  PassTimes::Scope Timed = Times.scope("mark live", Arch.name());
  std::vector<std::pair<uint32_t, uint32_t>> Work;
  bool KeepAll = Options.NoGc || Options.Relocatable;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      const Section &S = M.Sections[SI];
      if (S.Kind == SectionKind::Debug || S.Kind == SectionKind::Module) {
        markSection(MI, SI, Work);
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
          markSection(MI, SI, Work);
        continue;
      }
      // Only the winning definition of a global name can be live.
      const GlobalSymbol &GS = Globals[G];
      if (SymRef D = def(GS); !D.valid() || D.Module != MI || definingSection(D) != SI)
        continue;
      const Symbol &Sym = M.Symbols[S.Symbol];
      bool Root = KeepAll;
      if (Sym.Kind == SymbolKind::Kernel)
        Root = Root || !Options.KernelsUsed || matchesAny(name(GS), *Options.KernelsUsed);
      else if (Sym.Kind == SymbolKind::Variable)
        Root = Root || !Options.VariablesUsed || matchesAny(name(GS), *Options.VariablesUsed);
      if (Root) {
        Globals[G].Live = true;
        markSection(MI, SI, Work);
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
      SymRef T = target(MI, R.Symbol);
      if (G != NoGlobal)
        Globals[G].Live = true;
      if (!T.valid())
        continue;
      if (uint32_t G2 = Modules[T.Module].Global[T.Symbol]; G2 != NoGlobal)
        Globals[G2].Live = true;
      uint32_t Sec = definingSection(T);
      if (Sec != NoSection)
        markSection(T.Module, Sec, Work);
    }
  }
}

/// Names that stay undefined in a complete program because ptxas or the driver provides them: the PTX
/// system calls (ptxas turns calls to them into the runtime's implementation; nvlink links cubins that
/// leave them undefined), the device-side CUDA graph functions of cuda_device_runtime_api.h that are not
/// in libcudadevrt.a but which ptxas resolves itself (found by compiling a kernel calling each of that
/// header's device functions with `ptxas -arch=sm_90`, CUDA 13.0: these six are accepted undefined, the
/// rest are libcudadevrt's or unresolved; NVIDIA's cuda-samples graphConditionalNodes calls
/// cudaGraphSetConditional), and `.extern .shared` arrays, which are the kernel's dynamic shared memory.
bool providedOutsideTheLink(const Symbol &S) {
  if (S.Kind == SymbolKind::Variable)
    return S.Space == StateSpace::Shared;
  static constexpr StringLiteral Provided[] = {
      "vprintf", "malloc", "free", "__assertfail",
      "cudaGraphSetConditional", "cudaGraphLaunch", "cudaGraphKernelNodeSetEnabled",
      "cudaGraphKernelNodeSetGridDim", "cudaGraphKernelNodeSetParam", "cudaGraphKernelNodeUpdatesApply"};
  return is_contained(Provided, S.name());
}

void ArchLink::checkUndefined() {
  if (Options.Relocatable)
    return;
  PassTimes::Scope Timed = Times.scope("check undefined", Arch.name());
  // Every live reference to a name with no definition, in input order.
  struct RefSite {
    uint32_t Module, Sec;
    uint64_t Offset;
  };
  // Only names without a definition get a list (Slot: global -> its list in Refs): a list per global
  // would cost 24 bytes for every visible name of the link (2.4 MB for 10^5 functions) to report none.
  std::vector<std::vector<RefSite>> Refs;
  DenseMap<uint32_t, uint32_t> Slot;
  std::vector<uint32_t> Order;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      if (!Modules[MI].SectionLive[SI])
        continue;
      for (const Relocation &R : M.relocs(M.Sections[SI])) {
        if (R.Kind == RelocKind::FileIndex || R.Symbol >= M.Symbols.size())
          continue;
        uint32_t G = Modules[MI].Global[R.Symbol];
        if (G == NoGlobal || def(G).valid() || providedOutsideTheLink(M.Symbols[R.Symbol]) ||
            ((Options.Emit == EmitKind::Ptx || Options.Sass || Options.Dlto) && isDeviceRuntimeName(M.Symbols[R.Symbol].name())))
          continue;
        auto [It, Inserted] = Slot.try_emplace(G, uint32_t(Refs.size()));
        if (Inserted) {
          Order.push_back(G);
          Refs.emplace_back();
        }
        Refs[It->second].push_back({MI, SI, R.Offset});
      }
    }
  }
  std::vector<StringRef> Defined;
  if (!Order.empty())
    for (const GlobalSymbol &G : Globals)
      if (def(G).valid())
        Defined.push_back(name(G));
  auto referencedBy = [&](StringRef Words, const RefSite &RS) {
    const LinkModule &LM = Modules[RS.Module];
    const Section &S = LM.M->Sections[RS.Sec];
    const StringRef Name = LM.M->sectionName(S);
    std::string In = S.Kind == SectionKind::Debug ? Name.str() : displayName(Name);
    return DiagSite::at(Words, siteText(LM, locationIn(RS.Module, RS.Sec, RS.Offset)), " in " + In);
  };
  // Dynamic parallelism (a kernel launching kernels) calls into the CUDA device runtime, which NVIDIA
  // ships only as SASS (libcudadevrt.a): a PTX-only link cannot include it; with --sass nvlink links it
  // (and this check lets its names through). A program that launches from the device calls five to ten
  // of its functions: one error names them all, each with its first use, and says once what to do.
  std::vector<DiagSite> RuntimeSites;
  std::vector<std::string> RuntimeNames;
  bool Launches = false; // kernels launched from kernels (dynamic parallelism), not only cudaMalloc & co
  for (uint32_t Index = 0; Index < Order.size(); ++Index) {
    uint32_t G = Order[Index];
    const std::vector<RefSite> &Uses = Refs[Index];
    if (isDeviceRuntimeName(name(Globals[G]))) {
      Launches |= isDeviceRuntimeLaunch(name(Globals[G]));
      RuntimeNames.push_back(displayName(name(Globals[G])));
      RuntimeSites.push_back(referencedBy(RuntimeNames.back() + " referenced by", Uses.front()));
      continue;
    }
    std::vector<DiagSite> Sites;
    const size_t Shown = 3;
    for (size_t I = 0; I < Uses.size() && I < Shown; ++I)
      Sites.push_back(referencedBy("referenced by", Uses[I]));
    if (Uses.size() > Shown)
      Sites.push_back({"referenced " + std::to_string(Uses.size() - Shown) + " more times"});
    suggestNearMisses(name(Globals[G]), Defined, Sites);
    Diags.error("undefined symbol: " + displayName(name(Globals[G])), std::move(Sites), "undefined-symbol");
  }
  if (!RuntimeNames.empty()) {
    std::string Which = RuntimeNames.front();
    if (RuntimeNames.size() > 1)
      Which += " and " + std::to_string(RuntimeNames.size() - 1) +
               (RuntimeNames.size() > 2 ? " more functions" : " more function") + " of the CUDA device runtime";
    RuntimeSites.push_back({std::string(RuntimeNames.size() > 1 ? "the CUDA device runtime (libcudadevrt, nvcc "
                                                                  "-lcudadevrt) defines them"
                                                                : "the CUDA device runtime (libcudadevrt, nvcc "
                                                                  "-lcudadevrt) defines it") +
                            "; NVIDIA ships it as SASS only, which a PTX-only link cannot include: link with --sass "
                            "(nvlink then links the device runtime), or --emit ptx for ptxas -c and nvlink -lcudadevrt"});
    Diags.error("undefined symbol: " + Which +
                    (Launches ? " (dynamic parallelism needs the CUDA device runtime: link with --sass)"
                              : " (device-side runtime API calls, e.g. cudaMalloc in a kernel, need the CUDA device "
                                "runtime: link with --sass)"),
                std::move(RuntimeSites), "device-runtime");
  }
}

void ArchLink::printGc(raw_ostream &OS) const {
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      const Section &S = M.Sections[SI];
      if (Modules[MI].SectionLive[SI] || (S.Kind != SectionKind::Function && S.Kind != SectionKind::Variable))
        continue;
      // Losing definitions of a global name are discarded by resolution, not by the collector.
      if (S.Symbol < M.Symbols.size()) {
        uint32_t G = Modules[MI].Global[S.Symbol];
        if (G != NoGlobal && !(def(G).Module == MI && definingSection(def(G)) == SI))
          continue;
      }
      OS << "ptxlink: removing unused " << (S.Kind == SectionKind::Function ? "function " : "variable ")
         << displayName(M.sectionName(S)) << " in " << Modules[MI].ObjectName << " [" << Arch.name() << "]\n";
    }
  }
}

void ArchLink::dumpCallgraph(raw_ostream &OS) const {
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
        SymRef T = target(MI, R.Symbol);
        if (!T.valid())
          continue;
        uint32_t Sec = definingSection(T);
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
  OS << "callgraph for " << Arch.name() << ":\n";
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

void ArchLink::addCallGraph(CallGraphDot &G, StringRef Group) const {
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
    return GI == NoGlobal || (def(GI).Module == MI && definingSection(def(GI)) == SI);
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
    SymRef T = target(MI, Sym);
    if (!T.valid()) {
      const Symbol &S = Modules[MI].M->Symbols[Sym];
      if (S.Kind != SymbolKind::Function && S.Kind != SymbolKind::Kernel)
        return -1;
      return static_cast<long>(G.node(Prefix + "extern:" + S.name().str(), S.name(), NK::External, Group, ""));
    }
    uint32_t Sec = definingSection(T);
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
    for (const PrototypeAbi &P : M.Prototypes) {
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
