// Lowering of a parsed PTX module to the object model: one section per definition, symbols with their
// bindings, NameRef relocations on every byte range that names a module-scope symbol (found by scanning
// function bodies once the whole module is known), FileIndex relocations on `.loc`, binary debug
// sections with data relocations, and the ABI records the linker checks.
#include "BodyChecks.h"
#include "BodyScanner.h"
#include "PtxParser.h"
#include "ptxlink/InputFiles.h"
#include "ptxlink/OdrHash.h"
#include "ptxlink/ProcessMemory.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {

namespace {

// A definition without a linking directive is module-local, kernels included: nvcc writes file-`static`
// and anonymous-namespace kernels as `.entry __nv_static_<id>_...` without `.visible`, ptxas -c makes
// them local symbols, and nvlink links two modules that both define one (docs/linker.md, "Resolution").
Binding definitionBinding(Linkage L) {
  switch (L) {
  case Linkage::None:
    return Binding::Local;
  case Linkage::Visible:
    return Binding::Global;
  case Linkage::Weak:
    return Binding::Weak;
  case Linkage::Common:
    return Binding::Common;
  case Linkage::Extern:
    return Binding::Undefined;
  }
  return Binding::Local;
}

class Lowerer {
public:
  Lowerer(PtxModule &M, ObjectFile &Obj, ModuleVariant &V, SourceDiags &D, bool Zero,
          const llvm::MemoryBuffer *ReleasableText, StringRef SourceNameView)
      : M(M), Obj(Obj), V(V), D(D), Zero(Zero), ReleasableText(ReleasableText), SourceNameView(SourceNameView) {}
  bool run();

private:
  PtxModule &M; // its FunctionAbis become V.Functions (adoptFunctionAbis); the rest is only read
  ObjectFile &Obj;
  ModuleVariant &V;
  SourceDiags &D;
  bool Zero;
  /// A large input's file mapping (M.Text is its contents), given back to the kernel behind the last walk
  /// (releaseTextBehind); the symbols' names are then copies (keepName). Null for any other text.
  const llvm::MemoryBuffer *ReleasableText;
  size_t TextReleased = 0; // M.Text before this offset has been given back
  /// M.FileName as the input buffer (which outlives the object) names itself, or empty: the variant's
  /// SourceName then points there. With the arch pointing into the text, a small module saves nothing in
  /// the object's arena, which is then never allocated (a 256-byte slab per module of 10^5 in one link).
  StringRef SourceNameView;

  SymbolNameMap SymMap{V.Symbols};
  /// Per symbol: its ABI record, an index into V.Functions (functions and kernels) or V.Variables
  /// (variables), or ~0u. One table for both: a symbol's kind never changes once it is declared.
  std::vector<uint32_t> AbiOf;
  /// Set before the last walk when V.Functions is in symbol order: AbiOf is freed (4 bytes per symbol at
  /// the walk's end, the lowering's peak) and a definition's record is found by binary search.
  bool AbiOfReleased = false;
  /// Per symbol: linkage of its first declaration (Linkage::None for a symbol added later), read by the
  /// declarations and aliases only and freed before the last walk.
  std::vector<Linkage> DeclLink;
  Linkage &linkageOf(uint32_t Sym) {
    if (Sym >= DeclLink.size())
      DeclLink.resize(Sym + 1, Linkage::None);
    return DeclLink[Sym];
  }
  std::vector<uint8_t> PendingLabel;         // per symbol: a label a debug section expects in a function
  /// Where a debug section first refers to each pending label, in symbol order (only those: a table per
  /// symbol cost 16 bytes for every function of a module).
  struct FirstReference {
    uint32_t Symbol;
    SourceLoc Loc;
    size_t Offset;
  };
  std::vector<FirstReference> PendingLabelRefs;
  std::vector<std::vector<uint32_t>> FixupSymbols; // per debug section: the symbol of each fixup
  ModelTable<Relocation> BodyRelocs;              // a section's relocations before they join V.Relocs
  ModelTable<PrototypeAbi> Prototypes;            // the bodies' `.callprototype`s, V's once all are scanned
  size_t TextLowered = 0;                          // how far into M.Text the sections are lowered
  size_t DebugRelocs = 0, DebugRelocsLowered = 0;  // the debug sections' (all, and appended so far)
  /// Debug section name -> its first section: index and place (known before the section itself exists).
  struct DebugSectionPlace {
    uint32_t Section;
    SourceLoc Where;
  };
  StringMap<DebugSectionPlace> FirstDebugSection;
  /// Per section: the symbol its definition declared (NoSymbol if none), until the section is made.
  std::vector<uint32_t> DefinitionSymbol;
  /// Set when a definition's lists are not as long as its declaration's (an error): adoptFunctionAbis
  /// then cannot close the table's gaps in place.
  bool ListsResized = false;

