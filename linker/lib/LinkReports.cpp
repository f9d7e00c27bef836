// Reports about one link (LinkPasses.h): --trace-symbol (every definition and reference of a name, and
// which definition won), --map (what each kept symbol came from and its size, what was dropped and why)
// and --print-gc (what liveness removed).
//
// The problem: when a link picks the "wrong" definition, users need to see every candidate and the rule
// that decided, without reading the linker. Both reports walk the same state the passes built.
#include "LinkPasses.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace ptxlink {

static StringRef bindingWord(Binding B) {
  switch (B) {
  case Binding::Local:
    return "module-local";
  case Binding::Global:
    return "visible";
  case Binding::Weak:
    return "weak";
  case Binding::Common:
    return "common";
  case Binding::Undefined:
    return "extern";
  }
  return "";
}

static StringRef kindWord(SymbolKind K) {
  switch (K) {
  case SymbolKind::Function:
    return "function";
  case SymbolKind::Kernel:
    return "kernel";
  case SymbolKind::Variable:
    return "variable";
  case SymbolKind::Label:
    return "label";
  case SymbolKind::Section:
    return "section";
  }
  return "";
}

void traceSymbols(const SymbolTable &Symtab, ArrayRef<std::string> Names, StringRef ArchName, raw_ostream &OS) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  const std::vector<GlobalSymbol> &Globals = Symtab.Globals;
  for (const std::string &Name : Names) {
    OS << "trace-symbol " << displayName(Name) << " [" << ArchName << "]:\n";
    uint32_t GI = Symtab.findGlobal(Name);
    const GlobalSymbol *G = GI == NoGlobal ? nullptr : &Globals[GI];
    for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
      const ModuleVariant &M = *Modules[MI].M;
      for (uint32_t SI = 0; SI < M.Symbols.size(); ++SI) {
        const Symbol &S = M.Symbols[SI];
        if (S.name() != Name)
          continue;
        SymRef R{MI, SI};
        bool IsDecl = G && llvm::is_contained(Symtab.decls(*G), R);
        OS << "  " << Symtab.site(R).str() << ": " << bindingWord(S.Bind) << " " << kindWord(S.Kind)
           << (IsDecl ? " declaration" : " definition");
        if (uint32_t Aliasee = M.aliasOf(SI); Aliasee != NoSymbol && Aliasee < M.Symbols.size())
          OS << " (alias of " << M.Symbols[Aliasee].name() << ")";
        if (G && Symtab.def(*G) == R)
          OS << " <- chosen";
        else if (S.Bind == Binding::Local)
          OS << " (kept apart from other modules)";
        OS << "\n";
        // References to it from this module.
        for (uint32_t K = 0; K < M.Sections.size(); ++K)
          for (const Relocation &Rel : M.relocs(M.Sections[K]))
            if (Rel.Kind != RelocKind::FileIndex && Rel.Symbol == SI &&
                // the name in its own definition's header is not a reference
                !(M.Sections[K].Symbol == SI &&
                  (M.Sections[K].Kind == SectionKind::Variable || Rel.Offset < M.Sections[K].HeaderLength)))
              OS << "    referenced at " << siteText(Modules[MI], Symtab.locationIn(MI, K, Rel.Offset)).str() << " in "
                 << M.sectionName(K) << (Modules[MI].SectionLive[K] ? "" : " (dead)") << "\n";
      }
    }
    if (G) {
      if (Symtab.def(*G).valid())
        OS << "  resolved to " << bindingWord(G->Bind) << " definition at " << Symtab.site(Symtab.def(*G)).str() << "\n";
      else
        OS << "  unresolved\n";
    } else {
      OS << "  (no visible symbol of that name)\n";
    }
  }
}

