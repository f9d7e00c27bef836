// Link-time agreement checks between two sites of one symbol: declaration vs definition, alias vs
// aliasee, call-table members, and indirect-call prototypes vs their targets.
//
// The problem: the linker knows *that* two modules name the same function or variable; this file says
// whether they mean the same thing, and if not, reports one diagnostic per pair that shows both sites,
// both signatures as PTX (and the C++ signatures for mangled names), then every difference, worst first.
// The headline's severity and code are those of the worst difference, so `-Werror`, the error limit and
// `--json` consumers all see one stable kind per mismatch.

#include "AbiCheckDwarf.h"
#include "ptxlink/AbiCheck.h"

#include "llvm/Demangle/Demangle.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {

namespace {

struct Roles {
  StringRef OtherName, DefName; // "the declaration", "the definition" (used in difference lines)
  StringRef OtherAt, DefAt;     // "declared at", "defined at" (site lines)
};

Roles rolesFor(AbiRelation R) {
  switch (R) {
  case AbiRelation::DeclarationVsDefinition:
    return {"the declaration", "the definition", "declared at", "defined at"};
  case AbiRelation::AliasVsAliasee:
    return {"the alias", "the aliasee", "alias declared at", "aliasee defined at"};
  case AbiRelation::CallTableMembers:
    return {"this member", "the first member", "call-table member at", "first call-table member at"};
  case AbiRelation::CallTargetVsPrototype:
    return {"the prototype", "the call target", "prototype at", "call target defined at"};
  case AbiRelation::DefinitionVsDefinition:
    return {"this definition", "the chosen definition", "also defined at", "chosen definition at"};
  }
  return {"the declaration", "the definition", "declared at", "defined at"};
}

StringRef severityWord(Severity S) {
  return S == Severity::Error ? "error" : S == Severity::Warning ? "warning" : "note";
}

/// "'f'" or, for a C++ name, "'f(int)' (_Z1fi)": demangled, with the raw name beside it.
std::string displayName(StringRef Name) {
  std::string Demangled = demangleCxx(Name);
  if (Demangled.empty())
    return ("'" + Name + "'").str();
  return "'" + Demangled + "' (" + Name.str() + ")";
}

/// The parameter list of a mangled function name, "(int, float)"; "" if not a mangled function.
std::string cxxParameters(StringRef Name) {
  if (!Name.starts_with("_Z"))
    return "";
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Name.str().c_str()) || !D.isFunction())
    return "";
  size_t Size = 0;
  char *Buf = D.getFunctionParameters(nullptr, &Size);
  if (!Buf)
    return "";
  std::string Result(Buf);
  std::free(Buf);
  return Result;
}

Severity worst(ArrayRef<AbiFinding> Findings) {
  Severity S = Severity::Note;
  for (const AbiFinding &F : Findings)
    if (F.Level > S)
      S = F.Level;
  return S;
}

/// True if any parameter is an untyped bit pattern of a size that a C int and a C float share, so the
/// PTX types alone cannot tell whether both sides mean the same C type.
bool hasAmbiguousBits(const ModuleVariant &M, const FunctionAbi &F) {
  auto Ambiguous = [](const ParamInfo &P) {
    return P.type() == ".b16" || P.type() == ".b32" || P.type() == ".b64" || (P.type() == ".b8" && !P.ArrayDims.empty());
  };
  return llvm::any_of(M.params(F), Ambiguous) || llvm::any_of(M.returns(F), Ambiguous);
}

/// Emits one diagnostic for all differences of one pair. Returns true if it counted as an error.
bool reportPair(DiagnosticEngine &Diags, const std::string &Headline, std::vector<DiagSite> Sites,
                std::vector<AbiFinding> Findings) {
  // Worst first, keeping the comparison's order among equals (counts, returns, params, attributes).
  std::stable_sort(Findings.begin(), Findings.end(),
                   [](const AbiFinding &A, const AbiFinding &B) { return A.Level > B.Level; });
  Severity Level = Findings.front().Level;
  // A single difference is already the headline; listing it again would only repeat it.
  for (const AbiFinding &F : llvm::ArrayRef(Findings).drop_front(Findings.size() == 1 ? 1 : 0)) {
    std::string Line = F.Detail;
    if (F.Level != Level)
      Line += " [" + severityWord(F.Level).str() + "]";
    Sites.push_back({std::move(Line)});
  }
  Diagnostic D;
  D.Level = Level;
  D.Message = Headline + ": " + Findings.front().Detail;
  D.Sites = std::move(Sites);
  D.Code = Findings.front().Code;
  unsigned Before = Diags.errorCount();
  Diags.report(std::move(D));
  return Diags.errorCount() != Before;
}