  StringRef keep(StringRef S) { return Zero ? S : Obj.save(S); }
  /// Frees a table the rest of the lowering does not read, its pages given back first: the tools' heap is
  /// never trimmed (prepareToolHeap), so a freed block would otherwise stay resident.
  template <typename T> static void releaseTable(std::vector<T> &Table) {
    discardWholePages(Table.data(), Table.capacity() * sizeof(T)); // dead, freed next
    Table = {};
  }
  /// A symbol's name: every later pass reads it (the name index, the writer's string table three times,
  /// a link's resolution), so with a releasable text it is a copy, which keeps those passes off the text.
  StringRef keepName(StringRef S) { return Zero && !ReleasableText ? S : Obj.saveName(S); }
  /// The walks that read the text (declarations, then contents) each start by giving all of it back, and
  /// give back what lies behind them as they go (releaseTextBehind): a walk faults the pages it reads in
  /// again (from the page cache), but the text is never all resident beside the parse and the model.
  void startTextWalk() {
    if (!ReleasableText)
      return;
    releaseMappedPages(*ReleasableText, M.Text);
    TextReleased = 0;
  }
  /// Gives back the text before Offset, 1 MB at a time: one call per function would cost a system call
  /// each, and what a step leaves resident is there at the last walk's end, the peak of a module of 10^6
  /// small functions (4 MB steps held 2 MB more: bench/memory_bench.py). The page Offset lies in is kept:
  /// the next step covers it.
  void releaseTextBehind(size_t Offset) {
    if (!ReleasableText || Offset < TextReleased + (size_t(1) << 20))
      return;
    releaseMappedPages(*ReleasableText, M.Text.slice(TextReleased, Offset));
    TextReleased = Offset - 4096;
  }
  /// The symbol named Name, added with the given properties if there is none yet (Added tells which).
  /// One probe of the name table: a -G module declares tens of thousands of names, and a lookup
  /// followed by an insertion was two cache misses each.
  uint32_t findOrAddSymbol(StringRef Name, SymbolKind K, Binding B, SourceLoc Where, bool &Added) {
    uint32_t Idx = static_cast<uint32_t>(V.Symbols.size());
    auto [Found, Inserted] = SymMap.insert(Name, Idx);
    Added = Inserted;
    if (!Inserted)
      return Found;
    Symbol S;
    S.setName(keepName(Name));
    S.Kind = K;
    S.Bind = B;
    S.Where = Where;
    V.Symbols.push_back(S);
    if (!AbiOfReleased)
      AbiOf.push_back(~0u);
    PendingLabel.push_back(0);
    return Idx;
  }
  /// Whether a name that relocations spell (a function, variable or label) fits a Relocation's 24-bit
  /// length (ObjectModel.h); if not, an error at the name. Names of 10 MB are fine.
  bool relocatableName(StringRef Name, size_t TextOffset, SourceLoc Where) {
    if (Name.size() <= MaxRelocationLength)
      return true;
    D.error(TextOffset, Where,
            "name '" + Name.take_front(32) + "...' is " + Twine(Name.size()) +
                " bytes long: names of at most 16777215 bytes (16 MiB - 1) can be relocated");
    return false;
  }
  /// The same for a function's name, whose place is counted only for the message.
  bool relocatableName(const PtxFunction &F) {
    return F.NameLength <= MaxRelocationLength || relocatableName(F.name(M.Text), F.NameOffset, F.nameLoc(M.Text));
  }
  /// V.labelSection, with an error at TextOffset/Where when the module labels more sections than a
  /// Section can index (MaxSectionLabels: debug sections and `.pragma` texts are labelled).
  void labelSection(Section &Sec, StringRef Name, SourceLoc Where, size_t TextOffset) {
    if (!V.labelSection(Sec, Name, Where))
      D.error(TextOffset, Where,
              "more than " + Twine(MaxSectionLabels) + " sections of this module have names of their own " +
                  "(debug sections, .pragma texts): a module can hold at most that many");
  }
  /// Where Part (a piece of the module's text) lies in it, for a message's source line; 0 if it is not
  /// a piece of the text.
  size_t textOffsetOf(StringRef Part) const {
    const auto At = reinterpret_cast<uintptr_t>(Part.data()), Begin = reinterpret_cast<uintptr_t>(M.Text.data());
    return At >= Begin && At <= Begin + M.Text.size() ? At - Begin : 0;
  }
  /// The Section symbol named Name (placed in this module's first debug section of that name, if any),
  /// added if there is none yet. Debug data (`.b32 .debug_abbrev`) and `.loc ... function_name
  /// .debug_str+16` both refer to sections by name.
  uint32_t sectionSymbol(StringRef Name, SourceLoc Where, bool &Added) {
    uint32_t Sym = findOrAddSymbol(Name, SymbolKind::Section, Binding::Local, Where, Added);
    if (Added) {
      auto It = FirstDebugSection.find(Name);
      V.Symbols[Sym].Section = It == FirstDebugSection.end() ? NoSection : It->second.Section;
    }
    return Sym;
  }
  void reserveSymbols(size_t N) {
    V.Symbols.reserve(V.Symbols.size() + N);
    size_t Capacity = V.Symbols.capacity();
    AbiOf.reserve(Capacity);
    DeclLink.reserve(Capacity);
    PendingLabel.reserve(Capacity);
    SymMap.reserve(Capacity);
  }
  uint32_t lookup(StringRef Name) const { return SymMap.find(Name); }
  template <typename StringVector> StringVector keepAll(const StringVector &In) {
    StringVector R;
    R.reserve(In.size());
    for (StringRef S : In)
      R.push_back(keep(S));
    return R;
  }