void writeMap(const SymbolTable &Symtab, const ModuleVariant *Output, StringRef ArchName, raw_ostream &OS) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  const std::vector<GlobalSymbol> &Globals = Symtab.Globals;
  OS << "# ptxlink link map for " << ArchName << "\n";
  OS << "# kept: output-name kind binding size from\n";
  if (Output) {
    for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
      const LinkModule &LM = Modules[MI];
      for (uint32_t SI = 0; SI < LM.M->Symbols.size(); ++SI) {
        const Symbol &S = LM.M->Symbols[SI];
        if (SI >= LM.SymOut.size() || LM.SymOut[SI] == NoSymbol || S.Kind == SymbolKind::Section ||
            S.Kind == SymbolKind::Label)
          continue;
        uint32_t O = LM.SymOut[SI];
        // A global is listed at its winning definition only.
        if (LM.Global[SI] != NoGlobal && !(Symtab.def(LM.Global[SI]) == SymRef{MI, SI}))
          continue;
        const Symbol &N = Output->Symbols[O];
        uint64_t Size = N.size();
        if (S.Kind != SymbolKind::Variable) {
          uint32_t Sec = Symtab.definingSection({MI, SI});
          Size = Sec == NoSection ? 0 : LM.M->Sections[Sec].contents().size();
        }
        OS << N.name() << " " << kindWord(S.Kind) << " " << bindingWord(N.Bind) << " " << Size
           << (S.Kind == SymbolKind::Variable ? " bytes" : " bytes of PTX") << " " << siteText(LM, S.Where).str();
        if (N.name() != S.name())
          OS << " (renamed from " << S.name() << ")";
        OS << "\n";
      }
    }
  }
  OS << "# dropped: name from reason\n";
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const LinkModule &LM = Modules[MI];
    for (uint32_t SI = 0; SI < LM.M->Symbols.size(); ++SI) {
      const Symbol &S = LM.M->Symbols[SI];
      if (S.Kind == SymbolKind::Section || S.Kind == SymbolKind::Label)
        continue;
      uint32_t GI = LM.Global[SI];
      SymRef R{MI, SI};
      std::string Reason;
      if (GI != NoGlobal) {
        const GlobalSymbol &G = Globals[GI];
        if (!llvm::is_contained(Symtab.defs(G), R))
          continue; // declarations are not definitions to drop
        if (!(Symtab.def(G) == R))
          Reason =
              (S.Bind == Binding::Weak && G.Bind == Binding::Weak ? "weak, an earlier weak definition wins: "
               : S.Bind == Binding::Common                        ? "common, resolved to the definition at "
                                           : "overridden by the " + bindingWord(G.Bind).str() + " definition at ") +
              Symtab.site(Symtab.def(G)).str();
        else if (Output && (SI >= LM.SymOut.size() || LM.SymOut[SI] == NoSymbol)) // none: it contributes nothing
          Reason = "unused (not reachable from a kernel or visible variable)";
      } else {
        uint32_t Sec = Symtab.definingSection(R);
        if (Sec != NoSection && !LM.SectionLive[Sec])
          Reason = "unused (not reachable from a kernel or visible variable)";
      }
      if (!Reason.empty())
        OS << S.name() << " " << siteText(LM, S.Where).str() << " " << Reason << "\n";
    }
  }
}

void printGc(const SymbolTable &Symtab, StringRef ArchName, raw_ostream &OS) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      const Section &S = M.Sections[SI];
      if (Modules[MI].SectionLive[SI] || (S.Kind != SectionKind::Function && S.Kind != SectionKind::Variable))
        continue;
      // Losing definitions of a global name are discarded by resolution, not by the collector.
      if (S.Symbol < M.Symbols.size()) {
        uint32_t G = Modules[MI].Global[S.Symbol];
        if (G != NoGlobal && !(Symtab.def(G).Module == MI && Symtab.definingSection(Symtab.def(G)) == SI))
          continue;
      }
      OS << "ptxlink: removing unused " << (S.Kind == SectionKind::Function ? "function " : "variable ")
         << displayName(M.sectionName(S)) << " in " << Modules[MI].ObjectName << " [" << ArchName << "]\n";
    }
  }
}


} // namespace ptxlink