/// The site lines for one side: where it is and what it says.
void addSite(std::vector<DiagSite> &Sites, StringRef Verb, const ModuleVariant &M, StringRef Object,
             SourceLoc Where, std::string Ptx) {
  Sites.push_back(DiagSite::at(Verb, describeSite(M, Object, Where), ": " + Ptx));
}

SourceLoc whereOf(const ModuleVariant &M, uint32_t Sym, SourceLoc Preferred) {
  if (Preferred.isValid() || Sym >= M.Symbols.size())
    return Preferred;
  return M.Symbols[Sym].Where;
}

bool validSite(const SymbolSite &S) { return S.Module && S.Symbol < S.Module->Symbols.size(); }

} // namespace

bool checkFunctionAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags) {
  return checkFunctionAgreement(Definition, Other, Diags, AbiCheckOptions{});
}

bool checkFunctionAgreement(const SymbolSite &Def, const SymbolSite &Other, DiagnosticEngine &Diags,
                            const AbiCheckOptions &Options) {
  if (!validSite(Def) || !validSite(Other))
    return false;
  const Symbol &DefSym = Def.Module->Symbols[Def.Symbol];
  const Symbol &OtherSym = Other.Module->Symbols[Other.Symbol];
  const FunctionAbi *DefAbi = findFunctionAbi(*Def.Module, Def.Symbol);
  const FunctionAbi *OtherAbi = findFunctionAbi(*Other.Module, Other.Symbol);
  // The caller's default relation is refined from what the sites are, so messages name them rightly.
  AbiRelation Relation = Options.Relation;
  if (Relation == AbiRelation::DeclarationVsDefinition) {
    const uint32_t OtherAliasee = Other.Module->aliasOf(Other.Symbol);
    if (Other.Module == Def.Module && OtherAliasee == Def.Symbol)
      Relation = AbiRelation::AliasVsAliasee;
    else if (OtherAbi && OtherAbi->HasBody && OtherAliasee == NoSymbol)
      Relation = AbiRelation::DefinitionVsDefinition;
  }
  Roles R = rolesFor(Relation);

  // Built only for a report: demangling every checked name would cost more than the checks.
  auto Headline = [&]() -> std::string {
  switch (Relation) {
  case AbiRelation::DeclarationVsDefinition:
    return "declaration of " + displayName(DefSym.name()) + " does not match its definition";
  case AbiRelation::AliasVsAliasee:
    return "alias " + displayName(OtherSym.name()) + " does not match its aliasee " + displayName(DefSym.name());
  case AbiRelation::CallTableMembers:
    return "call-table members " + displayName(OtherSym.name()) + " and " + displayName(DefSym.name()) +
               " have different prototypes";
  case AbiRelation::CallTargetVsPrototype:
    return "call target " + displayName(DefSym.name()) + " does not match the call's prototype";
  case AbiRelation::DefinitionVsDefinition:
    return "definitions of " + displayName(DefSym.name()) + " disagree";
  }
  return "";
  };

  if (!DefAbi || !OtherAbi) {
    bool OtherIsVariable = OtherSym.Kind == SymbolKind::Variable, DefIsVariable = DefSym.Kind == SymbolKind::Variable;
    if (OtherIsVariable != DefIsVariable) {
      std::vector<DiagSite> Sites;
      addSite(Sites, R.OtherAt, *Other.Module, Other.ObjectName, OtherSym.Where,
              OtherIsVariable ? "a variable" : "a function");
      addSite(Sites, R.DefAt, *Def.Module, Def.ObjectName, DefSym.Where, DefIsVariable ? "a variable" : "a function");
      return reportPair(Diags, Headline(), std::move(Sites),
                        {{Severity::Error, "abi-kind",
                          "kind: " + std::string(OtherIsVariable ? "variable" : "function") + " in " +
                              R.OtherName.str() + ", " + (DefIsVariable ? "variable" : "function") + " in " +
                              R.DefName.str()}});
    }
    if (Options.ReportUncheckable) {
      const SymbolSite &Missing = DefAbi ? Other : Def;
      Diags.note("cannot check the prototype of " + displayName(DefSym.name()) + ": " +
                     (Missing.ObjectName.empty() ? StringRef("an input") : Missing.ObjectName) +
                     " records no signature for it",
                 {DiagSite::at("at", describeSite(*Missing.Module, Missing.ObjectName,
                                                  Missing.Module->Symbols[Missing.Symbol].Where))},
                 "abi-no-signature");
    }
    return false;
  }

  std::vector<AbiFinding> Findings =
      compareFunctionAbi(Other.Module->signature(*OtherAbi), Def.Module->signature(*DefAbi), R.OtherName, R.DefName, Relation);

  // What the C++ names add. Two different mangled names (alias, call-table members) carry their
  // parameter types: if those differ while the PTX agrees, the PTX types were too coarse to tell.
  // (The same name on both sides needs no demangling: its C++ types are the same by definition.)
  bool SameName = OtherSym.name() == DefSym.name();
  if (!SameName) {
    std::string CxxOther = cxxParameters(OtherSym.name()), CxxDef = cxxParameters(DefSym.name());
    if (!CxxOther.empty() && !CxxDef.empty() && CxxOther != CxxDef)
      Findings.push_back({Severity::Warning, "abi-cxx-signature",
                          "C++ parameters: " + CxxOther + " in " + R.OtherName.str() + ", " + CxxDef + " in " +
                              R.DefName.str()});
  }

  // Debug information, when both modules carry it, says what C types the PTX types stand for.
  // Only worth it where PTX types are ambiguous and the same mangled name has not already settled the C++
  // types; a PTX error needs no C types to explain it.
  bool DwarfCompared = false;
  // One mangled C++ name on both sides (the Itanium prefix is enough: demangling every declaration of a
  // large program to confirm it would cost more than all the other checks together).
  bool SameCxxName = SameName && DefSym.name().starts_with("_Z");
  if (!SameCxxName && (Findings.empty() || worst(Findings) < Severity::Error) &&
      (hasAmbiguousBits(*Other.Module, *OtherAbi) || hasAmbiguousBits(*Def.Module, *DefAbi))) {
    DwarfSignatureComparison Dwarf =
        compareDwarfSignatures(*Other.Module, OtherSym.name(), *Def.Module, DefSym.name(), R.OtherName, R.DefName);
    DwarfCompared = Dwarf.Compared;
    for (AbiFinding &F : Dwarf.Findings)
      Findings.push_back(std::move(F));
  }

  if (Findings.empty()) {
    // Same mangled name: the C++ types agree too, so nothing is left unchecked. extern "C" names with
    // untyped .bN parameters and no debug information are the case nothing can settle.
    if (Options.ReportUncheckable && !DwarfCompared &&
        (hasAmbiguousBits(*Other.Module, *OtherAbi) || hasAmbiguousBits(*Def.Module, *DefAbi)) && !SameCxxName)
      Diags.note("cannot tell the C types of " + displayName(DefSym.name()) +
                     " apart beyond their size: its untyped parameters (.bN scalars, .b8 byte arrays) could be "
                     "int or float, or structs of one size, and neither a C++ mangled name nor debug "
                     "information in both modules says which",
                 {DiagSite::at(R.OtherAt, describeSite(*Other.Module, Other.ObjectName,
                                                       whereOf(*Other.Module, Other.Symbol, Other.Module->functionWhere(*OtherAbi)))),
                  DiagSite::at(R.DefAt, describeSite(*Def.Module, Def.ObjectName,
                                                     whereOf(*Def.Module, Def.Symbol, Def.Module->functionWhere(*DefAbi))))},
                 "abi-uncheckable");
    return false;
  }

  std::vector<DiagSite> Sites;
  addSite(Sites, R.OtherAt, *Other.Module, Other.ObjectName, whereOf(*Other.Module, Other.Symbol, Other.Module->functionWhere(*OtherAbi)),
          formatFunctionPtx(*Other.Module, *OtherAbi));
  addSite(Sites, R.DefAt, *Def.Module, Def.ObjectName, whereOf(*Def.Module, Def.Symbol, Def.Module->functionWhere(*DefAbi)),
          formatFunctionPtx(*Def.Module, *DefAbi));
  std::string DemOther = demangleCxx(OtherSym.name()), DemDef = demangleCxx(DefSym.name());
  if (!DemOther.empty() || !DemDef.empty()) {
    // Same mangled name, so the same C++ types: a layout difference is what an error here means. A
    // warning alone (a return value's alignment, written differently by clang and nvcc) is no such thing.
    bool LayoutDiffers = llvm::any_of(Findings, [](const AbiFinding &F) { return F.Level == Severity::Error; });
    if (OtherSym.name() == DefSym.name()) {
      if (LayoutDiffers)
        Sites.push_back({"C++: " + DemDef + " on both sides: a type it names has a different layout in the two "
                                            "translation units"});
    } else
      Sites.push_back({"C++: " + (DemOther.empty() ? OtherSym.name().str() : DemOther) + " in " + R.OtherName.str() +
                       ", " + (DemDef.empty() ? DefSym.name().str() : DemDef) + " in " + R.DefName.str()});
  }
  return reportPair(Diags, Headline(), std::move(Sites), std::move(Findings));
}

