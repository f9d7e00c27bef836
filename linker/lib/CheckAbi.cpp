// The ABI checks of a resolved link (checkAbi, LinkPasses.h): kernels, module compatibility, every
// declaration and losing definition against its winner, aliases and `.calltargets` members.
//
// The problem: PTX names a function or variable with its signature at every declaration, and nothing
// before ptxas compares them across modules; a caller compiled against another version of a header
// passes arguments the callee does not read. Once resolution has chosen each name's definition, every
// other site of the name is compared with it (the rules: AbiCheck*.cpp, docs/abi-checks.md).
#include "LinkPasses.h"
#include "ptxlink/AbiCheck.h"

using namespace llvm;

namespace ptxlink {

static bool isFunctionKind(SymbolKind K) { return K == SymbolKind::Function || K == SymbolKind::Kernel; }

void checkAbi(const SymbolTable &Symtab, const LinkOptions &Options, DiagnosticEngine &Diags) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  // `--check-abi` also reports the checks that could not be made (no signature, untyped parameters, a
  // PTX version too old to record them); on an ordinary link those notes would be noise.
  AbiCheckOptions AbiOptions;
  AbiOptions.ReportUncheckable = Options.CheckAbiOnly;
  std::vector<ModuleSite> ModuleSites;
  for (const LinkModule &LM : Modules) {
    checkKernels(*LM.M, LM.ObjectName, Diags);
    ModuleSites.push_back({LM.M, LM.ObjectName});
  }
  if (!ModuleSites.empty())
    checkModuleCompatibility(ModuleSites, Diags, AbiOptions);

  // Every declaration and every losing definition must agree with the winner.
  for (const GlobalSymbol &G : Symtab.Globals) {
    const SymRef Def = Symtab.def(G);
    if (!Def.valid())
      continue;
    SymbolSite DefSite{Modules[Def.Module].M, Modules[Def.Module].ObjectName, Def.Symbol};
    // The declarations first, then the definitions, each in input order (one loop: its body is inlined).
    for (ArrayRef<SymRef> Others : {Symtab.decls(G), Symtab.defs(G)})
      for (SymRef Other : Others) {
        if (Other == Def)
          continue;
        SymbolSite OtherSite{Modules[Other.Module].M, Modules[Other.Module].ObjectName, Other.Symbol};
        // A function on one side and a variable on the other (`.extern .func g` against `.global .u32 g`)
        // is reported as abi-kind by the function check, whichever side is the function.
        if (isFunctionKind(Symtab.sym(Def).Kind) || isFunctionKind(Symtab.sym(Other).Kind))
          checkFunctionAgreement(DefSite, OtherSite, Diags, AbiOptions);
        else if (Symtab.sym(Def).Kind == SymbolKind::Variable && Symtab.sym(Other).Kind == SymbolKind::Variable &&
                 Symtab.sym(Other).Bind != Binding::Common)
          checkVariableAgreement(DefSite, OtherSite, Diags, AbiOptions);
      }
  }

  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const LinkModule &LM = Modules[MI];
    const ModuleVariant &M = *LM.M;
    // .alias: the aliasee is a non-weak function defined in this module, with the same prototype.
    // (In symbol order, so the reports are; a module without aliases is not walked.)
    const bool HasAliases = !M.aliases().empty();
    for (uint32_t SI = 0; HasAliases && SI < M.Symbols.size(); ++SI) {
      const uint32_t Aliasee = M.aliasOf(SI);
      if (Aliasee == NoSymbol)
        continue;
      const Symbol &S = M.Symbols[SI];
      auto Name = [&] { return displayName(S.name()); }; // for reports only
      if (Aliasee >= M.Symbols.size()) {
        Diags.error("alias " + Name() + " refers to a symbol that does not exist",
                    {DiagSite::at("declared at", Symtab.site({MI, SI}))}, "alias-target");
        continue;
      }
      const Symbol &T = M.Symbols[Aliasee];
      auto TName = [&] { return displayName(T.name()); };
      if (T.Kind != SymbolKind::Function || S.Kind != SymbolKind::Function)
        Diags.error("alias " + Name() + " and its aliasee " + TName() + " must both be non-entry functions",
                    {DiagSite::at("alias at", Symtab.site({MI, SI})), DiagSite::at("aliasee at", Symtab.site({MI, Aliasee}))},
                    "alias-kind");
      else if (T.Section == NoSection || T.Bind == Binding::Undefined)
        Diags.error(
            "aliasee " + TName() + " of alias " + Name() + " must be defined in the same module",
            {DiagSite::at("alias at", Symtab.site({MI, SI})), DiagSite::at("aliasee declared at", Symtab.site({MI, Aliasee}))},
            "alias-undefined-aliasee");
      else if (T.Bind == Binding::Weak)
        Diags.error("aliasee " + TName() + " of alias " + Name() + " must not be .weak",
                    {DiagSite::at("alias at", Symtab.site({MI, SI})), DiagSite::at("aliasee at", Symtab.site({MI, Aliasee}))},
                    "alias-weak-aliasee");
      else
        checkFunctionAgreement({&M, LM.ObjectName, Aliasee}, {&M, LM.ObjectName, SI}, Diags, AbiOptions);
    }
    // .calltargets members must have the signature of the prototype the call uses.
    for (uint32_t PI = 0; PI < M.prototypes().size(); ++PI)
      for (uint32_t T : M.prototypes()[PI].CallTargets) {
        SymRef D = Symtab.target(MI, T);
        if (!D.valid())
          continue; // undefined: reported by checkUndefined if live
        if (!Symtab.functionAbi(D) && Modules[D.Module].M->aliasOf(D.Symbol) != NoSymbol)
          D = {D.Module, Modules[D.Module].M->aliasOf(D.Symbol)}; // an alias has the aliasee's signature
        checkPrototypeAgreement({Modules[D.Module].M, Modules[D.Module].ObjectName, D.Symbol},
                                {&M, LM.ObjectName, PI}, Diags, AbiOptions);
      }
  }
}

} // namespace ptxlink
