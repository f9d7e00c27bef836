// Pass 2 and 3: symbol resolution and the link-time checks.
//
// The problem: every module names symbols it defines (.visible, .weak, .common, .alias, kernels) and
// symbols it needs (.extern). One name must end up with exactly one definition, chosen by the PTX linkage
// rules (ISA 11.6) the way nvlink chooses it, and every disagreement must be reported with all the sites
// involved. Rules (docs/linker.md, "Resolution"):
//   strong (.visible, kernels, aliases) > weak > common > undefined; two strong definitions are an error;
//   among weak definitions the first in input order wins (a warning if their bodies differ); among
//   .common ones the largest wins, at most one may be initialized and it must be the largest; a .common
//   meeting a strong or weak definition must have the same size (nvlink: "Size doesn't match").
#include "ptxlink/AbiCheck.h"
#include "LinkContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <chrono>

using namespace llvm;

namespace ptxlink {

static bool isFunctionKind(SymbolKind K) { return K == SymbolKind::Function || K == SymbolKind::Kernel; }

void ArchLink::resolve() {
  PassTimes::Scope Timed = Times.scope("resolve symbols", Arch.name());
  Globals.clear();
  Sites.clear();
  CommonSizes.clear();
  auto isVisible = [](const Symbol &S) {
    return S.Bind != Binding::Local && S.Kind != SymbolKind::Label && S.Kind != SymbolKind::Section;
  };
  // Room for every visible name at once: growing by doubling would copy the table and touch twice the
  // memory. Counted, not bounded by every symbol: the index's slots are touched when it is made (10.7 MB
  // for 10^6 module-local functions that have no visible name).
  size_t MaxNames = 0;
  for (const LinkModule &LM : Modules)
    for (const Symbol &S : LM.M->Symbols)
      MaxNames += isVisible(S);
  GlobalIndex.reset(MaxNames);
  Globals.reserve(MaxNames);
  auto isDefinition = [](const ModuleVariant &M, const Symbol &S, uint32_t SI) {
    // An alias defines its name whatever its aliasee (check() reports a bad one); anything else where
    // definingSection would find its section. (The alias table last: most symbols are decided before.)
    return S.Bind == Binding::Common || (S.Bind != Binding::Undefined && S.Section < M.Sections.size()) ||
           M.aliasOf(SI) != NoSymbol;
  };
  // The sites are grouped by name without a list per name (most names have one site): the first walk
  // finds each symbol's GlobalSymbol and counts its definitions and declarations (the latter in
  // FirstSite for now), the counts give each name its place in Sites, and a second walk, backwards,
  // fills the places from their ends, so that each name's sites end up in input order.
  // While the sites are unplaced, Sites[I] holds the symbol that created GlobalSymbol I (its name, which
  // the name index reads): the table is at least that long once placed (a name has a site or more), and
  // a separate table of creators cost 8 bytes per name more at resolution's peak.
  Sites.reserve(MaxNames);
  auto NameOfCreator = [&](uint32_t I) { return sym(Sites[I]).name(); };
  uint32_t NumSites = 0;
  SymRef TooManyDefinitions; // the first definition past GlobalSymbol::MaxDefinitions of its name
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    LinkModule &LM = Modules[MI];
    const ModuleVariant &M = *LM.M;
    for (uint32_t SI = 0; SI < M.Symbols.size(); ++SI) {
      const Symbol &S = M.Symbols[SI];
      if (!isVisible(S))
        continue;
      auto [GI, New] = GlobalIndex.insert(S.name(), uint32_t(Globals.size()), NameOfCreator);
      if (New) {
        Globals.emplace_back();
        Sites.push_back(SymRef{MI, SI});
      }
      LM.Global[SI] = GI;
      GlobalSymbol &G = Globals[GI];
      if (!isDefinition(M, S, SI)) {
        ++G.FirstSite;
      } else if (LLVM_LIKELY(G.NumDefs < GlobalSymbol::MaxDefinitions)) {
        ++G.NumDefs;
      } else {
        // Only a malformed object repeats a definition within one module: counted as a declaration, so
        // that the counts stay those of the sites; the link is refused below.
        if (!TooManyDefinitions.valid())
          TooManyDefinitions = SymRef{MI, SI};
        ++G.FirstSite;
      }
      ++NumSites;
    }
  }
  // Refused: every site is placed as a declaration (every name undefined), which keeps the tables
  // consistent for the passes that still run and report.
  if (TooManyDefinitions.valid()) {
    Diags.error("symbol " + displayName(sym(TooManyDefinitions).name()) + " has more than " +
                    Twine(GlobalSymbol::MaxDefinitions) + " definitions",
                {DiagSite::at("defined at", site(TooManyDefinitions))}, "too-many-definitions");
    for (GlobalSymbol &G : Globals) {
      G.FirstSite += G.NumDefs;
      G.NumDefs = 0;
    }
  }
  // Each name's place; Out (unused until emit) holds where its declarations end while they are filled.
  uint32_t Next = 0;
  for (GlobalSymbol &G : Globals) {
    uint32_t Begin = Next;
    Next += G.NumDefs + G.FirstSite;
    G.FirstSite = Begin + G.NumDefs; // where its definitions end
    G.Out = Next;
  }
  Sites.resize(NumSites);
  for (uint32_t MI = Modules.size(); MI-- > 0;) {
    const LinkModule &LM = Modules[MI];
    const ModuleVariant &M = *LM.M;
    for (uint32_t SI = M.Symbols.size(); SI-- > 0;) {
      const Symbol &S = M.Symbols[SI];
      if (!isVisible(S))
        continue;
      GlobalSymbol &G = Globals[LM.Global[SI]];
      Sites[!TooManyDefinitions.valid() && isDefinition(M, S, SI) ? --G.FirstSite : --G.Out] = {MI, SI};
    }
  }
  // Now FirstSite is where each name's definitions begin (and Out where its declarations do).
  for (GlobalSymbol &G : Globals) {
    G.Out = NoSymbol;
    resolveOne(G);
  }
}

