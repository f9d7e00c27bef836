// The symbol table's lookups that are not inline (SymbolTable, LinkContext.h), and how its names and
// sites are shown in diagnostics and reports.
#include "LinkContext.h"
#include "ptxlink/AbiCheck.h"

#include "llvm/Demangle/Demangle.h"

using namespace llvm;

namespace ptxlink {

SiteLocation siteText(const LinkModule &Module, SourceLoc Where) {
  return describeSite(*Module.M, Module.ObjectName, Where);
}

std::string displayName(StringRef Name) {
  std::string D = llvm::demangle(Name);
  if (D == Name)
    return Name.str();
  return D + " (" + Name.str() + ")";
}

uint32_t SymbolTable::aliaseeSection(SymRef R) const {
  const ModuleVariant &M = *Modules[R.Module].M;
  // Follow .alias chains (bounded: a malformed object could loop).
  for (unsigned Depth = 0; Depth < 8 && R.Symbol < M.Symbols.size(); ++Depth) {
    const Symbol &S = M.Symbols[R.Symbol];
    const uint32_t Aliasee = M.aliasOf(R.Symbol);
    if (Aliasee == NoSymbol || Aliasee >= M.Symbols.size())
      return S.Section < M.Sections.size() ? S.Section : NoSection;
    R.Symbol = Aliasee;
  }
  return NoSection;
}

SourceLoc SymbolTable::locationIn(uint32_t Module, uint32_t SecIdx, uint64_t Offset) const {
  const Section &S = Modules[Module].M->Sections[SecIdx];
  SourceLoc Rel = locate(S.contents(), Offset);
  const SourceLoc Where = Modules[Module].M->sectionWhere(S);
  if (!Where.isValid())
    return {};
  if (Rel.Line == 1)
    return SourceLoc{Where.Line, Where.Column + Rel.Column - 1};
  return SourceLoc{Where.Line + Rel.Line - 1, Rel.Column};
}

const FunctionAbi *SymbolTable::functionAbi(SymRef R) const {
  const LinkModule &LM = Modules[R.Module];
  if (LM.AbiOf.empty())
    return bySymbol(LM.M->Functions, R.Symbol);
  uint32_t F = R.Symbol < LM.AbiOf.size() ? LM.AbiOf[R.Symbol] : LinkModule::NoAbi;
  return F & LinkModule::VariableAbiTag ? nullptr : &LM.M->Functions[F]; // NoAbi has the tag bit too
}

const VariableAbi *SymbolTable::variableAbi(SymRef R) const {
  const LinkModule &LM = Modules[R.Module];
  if (LM.AbiOf.empty())
    return bySymbol(LM.M->Functions, R.Symbol) ? nullptr : bySymbol(LM.M->Variables, R.Symbol);
  uint32_t V = R.Symbol < LM.AbiOf.size() ? LM.AbiOf[R.Symbol] : LinkModule::NoAbi;
  return V == LinkModule::NoAbi || !(V & LinkModule::VariableAbiTag)
             ? nullptr
             : &LM.M->Variables[V & ~LinkModule::VariableAbiTag];
}

} // namespace ptxlink
