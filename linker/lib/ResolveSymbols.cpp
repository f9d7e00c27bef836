// Symbol resolution (resolveSymbols, LinkPasses.h).
//
// The problem: every module names symbols it defines (.visible, .weak, .common, .alias, kernels) and
// symbols it needs (.extern). One name must end up with exactly one definition, chosen by the PTX linkage
// rules (ISA 11.6) the way nvlink chooses it, and every disagreement must be reported with all the sites
// involved. Rules (docs/linker.md, "Resolution"):
//   strong (.visible, kernels, aliases) > weak > common > undefined; two strong definitions are an error;
//   among weak definitions the first in input order wins (a warning if their bodies differ); among
//   .common ones the largest wins, at most one may be initialized and it must be the largest; a .common
//   meeting a strong or weak definition must have the same size (nvlink: "Size doesn't match").
#include "LinkPasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ptxlink {

namespace {

bool isFunctionKind(SymbolKind K) { return K == SymbolKind::Function || K == SymbolKind::Kernel; }

std::string bytes(uint64_t N) { return std::to_string(N) + (N == 1 ? " byte" : " bytes"); }

/// A name's definitions by binding, each list in input order.
struct DefinitionsByBinding {
  SmallVector<SymRef, 4> Strong, Weak, Common;
};

/// What the .common definitions of a name decided.
struct CommonDecision {
  uint64_t MaxSize = 0; // the largest .common's size (0 if none)
  SymRef Initialized;   // the initialized one, if any
};

/// Resolution over one symbol table: run() groups every visible symbol under its name, resolveOne picks
/// each name's winner in the steps below.
class Resolver {
public:
  Resolver(SymbolTable &Symtab, LinkNames &Names, ArrayRef<InputFile> Inputs, DiagnosticEngine &Diags)
      : Symtab(Symtab), Names(Names), Inputs(Inputs), Diags(Diags) {}
  void run();

private:
  void resolveOne(GlobalSymbol &G);
  /// G's binding and initializer, once its winning definition is known (CommonInitialized: one of its
  /// .common definitions is initialized). A name defined once takes its definition when the first walk
  /// meets it; resolveOne decides the others.
  static void takeWinner(GlobalSymbol &G, const Symbol &Winner, bool CommonInitialized);
  /// Reports a name defined both as a function and as a variable; true if it is.
  bool reportKindMismatch(const GlobalSymbol &G, ArrayRef<SymRef> Defs);
  /// The .common rules (Common not empty): the largest wins (the initialized one, which must be the
  /// largest, if any), and beside a strong or weak Winner each .common must have its size and at most one
  /// may be initialized. Sets Winner when no strong or weak definition did.
  CommonDecision resolveCommons(const GlobalSymbol &G, ArrayRef<SymRef> Common, SymRef &Winner);
  /// Definitions of one variable must agree on its size (nvlink: "Size doesn't match").
  void checkVariableSizes(const GlobalSymbol &G, ArrayRef<SymRef> Defs, SymRef Winner);
  /// Weak definitions that differ break the one-definition rule (weak-odr); nvlink silently takes the
  /// first. Records G in WeakCopiesDiffer.
  void checkWeakCopies(const GlobalSymbol &G, ArrayRef<SymRef> Weak, SymRef Winner);
  /// The winner goes first among G's definitions, where def(G) reads it (GlobalSymbol keeps no copy);
  /// the others keep their input order.
  void putWinnerFirst(const GlobalSymbol &G, SymRef Winner);

  /// Demangled only when a diagnostic needs it: most names never do.
  std::string displayedName(const GlobalSymbol &G) const { return displayName(Symtab.name(G)); }
  uint32_t indexOf(const GlobalSymbol &G) const { return uint32_t(&G - Symtab.Globals.data()); }
  const Symbol &sym(SymRef R) const { return Symtab.sym(R); }
  SiteLocation site(SymRef R) const { return Symtab.site(R); }