bool checkPrototypeAgreement(const SymbolSite &Target, const PrototypeSite &Proto, DiagnosticEngine &Diags,
                             const AbiCheckOptions &Options) {
  if (!validSite(Target) || !Proto.Module || Proto.Prototype >= Proto.Module->prototypes().size())
    return false;
  const PrototypeAbi &P = Proto.Module->prototypes()[Proto.Prototype];
  const Symbol &TargetSym = Target.Module->Symbols[Target.Symbol];
  const FunctionAbi *TargetAbi = findFunctionAbi(*Target.Module, Target.Symbol);
  Roles R = rolesFor(AbiRelation::CallTargetVsPrototype);
  if (!TargetAbi) {
    if (Options.ReportUncheckable)
      Diags.note("cannot check call target " + displayName(TargetSym.name()) + " against prototype '" + P.Label +
                     "': no signature recorded for it",
                 {DiagSite::at("at", describeSite(*Target.Module, Target.ObjectName, TargetSym.Where))},
                 "abi-no-signature");
    return false;
  }
  TuningInfo PrototypeTuning; // the `.abi_preserve` counts
  PrototypeTuning.AbiPreserve = P.AbiPreserve;
  PrototypeTuning.AbiPreserveControl = P.AbiPreserveControl;
  FunctionSignature AsFunction{P.Returns, P.Params, &PrototypeTuning, false, P.NoReturn};
  // A prototype carries no attributes; they are not part of what an indirect call checks.
  FunctionSignature TargetView = Target.Module->signature(*TargetAbi);
  TuningInfo TargetTuning;
  if (!TargetView.Tuning->Attributes.empty()) {
    TargetTuning = *TargetView.Tuning;
    TargetTuning.Attributes.clear();
    TargetView.Tuning = &TargetTuning;
  }
  std::vector<AbiFinding> Findings =
      compareFunctionAbi(AsFunction, TargetView, R.OtherName, R.DefName, AbiRelation::CallTargetVsPrototype);
  if (Findings.empty())
    return false;
  std::string Headline = "call target " + displayName(TargetSym.name()) + " does not match prototype '" +
                         P.Label.str() + "'";
  std::string Where;
  if (P.Function < Proto.Module->Symbols.size())
    Where = " in " + Proto.Module->Symbols[P.Function].name().str();
  std::vector<DiagSite> Sites;
  addSite(Sites, R.OtherAt, *Proto.Module, Proto.ObjectName, P.Where, formatPrototypePtx(P) + Where);
  addSite(Sites, R.DefAt, *Target.Module, Target.ObjectName, whereOf(*Target.Module, Target.Symbol, Target.Module->functionWhere(*TargetAbi)),
          formatFunctionPtx(*Target.Module, *TargetAbi));
  return reportPair(Diags, Headline, std::move(Sites), std::move(Findings));
}