static std::string bytes(uint64_t N) { return std::to_string(N) + (N == 1 ? " byte" : " bytes"); }

void ArchLink::resolveOne(GlobalSymbol &G) {
  if (G.NumDefs == 0)
    return;
  ArrayRef<SymRef> Defs = defs(G);
  SmallVector<SymRef, 4> Strong, Weak, Common;
  for (SymRef D : Defs) {
    switch (sym(D).Bind) {
    case Binding::Weak:
      Weak.push_back(D);
      break;
    case Binding::Common:
      Common.push_back(D);
      break;
    default:
      Strong.push_back(D);
      break;
    }
  }
  // Demangled only when a diagnostic needs it: most names never do.
  auto Name = [&] { return displayName(name(G)); };

  // A name is either code or data everywhere.
  SymRef First = Defs.front();
  bool KindMismatch = false;
  for (SymRef D : Defs)
    if (isFunctionKind(sym(D).Kind) != isFunctionKind(sym(First).Kind)) {
      Diags.error("symbol " + Name() + " is defined both as a function and as a variable",
                  {DiagSite::at("defined at", site(First)), DiagSite::at("defined at", site(D))}, "kind-mismatch");
      KindMismatch = true;
      break;
    }

  for (size_t I = 1; I < Strong.size() && !KindMismatch; ++I)
    Diags.error("duplicate symbol: " + Name(),
                {DiagSite::at("defined at", site(Strong[0])), DiagSite::at("defined at", site(Strong[I]))},
                "duplicate-symbol");

  SymRef Winner;
  if (!Strong.empty())
    Winner = Strong.front();
  else if (!Weak.empty())
    Winner = Weak.front();

  // .common: largest wins; at most one initializer and it must be on the largest.
  uint64_t MaxCommon = 0;
  SymRef Largest, Initialized;
  for (SymRef C : Common) {
    if (sym(C).size() > MaxCommon || !Largest.valid()) {
      if (sym(C).size() > MaxCommon)
        MaxCommon = sym(C).size();
      if (!Largest.valid() || sym(C).size() > sym(Largest).size())
        Largest = C;
    }
    if (sym(C).Initialized) {
      if (Initialized.valid())
        Diags.error("common symbol " + Name() + " is initialized more than once",
                    {DiagSite::at("initialized at", site(Initialized)), DiagSite::at("initialized at", site(C))},
                    "common-multiple-init");
      else
        Initialized = C;
    }
  }
  if (!Common.empty()) {
    if (!Winner.valid()) {
      Winner = Largest;
      if (Initialized.valid()) {
        if (sym(Initialized).size() < MaxCommon)
          Diags.error("common symbol " + Name() + " (" + bytes(MaxCommon) +
                          ") is larger than its initialized definition (" + bytes(sym(Initialized).size()) + ")",
                      {DiagSite::at("initialized at", site(Initialized)), DiagSite::at("larger at", site(Largest))},
                      "common-larger-than-init");
        Winner = Initialized;
      }
    } else {
      // nvlink accepts a .common beside a strong or weak definition only when the sizes are equal.
      for (SymRef C : Common) {
        uint64_t CS = sym(C).size(), DS = sym(Winner).size();
        if (CS != DS && CS != 0 && DS != 0)
          Diags.error("size of common symbol " + Name() + " (" + bytes(CS) + ") does not match its definition (" +
                          bytes(DS) + ")",
                      {DiagSite::at("common at", site(C)), DiagSite::at("defined at", site(Winner))},
                      "common-size-mismatch");
        if (sym(C).Initialized && sym(Winner).Initialized)
          Diags.error("common symbol " + Name() + " is initialized and also has an initialized definition",
                      {DiagSite::at("initialized at", site(C)), DiagSite::at("defined at", site(Winner))},
                      "common-multiple-init");
      }
    }
  }

  G.Bind = sym(Winner).Bind;
  if (G.Bind == Binding::Undefined) // an alias declared without a directive still defines a visible name
    G.Bind = Binding::Global;
  if (G.Bind == Binding::Common && MaxCommon != sym(Winner).size())
    CommonSizes[uint32_t(&G - Globals.data())] = MaxCommon;
  G.Initialized = sym(Winner).Initialized || (Initialized.valid() && G.Bind == Binding::Common);

  // Definitions of one variable must agree on its size (nvlink: "Size doesn't match").
  if (sym(Winner).Kind == SymbolKind::Variable)
    for (SymRef D : Defs) {
      if (D == Winner || sym(D).Bind == Binding::Common)
        continue;
      uint64_t A = sym(Winner).size(), B = sym(D).size();
      if (A != B && A != 0 && B != 0)
        Diags.error("size of " + Name() + " does not match (" + bytes(A) + " and " + bytes(B) + ")",
                    {DiagSite::at("defined at", site(Winner)), DiagSite::at("defined at", site(D))}, "size-mismatch");
    }

  // Weak definitions that differ break the one-definition rule; nvlink silently takes the first.
  if (Weak.size() >= 2) {
    // A function's size is the length of its text, which line-table annotations change (a -G copy of
    // a template beside a plain one); only a variable's size is part of what it means.
    bool IsVariable = sym(Weak.front()).Kind == SymbolKind::Variable;
    // The copies are compared by the ODR hashes their objects record (OdrHash.h: computed once, at
    // assembly, modulo nvcc's per-module numbering); no text is read here. A definition without one
    // (no section: an alias of nothing) compares as 0.
    auto hashOf = [&](SymRef W) -> std::optional<uint64_t> {
      uint32_t Sec = definingSection(W);
      if (Sec == NoSection)
        return std::optional<uint64_t>(0);
      return Modules[W.Module].M->odrHashOf(Sec);
    };
    const std::optional<uint64_t> H0 = hashOf(Weak.front());
    auto differs = [&](SymRef W) {
      if (IsVariable && sym(W).size() != sym(Weak.front()).size())
        return true;
      return hashOf(W) != H0;
    };
    size_t FirstDiffering = 1;
    while (FirstDiffering < Weak.size() && !differs(Weak[FirstDiffering]))
      ++FirstDiffering;
    if (FirstDiffering < Weak.size()) {
      WeakCopiesDiffer.insert(uint32_t(&G - Globals.data()));
      // A template in a header used by 300 files has 300 sites: like lld, name a few (the first, which
      // the others are compared with, and the first ones that differ from it) and count the rest.
      constexpr size_t MaxSites = 3;
      std::vector<DiagSite> Sites;
      Sites.push_back(DiagSite::at("defined at", site(Weak.front()), Weak.front() == Winner ? " (used)" : ""));
      size_t MoreSame = 0, MoreDiffering = 0;
      for (size_t I = 1; I < Weak.size(); ++I) {
        bool Differs = I == FirstDiffering || (I > FirstDiffering && differs(Weak[I]));
        if (Differs && Sites.size() < MaxSites)
          Sites.push_back(DiagSite::at("defined at", site(Weak[I]), " (differs)"));
        else
          ++(Differs ? MoreDiffering : MoreSame);
      }
      if (MoreSame + MoreDiffering)
        Sites.push_back({"defined " + std::to_string(MoreSame + MoreDiffering) + " more times (" +
                         std::to_string(MoreDiffering) + " of them differ from the first)"});
      Diags.warning("weak symbol " + Name() + " has definitions that differ; " +
                        (Winner == Weak.front() ? "the first one is used" : "a visible definition is used"),
                    std::move(Sites), "weak-odr");
    }
  }

  // The winner goes first among G's definitions, where def(G) reads it (GlobalSymbol keeps no copy);
  // the others keep their input order. Last: everything above walks the definitions in input order.
  if (Winner == Defs.front())
    return; // nearly every name: one definition
  MutableArrayRef<SymRef> Mine = MutableArrayRef<SymRef>(Sites).slice(G.FirstSite, G.NumDefs);
  auto At = llvm::find(Mine, Winner);
  assert(At != Mine.end() && "the winner is one of the definitions");
  std::rotate(Mine.begin(), At, At + 1);
}