  SymbolTable &Symtab;
  LinkNames &Names;
  ArrayRef<InputFile> Inputs;
  DiagnosticEngine &Diags;
};


void Resolver::run() {
  Symtab.Globals.clear();
  Symtab.Sites.clear();
  Symtab.CommonSizes.clear();
  auto isVisible = isVisibleName;
  // Room for every name of the link at once (reserved, not touched: a name this group lacks costs
  // nothing): growing by doubling would copy the table and touch twice the memory.
  Symtab.GlobalIndex.reset(Names);
  Symtab.Globals.reserve(Names.size());
  auto isDefinition = [](const ModuleVariant &M, const Symbol &S, uint32_t SI) {
    // An alias defines its name whatever its aliasee (check() reports a bad one); anything else where
    // definingSection would find its section. (The alias table last: most symbols are decided before.)
    return S.Bind == Binding::Common || (S.Bind != Binding::Undefined && S.Section < M.Sections.size()) ||
           M.aliasOf(SI) != NoSymbol;
  };
  // The sites are grouped by name without a list per name (most names have one site): the first walk
  // finds each symbol's GlobalSymbol (through its name's id, recorded at load: no name is hashed here)
  // and counts its definitions and declarations (the latter in FirstSite for now), the counts give each
  // name its place in Sites, and a second walk, backwards, fills the places from their ends, so that each
  // name's sites end up in input order.
  //
  // Only the first walk reads the symbols: at a few thousand modules their tables no longer fit the
  // cache, and each further walk over them read them from memory again. It notes, site by site, whether
  // the site defines its name (SiteDefines, for the second walk), and a name's first definition's binding
  // in its GlobalSymbol: for a name with one definition, nearly all, that is the whole resolution
  // (resolveOne then looks at names with two or more).
  uint32_t NumSites = 0;
  std::vector<bool> SiteDefines;
  SymRef TooManyDefinitions; // the first definition past GlobalSymbol::MaxDefinitions of its name
  for (uint32_t MI = 0; MI < Symtab.Modules.size(); ++MI) {
    LinkModule &LM = Symtab.Modules[MI];
    const ModuleVariant &M = *LM.M;
    // A module whose input the link's table never saw (a caller that built its inputs by hand) has its
    // names interned here.
    const ArrayRef<uint32_t> Ids =
        LM.Input < Inputs.size() ? Names.symbolIds(LM.Input, *Inputs[LM.Input].Object, M) : ArrayRef<uint32_t>();
    const bool Interned = Ids.size() == M.Symbols.size();
    for (uint32_t SI = 0; SI < M.Symbols.size(); ++SI) {
      const Symbol &S = M.Symbols[SI];
      if (!isVisible(S))
        continue;
      uint32_t &Entry = Symtab.GlobalIndex.of(LLVM_LIKELY(Interned && Ids[SI] != LinkNames::None)
                                                   ? Ids[SI]
                                                   : Names.intern(S.name()));
      if (Entry == NoGlobal) {
        Entry = uint32_t(Symtab.Globals.size());
        Symtab.Globals.emplace_back();
      }
      const uint32_t GI = Entry;
      LM.Global[SI] = GI;
      GlobalSymbol &G = Symtab.Globals[GI];
      const bool Defines = isDefinition(M, S, SI);
      if (!Defines) {
        ++G.FirstSite;
      } else if (LLVM_LIKELY(G.NumDefs < GlobalSymbol::MaxDefinitions)) {
        if (G.NumDefs++ == 0)
          takeWinner(G, S, /*CommonInitialized=*/false); // the winner, unless another definition comes
      } else {
        // Only a malformed object repeats a definition within one module: counted as a declaration, so
        // that the counts stay those of the sites; the link is refused below.
        if (!TooManyDefinitions.valid())
          TooManyDefinitions = SymRef{MI, SI};
        ++G.FirstSite;
      }
      SiteDefines.push_back(Defines); // read only where no name has too many definitions
      ++NumSites;
    }
  }
  // Refused: every site is placed as a declaration (every name undefined), which keeps the tables
  // consistent for the passes that still run and report.
  if (TooManyDefinitions.valid()) {
    Diags.error("symbol " + displayName(Symtab.sym(TooManyDefinitions).name()) + " has more than " +
                    Twine(GlobalSymbol::MaxDefinitions) + " definitions",
                {DiagSite::at("defined at", Symtab.site(TooManyDefinitions))}, "too-many-definitions");
    for (GlobalSymbol &G : Symtab.Globals) {
      G.FirstSite += G.NumDefs;
      G.NumDefs = 0;
      G.Bind = Binding::Undefined;
      G.Initialized = false;
    }
  }
  // Each name's place; Out (unused until emit) holds where its declarations end while they are filled.
  uint32_t Next = 0;
  for (GlobalSymbol &G : Symtab.Globals) {
    uint32_t Begin = Next;
    Next += G.NumDefs + G.FirstSite;
    G.FirstSite = Begin + G.NumDefs; // where its definitions end
    G.Out = Next;
  }
  Symtab.Sites.resize(NumSites);
  // Backwards over the sites as the first walk met them: a visible symbol is one with a GlobalSymbol.
  uint32_t Site = NumSites;
  for (uint32_t MI = Symtab.Modules.size(); MI-- > 0;) {
    const LinkModule &LM = Symtab.Modules[MI];
    for (uint32_t SI = LM.Global.size(); SI-- > 0;) {
      if (LM.Global[SI] == NoGlobal)
        continue;
      GlobalSymbol &G = Symtab.Globals[LM.Global[SI]];
      const bool Defines = SiteDefines[--Site] && !TooManyDefinitions.valid(); // (every site: Site counts them)
      Symtab.Sites[Defines ? --G.FirstSite : --G.Out] = {MI, SI};
    }
  }
  assert(Site == 0 && "the second walk met the first walk's sites");
  // Now FirstSite is where each name's definitions begin (and Out where its declarations do).
  for (GlobalSymbol &G : Symtab.Globals) {
    G.Out = NoSymbol;
    resolveOne(G);
  }
}

void Resolver::takeWinner(GlobalSymbol &G, const Symbol &Winner, bool CommonInitialized) {
  // An alias declared without a directive still defines a visible name.
  G.Bind = Winner.Bind == Binding::Undefined ? Binding::Global : Winner.Bind;
  G.Initialized = Winner.Initialized || (CommonInitialized && G.Bind == Binding::Common);
}

void Resolver::resolveOne(GlobalSymbol &G) {
  if (G.NumDefs <= 1)
    return; // undefined, or decided when its one definition was met (takeWinner)
  ArrayRef<SymRef> Defs = Symtab.defs(G);
  DefinitionsByBinding By;
  for (SymRef D : Defs) {
    switch (sym(D).Bind) {
    case Binding::Weak:
      By.Weak.push_back(D);
      break;
    case Binding::Common:
      By.Common.push_back(D);
      break;
    default:
      By.Strong.push_back(D);
      break;
    }
  }
  // A name is either code or data everywhere.
  const bool KindMismatch = reportKindMismatch(G, Defs);
  for (size_t I = 1; I < By.Strong.size() && !KindMismatch; ++I)
    Diags.error("duplicate symbol: " + displayedName(G),
                {DiagSite::at("defined at", site(By.Strong[0])), DiagSite::at("defined at", site(By.Strong[I]))},
                "duplicate-symbol");

  SymRef Winner;
  if (!By.Strong.empty())
    Winner = By.Strong.front();
  else if (!By.Weak.empty())
    Winner = By.Weak.front();
  const CommonDecision Commons = By.Common.empty() ? CommonDecision() : resolveCommons(G, By.Common, Winner);

  takeWinner(G, sym(Winner), Commons.Initialized.valid());
  if (G.Bind == Binding::Common && Commons.MaxSize != sym(Winner).size())
    Symtab.CommonSizes[indexOf(G)] = Commons.MaxSize;

  if (sym(Winner).Kind == SymbolKind::Variable)
    checkVariableSizes(G, Defs, Winner);
  if (By.Weak.size() >= 2)
    checkWeakCopies(G, By.Weak, Winner);
  // Last: everything above walks the definitions in input order.
  if (Winner != Defs.front()) // nearly every name has one definition
    putWinnerFirst(G, Winner);
}

bool Resolver::reportKindMismatch(const GlobalSymbol &G, ArrayRef<SymRef> Defs) {
  SymRef First = Defs.front();
  for (SymRef D : Defs)
    if (isFunctionKind(sym(D).Kind) != isFunctionKind(sym(First).Kind)) {
      Diags.error("symbol " + displayedName(G) + " is defined both as a function and as a variable",
                  {DiagSite::at("defined at", site(First)), DiagSite::at("defined at", site(D))}, "kind-mismatch");
      return true;
    }
  return false;
}

CommonDecision Resolver::resolveCommons(const GlobalSymbol &G, ArrayRef<SymRef> Common, SymRef &Winner) {
  CommonDecision Result;
  uint64_t &MaxCommon = Result.MaxSize;
  SymRef &Initialized = Result.Initialized;
  SymRef Largest;
  for (SymRef C : Common) {
    if (sym(C).size() > MaxCommon || !Largest.valid()) {
      if (sym(C).size() > MaxCommon)
        MaxCommon = sym(C).size();
      if (!Largest.valid() || sym(C).size() > sym(Largest).size())
        Largest = C;
    }
    if (sym(C).Initialized) {
      if (Initialized.valid())
        Diags.error("common symbol " + displayedName(G) + " is initialized more than once",
                    {DiagSite::at("initialized at", site(Initialized)), DiagSite::at("initialized at", site(C))},
                    "common-multiple-init");
      else
        Initialized = C;
    }
  }
  if (!Winner.valid()) {
    Winner = Largest;
    if (Initialized.valid()) {
      if (sym(Initialized).size() < MaxCommon)
        Diags.error("common symbol " + displayedName(G) + " (" + bytes(MaxCommon) +
                        ") is larger than its initialized definition (" + bytes(sym(Initialized).size()) + ")",
                    {DiagSite::at("initialized at", site(Initialized)), DiagSite::at("larger at", site(Largest))},
                    "common-larger-than-init");
      Winner = Initialized;
    }
    return Result;
  }
  // nvlink accepts a .common beside a strong or weak definition only when the sizes are equal.
  for (SymRef C : Common) {
    uint64_t CS = sym(C).size(), DS = sym(Winner).size();
    if (CS != DS && CS != 0 && DS != 0)
      Diags.error("size of common symbol " + displayedName(G) + " (" + bytes(CS) + ") does not match its definition (" +
                      bytes(DS) + ")",
                  {DiagSite::at("common at", site(C)), DiagSite::at("defined at", site(Winner))},
                  "common-size-mismatch");
    if (sym(C).Initialized && sym(Winner).Initialized)
      Diags.error("common symbol " + displayedName(G) + " is initialized and also has an initialized definition",
                  {DiagSite::at("initialized at", site(C)), DiagSite::at("defined at", site(Winner))},
                  "common-multiple-init");
  }
  return Result;
}

void Resolver::checkVariableSizes(const GlobalSymbol &G, ArrayRef<SymRef> Defs, SymRef Winner) {
  for (SymRef D : Defs) {
    if (D == Winner || sym(D).Bind == Binding::Common)
      continue;
    uint64_t A = sym(Winner).size(), B = sym(D).size();
    if (A != B && A != 0 && B != 0)
      Diags.error("size of " + displayedName(G) + " does not match (" + bytes(A) + " and " + bytes(B) + ")",
                  {DiagSite::at("defined at", site(Winner)), DiagSite::at("defined at", site(D))}, "size-mismatch");
  }
}

void Resolver::checkWeakCopies(const GlobalSymbol &G, ArrayRef<SymRef> Weak, SymRef Winner) {
  // A function's size is the length of its text, which line-table annotations change (a -G copy of
  // a template beside a plain one); only a variable's size is part of what it means.
  bool IsVariable = sym(Weak.front()).Kind == SymbolKind::Variable;
  // The copies are compared by the ODR hashes their objects record (OdrHash.h: computed once, at
  // assembly, modulo nvcc's per-module numbering); no text is read here. A definition without one
  // (no section: an alias of nothing) compares as 0.
  auto hashOf = [&](SymRef W) -> std::optional<uint64_t> {
    uint32_t Sec = Symtab.definingSection(W);
    if (Sec == NoSection)
      return std::optional<uint64_t>(0);
    return Symtab.Modules[W.Module].M->odrHashOf(Sec);
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
  if (FirstDiffering == Weak.size())
    return;
  Symtab.WeakCopiesDiffer.insert(indexOf(G));
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
  Diags.warning("weak symbol " + displayedName(G) + " has definitions that differ; " +
                    (Winner == Weak.front() ? "the first one is used" : "a visible definition is used"),
                std::move(Sites), "weak-odr");
}

void Resolver::putWinnerFirst(const GlobalSymbol &G, SymRef Winner) {
  MutableArrayRef<SymRef> Mine = MutableArrayRef<SymRef>(Symtab.Sites).slice(G.FirstSite, G.NumDefs);
  auto At = llvm::find(Mine, Winner);
  assert(At != Mine.end() && "the winner is one of the definitions");
  std::rotate(Mine.begin(), At, At + 1);
}

} // namespace

void resolveSymbols(SymbolTable &Symtab, LinkNames &Names, ArrayRef<InputFile> Inputs, DiagnosticEngine &Diags) {
  Resolver(Symtab, Names, Inputs, Diags).run();
}

} // namespace ptxlink