  void appendRelocs(Section &Sec, ArrayRef<Relocation> Relocs, bool IsDebug = false);
  uint32_t declareFunction(const PtxFunction &F, FunctionAbi &A, uint32_t SectionIdx);
  void adoptFunctionAbis();
  void keepFunctionAbiStrings();
  void keepAbiStrings(FunctionAbi &A);
  uint32_t declareVariable(const PtxVariable &Var, const PtxDeclarator &Decl, uint32_t SectionIdx);
  void declareDebugLabels(const PtxDebugSection &S, uint32_t SectionIdx);
  void declareDebugRefs();
  void lowerAlias(const PtxAlias &A);
  void rejectUndefinedNonExternFunctions();
  /// Calls Visit(item, declarator, section) for every item of the parse in source order, and for each
  /// declarator of a variable declaration; section is the index of the item's section (NoSection for a
  /// declaration, an `.extern` variable and an alias): sections are numbered in this order. With
  /// ReleaseBehind (the last walk), the items already visited are freed as it goes.
  template <typename Visitor> void forEachItem(Visitor &&Visit, bool ReleaseBehind = false) const {
    uint32_t Next = 0;
    auto Place = [&](bool HasSection) { return HasSection ? Next++ : NoSection; };
    for (size_t I = 0; I < M.Items.size(); ++I) {
      if (ReleaseBehind)
        M.Items.releaseBelow(I);
      const PtxItem &It = M.Items[I];
      switch (It.K) {
      case PtxItem::Function:
        Visit(It, 0, Place(M.Functions[It.Index].HasBody));
        break;
      case PtxItem::Variable: {
        const PtxVariable &Var = M.Variables[It.Index];
        for (uint32_t I = 0; I < Var.Decls.size(); ++I)
          Visit(It, I, Place(Var.Link != Linkage::Extern));
        break;
      }
      case PtxItem::Debug:
      case PtxItem::Text:
        Visit(It, 0, Place(true));
        break;
      case PtxItem::Alias:
        Visit(It, 0, NoSection);
        break;
      }
    }
  }
  void lowerFunction(const PtxFunction &F, const FunctionSignature &A, uint32_t Sym, uint32_t SectionIdx,
                     BodyScanner &Scanner);
  void lowerVariable(const PtxVariable &Var, const PtxDeclarator &Decl, uint32_t Sym, uint32_t SectionIdx);
  void lowerDebug(const PtxDebugSection &S, ArrayRef<uint32_t> FixupSymbols, uint32_t SectionIdx);
};

void Lowerer::rejectUndefinedNonExternFunctions() {
  // `.func d();` promises that this module defines d: only `.extern` says another module does. ptxas
  // rejects the module otherwise, even with -c and even when nothing calls d ("Unresolved extern function
  // 'd'"), so the error belongs here, at the declaration, rather than in ptxas after a link.
  // A function declaration's symbol, if declareFunction made it one (not a clash with a variable or a
  // kernel of that name): only declarations are looked up again, definitions need nothing here.
  auto SymbolOf = [&](const PtxFunction &F) {
    uint32_t Sym = lookup(F.name(M.Text));
    if (Sym == NoSymbol)
      return NoSymbol;
    SymbolKind K = V.Symbols[Sym].Kind;
    return K == (F.IsKernel ? SymbolKind::Kernel : SymbolKind::Function) ? Sym : NoSymbol;
  };
  bool AnyDeclaration = false;
  M.Functions.forEach([&](const PtxFunction &F) { AnyDeclaration |= !F.HasBody; });
  if (!AnyDeclaration)
    return; // nothing to check: no tables (two bytes per symbol)
  std::vector<uint8_t> DeclaredExtern(V.Symbols.size(), 0), Reported(V.Symbols.size(), 0); // per symbol
  M.Functions.forEach([&](const PtxFunction &F) {
    if (F.Link == Linkage::Extern)
      if (uint32_t Sym = SymbolOf(F); Sym != NoSymbol)
        DeclaredExtern[Sym] = 1;
  });
  // An alias's declaration has no body either; a bad `.alias` has its own error.
  for (const PtxAlias &A : M.Aliases)
    if (uint32_t Sym = lookup(A.Alias); Sym < V.Symbols.size())
      DeclaredExtern[Sym] = 1;
  M.Functions.forEach([&](const PtxFunction &F) {
    if (F.HasBody || F.Link == Linkage::Extern)
      return;
    uint32_t Sym = SymbolOf(F);
    if (Sym == NoSymbol)
      return;
    const Symbol &S = V.Symbols[Sym];
    if (S.Section != NoSection || V.aliasOf(Sym) != NoSymbol || DeclaredExtern[Sym] || Reported[Sym])
      return;
    Reported[Sym] = 1;
    std::string Message = (Twine(F.IsKernel ? "kernel" : "function") + " '" + F.name(M.Text) +
                    "' is declared without .extern but not defined in this module (ptxas: \"Unresolved extern "
                    "function\"); declare it .extern if another module defines it").str();
    // A module without `.target` is not ptxas input at all (ptxas: "Missing .target"; old OptiX CPU
    // modules are like that, and their runtime supplies such functions): only a warning there.
    if (M.HasTarget)
      D.error(F.NameOffset, F.nameLoc(M.Text), Message);
    else
      D.warning(F.NameOffset, F.nameLoc(M.Text), Message);
  });
}

/// Gives Sec (the next section in order) its relocations at the end of V.Relocs. The table is not grown
/// by doubling (up to twice its size, and three times while it is copied, for a module of 10^6 small
/// functions): run() reserves a sixteenth of the least it needs, and when that is full the table is
/// sized for the whole text at the rate of relocations per byte so far (the debug sections' count is
/// known), with a 1/64 margin, and at least by half again (so that a skewed module grows geometrically).
void Lowerer::appendRelocs(Section &Sec, ArrayRef<Relocation> Relocs, bool IsDebug) {
  ModelTable<Relocation> &Table = V.Relocs;
  if (Table.capacity() - Table.size() < Relocs.size()) {
    const uint64_t Needed = Table.size() + Relocs.size();
    const uint64_t TextRelocs = Needed - DebugRelocsLowered - (IsDebug ? Relocs.size() : 0);
    double Projected = double(Needed) * 3 / 2;
    if (TextLowered > 0 && TextLowered < M.Text.size())
      Projected = std::max(Projected, double(TextRelocs) * (double(M.Text.size()) / double(TextLowered)) * 65 / 64 +
                                          double(DebugRelocs));
    Table.reserve(size_t(std::min<double>(Projected, UINT32_MAX)));
  }
  V.appendRelocs(Sec, Relocs);
  if (IsDebug)
    DebugRelocsLowered += Relocs.size();
}

/// A is F's signature in M.FunctionAbis. It stays there as the symbol's ABI record when it is the first
/// declaration (AbiOf points at it until adoptFunctionAbis moves the records into V), replaces the
/// earlier record when it is the definition, and is dropped otherwise (its Symbol stays NoSymbol).
uint32_t Lowerer::declareFunction(const PtxFunction &F, FunctionAbi &A, uint32_t SectionIdx) {
  SymbolKind K = F.IsKernel ? SymbolKind::Kernel : SymbolKind::Function;
  if (!relocatableName(F))
    return NoSymbol;
  const StringRef Name = F.name(M.Text);
  bool Added;
  uint32_t Sym = findOrAddSymbol(Name, K, Binding::Undefined, F.Loc, Added);
  if (Added) {
    linkageOf(Sym) = F.Link;
  } else {
    Symbol &S = V.Symbols[Sym];
    if (S.Kind != SymbolKind::Function && S.Kind != SymbolKind::Kernel) {
      D.error(F.NameOffset, F.nameLoc(M.Text), "'" + Name + "' redeclared as a function (first declared at line " +
                                           Twine(S.Where.Line) + ")");
      return NoSymbol;
    }
    if (S.Kind != K) {
      D.error(F.NameOffset, F.nameLoc(M.Text),
              "'" + Name + "' redeclared as a " + (F.IsKernel ? "kernel" : "function") + " (first declared at line " +
                  Twine(S.Where.Line) + ")");
      return NoSymbol;
    }
    if (F.HasBody && S.Section != NoSection) {
      D.error(F.NameOffset, F.nameLoc(M.Text),
              "redefinition of '" + Name + "' (first defined at line " + Twine(S.Where.Line) + ")");
      return NoSymbol;
    }
  }
  Symbol &S = V.Symbols[Sym];
  // The symbol's place until now: its first declaration's, the place of the record it has (a record's
  // place is its symbol's: FunctionAbi).
  const Loc Declared = S.Where;
  if (F.HasBody) {
    S.Section = SectionIdx;
    S.Bind = definitionBinding(F.Link);
    S.Where = F.Loc;
  }
  if (AbiOf[Sym] != ~0u && !F.HasBody)
    return Sym; // a repeated declaration adds nothing
  const uint32_t Index = static_cast<uint32_t>(&A - M.FunctionAbis.data());
  if (AbiOf[Sym] == ~0u) {
    A.Symbol = Sym;
    AbiOf[Sym] = Index;
  } else {
    FunctionAbi &Old = M.FunctionAbis[AbiOf[Sym]];
    // Compared field by field (every declared-then-defined function comes here; building a text key
    // per parameter with Twine was ~10% of the assembler's instructions on a generated module).
    auto SameShape = [](ArrayRef<ParamInfo> X, ArrayRef<ParamInfo> Y) {
      return std::equal(X.begin(), X.end(), Y.begin(), Y.end(), [](const ParamInfo &P, const ParamInfo &Q) {
        return P.Space == Q.Space && P.sameType(Q) && P.VectorWidth == Q.VectorWidth && P.Align == Q.Align &&
               P.UnsizedArray == Q.UnsizedArray && P.ArrayDims == Q.ArrayDims;
      });
    };
    if (!SameShape(M.returns(Old), M.returns(A)) || !SameShape(M.params(Old), M.params(A)))
      D.error(F.NameOffset, F.nameLoc(M.Text),
              "definition of '" + Name + "' does not match its declaration at line " + Twine(Declared.Line));
    // The definition's lists take the place of the declaration's: as long as they are as long (always,
    // but in a module with an error), adoptFunctionAbis can close the gaps in place.
    ListsResized |= Old.ReturnCount != A.ReturnCount || Old.ParamCount != A.ParamCount;
    A.Symbol = Sym;
    Old = A;
    A.Symbol = NoSymbol; // dropped
  }
  return Sym;
}

/// The records declareFunction kept, in order, become V.Functions (moved, not copied: the parser's
/// table of signatures is the object's), and AbiOf follows them. Their lists and extras go with them, the
/// dropped records' taken out.
void Lowerer::adoptFunctionAbis() {
  ModelTable<FunctionAbi> &Abis = M.FunctionAbis;
  ModelTable<ParamInfo> &Params = M.Params;
  std::vector<uint32_t> NewIndex(Abis.size(), ~0u);
  // Kept records' lists, in record order, closing the gaps of dropped ones. In place: a kept record's
  // lists never start before where they go (they are its own, or its definition's, parsed later, and as
  // long), nor where a later record's go. Else (a module with an error) into a new table.
  ModelTable<ParamInfo> Fresh;
  ModelTable<FunctionExtra> Extras;
  size_t Kept = 0, ParamsKept = 0;
  for (size_t I = 0; I < Abis.size(); ++I) {
    if (Abis[I].Symbol == NoSymbol)
      continue;
    NewIndex[I] = static_cast<uint32_t>(Kept);
    FunctionAbi A = Abis[I];
    const size_t N = size_t(A.ReturnCount) + A.ParamCount;
    auto From = Params.begin() + A.ParamBegin;
    if (ListsResized)
      Fresh.insert(Fresh.end(), std::make_move_iterator(From), std::make_move_iterator(From + N));
    else if (A.ParamBegin != ParamsKept)
      std::move(From, From + N, Params.begin() + ParamsKept);
    A.ParamBegin = static_cast<uint32_t>(ParamsKept);
    ParamsKept += N;
    if (A.Extra != NoExtra) {
      Extras.push_back(std::move(M.FunctionExtras[A.Extra]));
      A.Extra = static_cast<uint32_t>(Extras.size() - 1);
    }
    Abis[Kept++] = A;
  }
  Abis.erase(Abis.begin() + Kept, Abis.end());
  if (ListsResized)
    Params = std::move(Fresh);
  else
    Params.erase(Params.begin() + ParamsKept, Params.end());
  for (uint32_t Sym = 0; Sym < AbiOf.size(); ++Sym)
    if (AbiOf[Sym] != ~0u && V.Symbols[Sym].Kind != SymbolKind::Variable)
      AbiOf[Sym] = NewIndex[AbiOf[Sym]];
  V.Functions = std::move(Abis);
  V.Params = std::move(Params);
  if (!Extras.empty())
    V.rare().FunctionExtras = std::move(Extras);
  Abis.clear();
  Params.clear();
  M.FunctionExtras = {};
}

/// A record's strings point into the PTX text until here (the body scanner reads parameter names by
/// their place in the text); an object that outlives the text gets copies, and so does a releasable
/// text's (the writer reads them three times). A definition's record was copied right after its body was
/// scanned (the last walk gives the text back behind itself); the declarations' are copied here.
void Lowerer::keepFunctionAbiStrings() {
  if (Zero && !ReleasableText)
    return;
  for (FunctionAbi &A : V.Functions)
    keepAbiStrings(A);
}

void Lowerer::keepAbiStrings(FunctionAbi &A) {
  // With a releasable text, only strings still in the text: a definition's were copied already.
  auto Keep = [&](StringRef S) {
    bool InText = S.data() >= M.Text.data() && S.data() < M.Text.data() + M.Text.size();
    return Zero && !InText ? S : Obj.save(S);
  };
  for (ParamInfo &P : MutableArrayRef<ParamInfo>(V.Params).slice(A.ParamBegin, size_t(A.ReturnCount) + A.ParamCount))
    P.setName(Keep(P.name())); // (a type is one of the model's own spellings)
  if (A.Extra != NoExtra) {
    TuningInfo &T = V.rare().FunctionExtras[A.Extra].Tuning;
    for (StringRef &S : T.Pragmas)
      S = Keep(S);
    for (StringRef &S : T.Attributes)
      S = Keep(S);
  }
}

/// A declarator's size in bytes (Elem: its element's), or nullopt past MaxSymbolValue (a Symbol keeps 48 bits; a product that
/// would wrap is past it too). ptxas takes `.global .b8 x[1000000000000000]`, but no GPU can hold it.
static std::optional<uint64_t> variableBytes(unsigned Elem, const PtxDeclarator &Decl) {
  uint64_t Bytes = Elem;
  auto Times = [&](uint64_t X) {
    if (X != 0 && Bytes > MaxSymbolValue / X)
      return false;
    Bytes *= X;
    return true;
  };
  for (uint64_t X : Decl.ArrayDims)
    if (!Times(X))
      return std::nullopt;
  if (Decl.UnsizedArray && !(Decl.Initialized ? Times(Decl.InitElements) : (Bytes = 0, true)))
    return std::nullopt;
  return Bytes;
}

uint32_t Lowerer::declareVariable(const PtxVariable &Var, const PtxDeclarator &Decl, uint32_t SectionIdx) {
  bool IsDef = Var.Link != Linkage::Extern;
  if (!relocatableName(Decl.Name, Decl.NameOffset, Decl.Loc))
    return NoSymbol;
  const unsigned Elem = typeSizeBytes(Var.Type) * std::max<unsigned>(1, Var.VectorWidth);
  const std::optional<uint64_t> Bytes = variableBytes(Elem, Decl);
  if (!Bytes) {
    D.error(Decl.NameOffset, Decl.Loc,
            "variable '" + Decl.Name + "' is too large (at most " + Twine(MaxSymbolValue) + " bytes are supported)");
    return NoSymbol;
  }
  bool Added;
  uint32_t Sym = findOrAddSymbol(Decl.Name, SymbolKind::Variable, Binding::Undefined, Var.Loc, Added);
  if (Added) {
    linkageOf(Sym) = Var.Link;
    // An expanded parameterized name lives in the PtxModule, not in the text that may outlive the object.
    if (Decl.SynthesizedName && Zero)
      V.Symbols[Sym].setName(Obj.save(Decl.Name));
  } else {
    Symbol &S = V.Symbols[Sym];
    if (S.Kind != SymbolKind::Variable) {
      D.error(Decl.NameOffset, Decl.Loc, "'" + Decl.Name + "' redeclared as a variable (first declared at line " +
                                             Twine(S.Where.Line) + ")");
      return NoSymbol;
    }
    if (IsDef && S.Section != NoSection) {
      D.error(Decl.NameOffset, Decl.Loc,
              "redefinition of '" + Decl.Name + "' (first defined at line " + Twine(S.Where.Line) + ")");
      return NoSymbol;
    }
    if (S.Space != Var.Space) {
      D.error(Decl.NameOffset, Decl.Loc,
              "'" + Decl.Name + "' redeclared in a different state space (first declared at line " +
                  Twine(S.Where.Line) + ")");
      return NoSymbol;
    }
  }
  Symbol &S = V.Symbols[Sym];
  S.Space = Var.Space;
  if (IsDef || S.Section == NoSection) {
    S.setSize(*Bytes);
    S.setAlign(Var.Align ? Var.Align : Elem); // both powers of two (or 0): the parser refuses other `.align`s
    S.Initialized = Decl.Initialized;
  }
  if (IsDef) {
    S.Section = SectionIdx;
    S.Bind = definitionBinding(Var.Link);
    S.Where = Var.Loc;
  }
  if (AbiOf[Sym] != ~0u && !IsDef)
    return Sym;
  VariableAbi A;
  A.Symbol = Sym;
  A.Space = Var.Space;
  A.Type = keepName(Var.Type);
  A.VectorWidth = Var.VectorWidth;
  A.ArrayDims.assign(Decl.ArrayDims);
  A.UnsizedArray = Decl.UnsizedArray;
  A.Align = Var.Align;
  A.Attributes = keepAll(Var.Attributes);
  A.Initialized = Decl.Initialized;
  A.Where = Var.Loc;
  if (AbiOf[Sym] == ~0u) {
    AbiOf[Sym] = static_cast<uint32_t>(V.Variables.size());
    V.Variables.push_back(std::move(A));
  } else {
    V.Variables[AbiOf[Sym]] = std::move(A);
  }
  return Sym;
}

void Lowerer::declareDebugLabels(const PtxDebugSection &S, uint32_t SectionIdx) {
  for (const PtxDwarfLabel &L : S.Labels) {
    if (!relocatableName(L.Name, L.TextOffset, L.Loc))
      continue;
    bool Added;
    uint32_t Sym = findOrAddSymbol(L.Name, SymbolKind::Label, Binding::Local, L.Loc, Added);
    if (!Added) {
      D.error(L.TextOffset, L.Loc,
              "label '" + L.Name + "' conflicts with an earlier definition at line " +
                  Twine(V.Symbols[Sym].Where.Line));
      continue;
    }
    V.Symbols[Sym].Section = SectionIdx;
    V.Symbols[Sym].setValue(L.Offset);
  }
}

void Lowerer::declareDebugRefs() {
  // Names that debug data refers to: section names become Section symbols; other names not yet known are
  // labels the function bodies must define. The symbol of every fixup is kept for lowerDebug.
  FixupSymbols.resize(M.DebugSections.size());
  for (size_t SI = 0; SI < M.DebugSections.size(); ++SI) {
    const PtxDebugSection &S = M.DebugSections[SI];
    std::vector<uint32_t> &Syms = FixupSymbols[SI];
    Syms.reserve(S.Fixups.size());
    for (const PtxDwarfFixup &F : S.Fixups) {
      bool Added;
      if (!relocatableName(F.Name, F.TextOffset, F.Loc)) { // a section's name too: a Symbol holds its name
        Syms.push_back(NoSymbol);
        continue;
      }
      if (F.Name.starts_with(".")) {
        Syms.push_back(sectionSymbol(F.Name, F.Loc, Added));
        continue;
      }
      uint32_t Sym = findOrAddSymbol(F.Name, SymbolKind::Label, Binding::Local, F.Loc, Added);
      Syms.push_back(Sym);
      if (!Added)
        continue;
      PendingLabel[Sym] = 1;
      PendingLabelRefs.push_back({Sym, F.Loc, F.TextOffset});
    }
  }
}

void Lowerer::lowerAlias(const PtxAlias &A) {
  uint32_t AS = lookup(A.Alias), BS = lookup(A.Aliasee);
  if (AS == NoSymbol || V.Symbols[AS].Kind != SymbolKind::Function) {
    D.error(A.AliasOffset, A.AliasLoc, "alias '" + A.Alias + "' must be declared as a function (without body) first");
    return;
  }
  if (V.Symbols[AS].Section != NoSection || V.aliasOf(AS) != NoSymbol) {
    D.error(A.AliasOffset, A.AliasLoc, "alias '" + A.Alias + "' is already defined");
    return;
  }
  if (BS == NoSymbol || (V.Symbols[BS].Kind != SymbolKind::Function && V.Symbols[BS].Kind != SymbolKind::Kernel)) {
    D.error(A.AliaseeOffset, A.AliaseeLoc, "aliasee '" + A.Aliasee + "' is not a function declared in this module");
    return;
  }
  Symbol &Target = V.Symbols[BS];
  if (Target.Kind == SymbolKind::Kernel) {
    D.error(A.AliaseeOffset, A.AliaseeLoc, "aliasee '" + A.Aliasee + "' is a kernel; only .func symbols can be aliased");
    return;
  }
  if (Target.Section == NoSection) {
    D.error(A.AliaseeOffset, A.AliaseeLoc, "aliasee '" + A.Aliasee + "' must be defined in this module");
    return;
  }
  if (Target.Bind == Binding::Weak) {
    D.error(A.AliaseeOffset, A.AliaseeLoc, "aliasee '" + A.Aliasee + "' cannot have .weak linkage");
    return;
  }
  if (V.aliasOf(BS) != NoSymbol) {
    D.error(A.AliaseeOffset, A.AliaseeLoc, "aliasee '" + A.Aliasee + "' is itself an alias");
    return;
  }
  Symbol &Al = V.Symbols[AS];
  if (AbiOf[AS] != ~0u && AbiOf[BS] != ~0u) {
    const FunctionAbi &X = V.Functions[AbiOf[AS]], &Y = V.Functions[AbiOf[BS]];
    auto Same = [](ArrayRef<ParamInfo> P, ArrayRef<ParamInfo> Q) {
      if (P.size() != Q.size())
        return false;
      for (size_t I = 0; I < P.size(); ++I)
        if (P[I].Space != Q[I].Space || !P[I].sameType(Q[I]) || P[I].VectorWidth != Q[I].VectorWidth ||
            P[I].ArrayDims != Q[I].ArrayDims || P[I].UnsizedArray != Q[I].UnsizedArray)
          return false;
      return true;
    };
    if (!Same(V.returns(X), V.returns(Y)) || !Same(V.params(X), V.params(Y))) {
      D.error(A.AliasOffset, A.AliasLoc, "prototype of alias '" + A.Alias + "' does not match '" + A.Aliasee + "'");
      return;
    }
  }
  // The alias's ABI record keeps its declaration's place; the symbol's becomes the `.alias` directive.
  if (AbiOf[AS] != ~0u)
    V.pinFunctionWhere(V.Functions[AbiOf[AS]]);
  V.setAliasOf(AS, BS);
  Al.Section = Target.Section;
  Al.Bind = linkageOf(AS) == Linkage::Weak ? Binding::Weak
            : linkageOf(AS) == Linkage::None ? Binding::Local
                                             : Binding::Global;
  Al.Where = A.Loc;
}

void Lowerer::lowerFunction(const PtxFunction &F, const FunctionSignature &A, uint32_t Sym, uint32_t SectionIdx,
                            BodyScanner &Scanner) {
  Section &Sec = V.Sections[SectionIdx];
  Sec.Symbol = Sym;
  labelSection(Sec, V.Symbols[Sym].name(), F.Loc, F.Begin); // the definition's symbol: nothing of its own
  Sec.setContents(keep(M.Text.slice(F.Begin, F.End)));
  Sec.HeaderLength = static_cast<uint32_t>(F.HeaderEnd - F.Begin);
  // The scanner appends to BodyRelocs, a buffer kept from body to body, sorted here and then copied to
  // the module's table.
  BodyRelocs.clear();
  // Offsets in a section of the text, which is below 4 GiB (MaxPtxModuleBytes): 32 bits.
  BodyRelocs.push_back(
      Relocation{uint32_t(F.NameOffset - F.Begin), Sym, RelocKind::NameRef, F.NameLength, 0});
  Scanner.scan(F, A, SectionIdx, Sym, BodyRelocs, Prototypes, !Zero, Obj);
  auto ByOffset = [](const Relocation &A, const Relocation &B) { return A.Offset < B.Offset; };
  if (BodyRelocs.size() > 1 && !std::is_sorted(BodyRelocs.begin(), BodyRelocs.end(), ByOffset))
    std::stable_sort(BodyRelocs.begin(), BodyRelocs.end(), ByOffset);
  TextLowered = F.End;
  appendRelocs(Sec, BodyRelocs);
  // The labels it defines (a module without any gets no table).
  if (!Scanner.plainLabels().empty())
    llvm::append_range(V.facts().PlainLabels, Scanner.plainLabels());
  // A weak definition's ODR hash, while its text is at hand (the resolver compares these numbers).
  recordOdrHash(V, SectionIdx);
}

void Lowerer::lowerVariable(const PtxVariable &Var, const PtxDeclarator &Decl, uint32_t Sym, uint32_t SectionIdx) {
  Section &Sec = V.Sections[SectionIdx];
  Sec.Symbol = Sym;
  labelSection(Sec, V.Symbols[Sym].name(), Var.Loc, Var.Begin);
  // A single declarator is its own text; several (`.global .u32 a, b;`) get one synthesised text each.
  // An expanded parameterized name (`v<4>` -> v2) is not in the source: its text is the prefix and the
  // name alone (no array or initializer can follow one).
  size_t NameAt; // offset of the name within the section text
  if (Decl.SynthesizedName) {
    StringRef Prefix = M.Text.slice(Var.Begin, Var.PrefixEnd);
    Sec.setContents(Obj.save((Prefix + Decl.Name + ";").str()));
    NameAt = Prefix.size();
  } else if (Var.Decls.size() == 1) {
    Sec.setContents(keep(M.Text.slice(Var.Begin, Var.End)));
    NameAt = Decl.NameOffset - Var.Begin;
  } else {
    StringRef Prefix = M.Text.slice(Var.Begin, Var.PrefixEnd);
    std::string Text = (Prefix + M.Text.slice(Decl.NameOffset, Decl.End) + ";").str();
    Sec.setContents(Obj.save(Text));
    NameAt = Prefix.size();
  }
  BodyRelocs.clear();
  BodyRelocs.push_back(Relocation{uint32_t(NameAt), Sym, RelocKind::NameRef, uint32_t(Decl.Name.size()), 0});
  for (const PtxNameUse &U : Decl.Uses) {
    uint32_t Ref = lookup(U.Name);
    if (Ref == NoSymbol || V.Symbols[Ref].Kind == SymbolKind::Label || V.Symbols[Ref].Kind == SymbolKind::Section) {
      D.error(U.Offset, U.Loc, "use of undeclared symbol '" + U.Name + "' in initializer");
      continue;
    }
    if (V.Symbols[Ref].Kind == SymbolKind::Kernel) {
      D.error(U.Offset, U.Loc, "kernel '" + U.Name + "' cannot be used in an initializer");
      continue;
    }
    BodyRelocs.push_back(
        Relocation{uint32_t(NameAt + (U.Offset - Decl.NameOffset)), Ref, RelocKind::NameRef, uint32_t(U.Name.size()), 0});
  }
  TextLowered = Var.End;
  appendRelocs(Sec, BodyRelocs);
  recordOdrHash(V, SectionIdx);
}

void Lowerer::lowerDebug(const PtxDebugSection &S, ArrayRef<uint32_t> FixupSyms, uint32_t SectionIdx) {
  Section &Sec = V.Sections[SectionIdx]; // named and placed by run()
  // Debug bytes can outgrow their text (`.b64 0,0,...` is 8 bytes per 2 characters), and a section's
  // contents must be below 4 GiB (Section keeps a 32-bit size).
  if (S.Bytes.size() > MaxSectionBytes) {
    D.error(textOffsetOf(S.Name), S.Loc,
            S.Name + " is " + Twine(uint64_t(S.Bytes.size())) + " bytes: a section must be below 4 GiB");
    return;
  }
  Sec.setContents(Obj.save(StringRef(reinterpret_cast<const char *>(S.Bytes.data()), S.Bytes.size())));
  BodyRelocs.clear();
  BodyRelocs.reserve(S.Fixups.size());
  for (size_t I = 0; I < S.Fixups.size(); ++I) {
    const PtxDwarfFixup &F = S.Fixups[I];
    // Debug bytes can outgrow their text (`.b64 0,0,...` is 8 bytes per 2 characters): a section of
    // 4 GiB or more has offsets that a relocation cannot hold.
    if (F.Offset > MaxRelocationOffset) {
      D.error(F.TextOffset, F.Loc,
              "debug data refers to '" + F.Name + "' at byte " + Twine(F.Offset) + " of " + S.Name +
                  ": a debug section's references must lie in its first 4 GiB");
      break;
    }
    if (FixupSyms[I] == NoSymbol)
      continue; // a name too long to relocate, reported where it was declared
    // Addends are 32-bit (ObjectModel.h); real -G output adds offsets into the section it names.
    if (!relocationAddendFits(F.Addend)) {
      D.error(F.TextOffset, F.Loc,
              "debug data refers to '" + F.Name + "' with addend " + Twine(F.Addend) + " in " + S.Name +
                  ": addends must lie in [-2^31, 2^31)");
      continue;
    }
    BodyRelocs.push_back(Relocation{uint32_t(F.Offset), FixupSyms[I], F.Width == 8 ? RelocKind::Data64 : RelocKind::Data32,
                                    0, int32_t(F.Addend)});
  }
  appendRelocs(Sec, BodyRelocs, /*IsDebug=*/true);
}

bool Lowerer::run() {
  unsigned ErrorsBefore = D.errors();
  V.SourceName = SourceNameView.empty() ? Obj.save(M.FileName) : SourceNameView;
  V.Target = M.Target;
  V.Target.Arch = Zero && !ReleasableText && M.ArchSpelling == M.ArchName ? M.ArchSpelling : Obj.save(M.ArchName);
  V.Target.Options = keepAll(M.Target.Options);
  V.Target.Texmode = keep(M.Target.Texmode);
  if (!M.HasTarget)
    D.warning(0, SourceLoc{1, 1}, "module has no .target directive");
  for (const FileEntry &F : M.Files) {
    FileEntry E = F;
    E.Path = keep(F.Path);
    V.rare().Files.push_back(E);
  }

  // Sections in source order, one per definition: an item's section index is the number of sections
  // the items before it have, so every pass below walks the parse's items with forEachItem to learn it
  // (a work list of {item, declarator, section, symbol} cost 20 bytes per function at the lowering's
  // peak, beside the whole parse and the whole model: bench/memory_bench.py). A definition's symbol,
  // once declared, is kept in its section's Symbol field.
  size_t SectionCount = 0, MostSymbols = 0, Named = 0;
  forEachItem([&](const PtxItem &It, uint32_t, uint32_t SectionIdx) {
    SectionCount += SectionIdx != NoSection;
    ++MostSymbols;
    // Relocations: at least one per function and variable section (its name) and one per debug fixup.
    Named += SectionIdx != NoSection && (It.K == PtxItem::Function || It.K == PtxItem::Variable);
    if (It.K == PtxItem::Debug) {
      MostSymbols += M.DebugSections[It.Index].Labels.size() + M.DebugSections[It.Index].Fixups.size();
      DebugRelocs += M.DebugSections[It.Index].Fixups.size();
    }
  });
  // Sized once: grown by doubling, these tables held up to twice their size at the peak of a module of
  // very many small functions. A -G module has tens of thousands of symbols (mostly labels that debug
  // data refers to): the symbol tables are sized for the most there can be, so that none is regrown
  // (each regrowth copies it into freshly faulted pages). The sections themselves are made only below,
  // while the parse's function records are freed behind them (ChunkedVector::releaseBelow): made here,
  // all of them were alive beside all of those (72 + 64 bytes per function at the lowering's peak).
  V.Sections.reserve(SectionCount);
  DefinitionSymbol.assign(SectionCount, NoSymbol);
  reserveSymbols(MostSymbols);
  V.Relocs.reserve(Named / 16 + DebugRelocs + 64); // appendRelocs says why a sixteenth

  // Symbols: module-scope names first (source order), then debug labels and referenced names.
  startTextWalk();
  forEachItem([&](const PtxItem &It, uint32_t Decl, uint32_t SectionIdx) {
    uint32_t Sym = NoSymbol;
    switch (It.K) {
    case PtxItem::Function:
      Sym = declareFunction(M.Functions[It.Index], M.FunctionAbis[It.Index], SectionIdx);
      releaseTextBehind(M.Functions[It.Index].Begin);
      break;
    case PtxItem::Variable: {
      const PtxVariable &Var = M.Variables[It.Index];
      Sym = declareVariable(Var, Var.Decls[Decl], SectionIdx);
      releaseTextBehind(Var.Begin);
      break;
    }
    case PtxItem::Debug:
      // Placed now: symbols refer to debug sections by name before their contents are lowered.
      FirstDebugSection.try_emplace(M.DebugSections[It.Index].Name,
                                    DebugSectionPlace{SectionIdx, M.DebugSections[It.Index].Loc});
      break;
    case PtxItem::Text:
    case PtxItem::Alias:
      break;
    }
    if (SectionIdx != NoSection && (It.K == PtxItem::Function || It.K == PtxItem::Variable))
      DefinitionSymbol[SectionIdx] = Sym;
  });
  adoptFunctionAbis();
  forEachItem([&](const PtxItem &It, uint32_t, uint32_t SectionIdx) {
    if (It.K == PtxItem::Debug)
      declareDebugLabels(M.DebugSections[It.Index], SectionIdx);
  });
  declareDebugRefs();
  for (const PtxAlias &A : M.Aliases)
    lowerAlias(A);
  rejectUndefinedNonExternFunctions();
  releaseTable(DeclLink); // read by the declarations and aliases only: 1 byte per symbol less at the last walk's end

  // Section contents and relocations.
  // A `.loc ... function_name .debug_str+16` refers to an offset in a debug section of this module: the
  // scanner gets that section's symbol (added here if debug data does not refer to the section too).
  auto SectionSymbolFor = [&](StringRef Name) -> uint32_t {
    auto It = FirstDebugSection.find(Name);
    if (It == FirstDebugSection.end())
      return NoSymbol;
    bool Added;
    uint32_t Sym = sectionSymbol(Name, It->second.Where, Added);
    return V.Symbols[Sym].Kind == SymbolKind::Section ? Sym : NoSymbol;
  };
  BodyScanner Scanner(M.Text, D, SymMap, V.Symbols, PendingLabel, SectionSymbolFor);
  // A definition is lowered only if it became its symbol's definition (not a redefinition or a clash).
  // The walk reads DefinitionSymbol front to back, once: every 64K sections the pages behind it go back
  // to the kernel (4 bytes per section at the walk's end, its peak; the table is freed after it).
  auto Defines = [&](uint32_t SectionIdx) {
    if (SectionIdx % 65536 == 0 && SectionIdx)
      discardWholePages(DefinitionSymbol.data(), SectionIdx * sizeof(uint32_t)); // dead, freed below
    uint32_t Sym = DefinitionSymbol[SectionIdx];
    return Sym != NoSymbol && V.Symbols[Sym].Section == SectionIdx ? Sym : NoSymbol;
  };
  bool Stopped = false;
  if (inSymbolOrder(V.Functions)) {
    releaseTable(AbiOf);
    AbiOfReleased = true;
  }
  auto recordOf = [&](uint32_t Sym) -> FunctionAbi & {
    if (!AbiOfReleased)
      return V.Functions[AbiOf[Sym]];
    FunctionAbi *F = bySymbol(V.Functions, Sym);
    assert(F && "a defined function has its record");
    return *F;
  };
  startTextWalk();
  forEachItem([&](const PtxItem &It, uint32_t Decl, uint32_t SectionIdx) {
    if (Stopped || (Stopped = D.stop()))
      return;
    if (SectionIdx != NoSection) {
      assert(SectionIdx == V.Sections.size() && "sections are made in the order forEachItem numbers them");
      V.Sections.emplace_back();
    }
    switch (It.K) {
    case PtxItem::Function: {
      const PtxFunction &F = M.Functions[It.Index];
      if (SectionIdx != NoSection) {
        V.Sections[SectionIdx].Kind = SectionKind::Function;
        if (uint32_t Sym = Defines(SectionIdx); Sym != NoSymbol) {
          // The definition's own signature: declareFunction made it the symbol's record.
          FunctionAbi &A = recordOf(Sym);
          const FunctionSignature Signature = V.signature(A);
          lowerFunction(F, Signature, Sym, SectionIdx, Scanner);
          checkFunctionBody(M.Text, F, Signature, [&](StringRef Name) { return SymMap.find(Name) != NoSymbol; }, D);
          if (ReleasableText)
            keepAbiStrings(A); // scanned: the text behind is given back next

        }
      }
      M.Functions.releaseBelow(It.Index); // the records behind this one are not read again
      releaseTextBehind(F.End);
      break;
    }
    case PtxItem::Variable: {
      const PtxVariable &Var = M.Variables[It.Index];
      if (SectionIdx == NoSection)
        break;
      V.Sections[SectionIdx].Kind = SectionKind::Variable;
      if (uint32_t Sym = Defines(SectionIdx); Sym != NoSymbol)
        lowerVariable(Var, Var.Decls[Decl], Sym, SectionIdx);
      releaseTextBehind(Var.Begin); // a declaration of several names is visited once per name
      break;
    }
    case PtxItem::Debug: {
      const PtxDebugSection &S = M.DebugSections[It.Index];
      Section &Sec = V.Sections[SectionIdx];
      Sec.Kind = SectionKind::Debug;
      labelSection(Sec, keep(S.Name), S.Loc, textOffsetOf(S.Name));
      lowerDebug(S, FixupSymbols[It.Index], SectionIdx);
      break;
    }
    case PtxItem::Text: {
      const PtxModuleText &T = M.Texts[It.Index];
      Section &Sec = V.Sections[SectionIdx];
      Sec.Kind = SectionKind::Module;
      Sec.setContents(keep(M.Text.slice(T.Begin, T.End)));
      labelSection(Sec, ".pragma", T.Loc, T.Begin);
      break;
    }
    case PtxItem::Alias:
      break;
    }
  }, /*ReleaseBehind=*/true);
  DefinitionSymbol = {};
  if (Stopped)
    return false;
  if (!Prototypes.empty())
    V.rare().Prototypes = std::move(Prototypes);
  keepFunctionAbiStrings();
  // In symbol order: a pending label's symbol is new when its first reference is recorded.
  for (const FirstReference &R : PendingLabelRefs)
    if (V.Symbols[R.Symbol].Section == NoSection)
      D.error(R.Offset, R.Loc,
              "debug data refers to '" + V.Symbols[R.Symbol].name() +
                  "', which is not a label, section or symbol of this module");
  return D.errors() == ErrorsBefore;
}

} // namespace

bool lowerPtxModule(PtxModule &Module, ObjectFile &Object, ModuleVariant &Variant, SourceDiags &Diags,
                    bool TextOutlivesObject, const llvm::MemoryBuffer *Source) {
  // Only a large text that outlives the object and is a whole file's mapping is given back: below
  // LargeTextBytes the copies of the names would cost more than the pages.
  const bool Releasable = Source && TextOutlivesObject && Module.Text.size() >= LargeTextBytes &&
                          Source->getBufferStart() == Module.Text.data() &&
                          Source->getBufferSize() == Module.Text.size() &&
                          Source->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap;
  const bool NamedBySource = Source && TextOutlivesObject && !Module.FileName.empty() &&
                             Source->getBufferIdentifier() == Module.FileName;
  Lowerer L(Module, Object, Variant, Diags, TextOutlivesObject, Releasable ? Source : nullptr,
            NamedBySource ? Source->getBufferIdentifier() : StringRef());
  return L.run();
}

} // namespace ptxlink