void ArchLink::checkTargetVersion() {
  // The linked module says `.version` = the highest of the inputs; it must be able to name the target.
  std::pair<unsigned, unsigned> MaxVersion{0, 0};
  const LinkModule *MaxModule = nullptr;
  for (const LinkModule &LM : Modules) {
    std::pair<unsigned, unsigned> V{LM.M->Target.VersionMajor, LM.M->Target.VersionMinor};
    if (V > MaxVersion || !MaxModule) {
      MaxVersion = std::max(MaxVersion, V);
      MaxModule = &LM;
    }
  }
  NewestInputVersion = MaxVersion;
  PtxFallback.reset();
  auto Need = minPtxVersion(Arch);
  if (!Need || !MaxModule || MaxVersion >= *Need)
    return;
  // PTX is forward compatible: a module for sm_90 runs on any later GPU (the driver JIT-compiles it) and
  // ptxas compiles it for any later arch. So the module is written for the highest target the inputs
  // name (every selected variant is usable there), not for one its `.version` cannot express. Raising
  // `.version` instead would change what the module means to ptxas (an ISA version also changes rules,
  // e.g. the removal of non-`.sync` warp instructions in PTX ISA 6.4), which nothing here can check.
  std::optional<Target> Highest;
  for (const LinkModule &LM : Modules) {
    auto V = parseArch(LM.M->Target.Arch);
    if (!V)
      continue;
    if (!Highest || V->Sm > Highest->Sm || (V->Sm == Highest->Sm && V->Suffix && !Highest->Suffix))
      Highest = *V;
  }
  bool Valid = Highest && Highest->ptxUsableFor(Arch) && !(*Highest == Arch);
  if (Valid)
    for (const LinkModule &LM : Modules)
      if (auto V = parseArch(LM.M->Target.Arch); V && !V->ptxUsableFor(*Highest))
        Valid = false;
  if (Valid)
    if (auto HighestNeeds = minPtxVersion(*Highest); !HighestNeeds || MaxVersion < *HighestNeeds)
      Valid = false;
  if (Valid) {
    PtxFallback = *Highest;
    return;
  }
  Diags.error("target " + Arch.name() + " needs PTX ISA " + std::to_string(Need->first) + "." +
                  std::to_string(Need->second) + ", but the newest input is PTX ISA " +
                  std::to_string(MaxVersion.first) + "." + std::to_string(MaxVersion.second),
              {DiagSite::at("newest input:", siteText(*MaxModule, {}))}, "version-too-old");
}