bool checkVariableAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags) {
  return checkVariableAgreement(Definition, Other, Diags, AbiCheckOptions{});
}

bool checkVariableAgreement(const SymbolSite &Def, const SymbolSite &Other, DiagnosticEngine &Diags,
                            const AbiCheckOptions &Options) {
  if (!validSite(Def) || !validSite(Other))
    return false;
  const Symbol &DefSym = Def.Module->Symbols[Def.Symbol];
  const Symbol &OtherSym = Other.Module->Symbols[Other.Symbol];
  const VariableAbi *DefAbi = findVariableAbi(*Def.Module, Def.Symbol);
  const VariableAbi *OtherAbi = findVariableAbi(*Other.Module, Other.Symbol);
  // Two definitions (a weak one that lost, a common one) are named as such, not as a declaration.
  bool TwoDefinitions = OtherSym.Bind != Binding::Undefined;
  StringRef OtherRole = TwoDefinitions ? "this definition" : "the declaration";
  StringRef DefRole = TwoDefinitions ? "the chosen definition" : "the definition";
  StringRef OtherAt = TwoDefinitions ? "also defined at" : "declared at";
  StringRef DefAt = TwoDefinitions ? "chosen definition at" : "defined at";
  auto Headline = [&] {
    return TwoDefinitions ? "definitions of variable " + displayName(DefSym.name()) + " disagree"
                          : "declaration of variable " + displayName(DefSym.name()) + " does not match its definition";
  };
  if (!DefAbi || !OtherAbi) {
    bool OtherIsVariable = OtherSym.Kind == SymbolKind::Variable, DefIsVariable = DefSym.Kind == SymbolKind::Variable;
    if (OtherIsVariable != DefIsVariable) {
      std::vector<DiagSite> Sites;
      addSite(Sites, "declared at", *Other.Module, Other.ObjectName, OtherSym.Where,
              OtherIsVariable ? "a variable" : "a function");
      addSite(Sites, "defined at", *Def.Module, Def.ObjectName, DefSym.Where, DefIsVariable ? "a variable" : "a function");
      return reportPair(Diags, "declaration of " + displayName(DefSym.name()) + " does not match its definition",
                        std::move(Sites),
                        {{Severity::Error, "abi-kind",
                          std::string("kind: ") + (OtherIsVariable ? "variable" : "function") +
                              " in the declaration, " + (DefIsVariable ? "variable" : "function") +
                              " in the definition"}});
    }
    if (Options.ReportUncheckable) {
      const SymbolSite &Missing = DefAbi ? Other : Def;
      Diags.note("cannot check the layout of variable " + displayName(DefSym.name()) + ": " +
                     (Missing.ObjectName.empty() ? StringRef("an input") : Missing.ObjectName) +
                     " records no layout for it",
                 {DiagSite::at("at", describeSite(*Missing.Module, Missing.ObjectName,
                                                  Missing.Module->Symbols[Missing.Symbol].Where))},
                 "abi-no-signature");
    }
    return false;
  }
  std::vector<AbiFinding> Findings = compareVariableAbi(*OtherAbi, *DefAbi, OtherRole, DefRole);
  if (Findings.empty())
    return false;
  std::vector<DiagSite> Sites;
  addSite(Sites, OtherAt, *Other.Module, Other.ObjectName, whereOf(*Other.Module, Other.Symbol, OtherAbi->Where),
          formatVariablePtx(*Other.Module, *OtherAbi));
  addSite(Sites, DefAt, *Def.Module, Def.ObjectName, whereOf(*Def.Module, Def.Symbol, DefAbi->Where),
          formatVariablePtx(*Def.Module, *DefAbi));
  if (std::string Dem = demangleCxx(DefSym.name()); !Dem.empty())
    Sites.push_back({"C++: " + Dem});
  return reportPair(Diags, Headline(), std::move(Sites), std::move(Findings));
}

} // namespace ptxlink