std::string ArchLink::ptxTargetReason() const {
  if (!PtxFallback)
    return {};
  auto Need = minPtxVersion(Arch);
  std::string Version = std::to_string(NewestInputVersion.first) + "." + std::to_string(NewestInputVersion.second);
  std::string Reason = "the newest input is PTX ISA " + Version + ", which cannot name " + Arch.name();
  if (Need)
    Reason += " (it needs " + std::to_string(Need->first) + "." + std::to_string(Need->second) + ")";
  Reason += ": the PTX is written for " + PtxFallback->name() + ", the highest target the inputs name, which the "
            "driver JIT-compiles on " + Arch.name() + " devices";
  if (Options.Sass)
    Reason += "; the SASS is compiled for " + Arch.name() + " from it";
  return Reason;
}

void ArchLink::check() {
  PassTimes::Scope Timed = Times.scope("check", Arch.name());
  // `--check-abi` also reports the checks that could not be made (no signature, untyped parameters, a
  // PTX version too old to record them); on an ordinary link those notes would be noise.
  AbiCheckOptions AbiOptions;
  AbiOptions.ReportUncheckable = Options.CheckAbiOnly;
  std::vector<ModuleSite> Sites;
  for (const LinkModule &LM : Modules) {
    checkKernels(*LM.M, LM.ObjectName, Diags);
    Sites.push_back({LM.M, LM.ObjectName});
  }
  if (!Sites.empty())
    checkModuleCompatibility(Sites, Diags, AbiOptions);

  // Every declaration and every losing definition must agree with the winner.
  for (const GlobalSymbol &G : Globals) {
    const SymRef Def = def(G);
    if (!Def.valid())
      continue;
    SymbolSite DefSite{Modules[Def.Module].M, Modules[Def.Module].ObjectName, Def.Symbol};
    auto Compare = [&](SymRef Other) {
      if (Other == Def)
        return;
      SymbolSite OtherSite{Modules[Other.Module].M, Modules[Other.Module].ObjectName, Other.Symbol};
      // A function on one side and a variable on the other (`.extern .func g` against `.global .u32 g`)
      // is reported as abi-kind by the function check, whichever side is the function.
      if (isFunctionKind(sym(Def).Kind) || isFunctionKind(sym(Other).Kind))
        checkFunctionAgreement(DefSite, OtherSite, Diags, AbiOptions);
      else if (sym(Def).Kind == SymbolKind::Variable && sym(Other).Kind == SymbolKind::Variable &&
               sym(Other).Bind != Binding::Common)
        checkVariableAgreement(DefSite, OtherSite, Diags, AbiOptions);
    };
    for (SymRef D : decls(G))
      Compare(D);
    for (SymRef D : defs(G))
      Compare(D);
  }

  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const LinkModule &LM = Modules[MI];
    const ModuleVariant &M = *LM.M;
    // .alias: the aliasee is a non-weak function defined in this module, with the same prototype.
    // (In symbol order, so the reports are; a module without aliases is not walked.)
    for (uint32_t SI = 0; !M.Aliases.empty() && SI < M.Symbols.size(); ++SI) {
      const uint32_t Aliasee = M.aliasOf(SI);
      if (Aliasee == NoSymbol)
        continue;
      const Symbol &S = M.Symbols[SI];
      auto Name = [&] { return displayName(S.name()); }; // for reports only
      if (Aliasee >= M.Symbols.size()) {
        Diags.error("alias " + Name() + " refers to a symbol that does not exist",
                    {DiagSite::at("declared at", site({MI, SI}))}, "alias-target");
        continue;
      }
      const Symbol &T = M.Symbols[Aliasee];
      auto TName = [&] { return displayName(T.name()); };
      if (T.Kind != SymbolKind::Function || S.Kind != SymbolKind::Function)
        Diags.error("alias " + Name() + " and its aliasee " + TName() + " must both be non-entry functions",
                    {DiagSite::at("alias at", site({MI, SI})), DiagSite::at("aliasee at", site({MI, Aliasee}))},
                    "alias-kind");
      else if (T.Section == NoSection || T.Bind == Binding::Undefined)
        Diags.error(
            "aliasee " + TName() + " of alias " + Name() + " must be defined in the same module",
            {DiagSite::at("alias at", site({MI, SI})), DiagSite::at("aliasee declared at", site({MI, Aliasee}))},
            "alias-undefined-aliasee");
      else if (T.Bind == Binding::Weak)
        Diags.error("aliasee " + TName() + " of alias " + Name() + " must not be .weak",
                    {DiagSite::at("alias at", site({MI, SI})), DiagSite::at("aliasee at", site({MI, Aliasee}))},
                    "alias-weak-aliasee");
      else
        checkFunctionAgreement({&M, LM.ObjectName, Aliasee}, {&M, LM.ObjectName, SI}, Diags, AbiOptions);
    }
    // .calltargets members must have the signature of the prototype the call uses.
    for (uint32_t PI = 0; PI < M.Prototypes.size(); ++PI)
      for (uint32_t T : M.Prototypes[PI].CallTargets) {
        SymRef D = target(MI, T);
        if (!D.valid())
          continue; // undefined: reported by checkUndefined if live
        if (!functionAbi(D) && Modules[D.Module].M->aliasOf(D.Symbol) != NoSymbol)
          D = {D.Module, Modules[D.Module].M->aliasOf(D.Symbol)}; // an alias has the aliasee's signature
        checkPrototypeAgreement({Modules[D.Module].M, Modules[D.Module].ObjectName, D.Symbol},
                                {&M, LM.ObjectName, PI}, Diags, AbiOptions);
      }
  }
}

} // namespace ptxlink
