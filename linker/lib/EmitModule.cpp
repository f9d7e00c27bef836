// Emit (emitModule, LinkPasses.h): building the linked module for one architecture.
//
// The problem: the output is one ModuleVariant that printModule turns into PTX (or writeObject into an
// object for -r). Its sections are the live sections of the inputs, copied by reference (the text is
// not touched: renaming happens when the printer splices the relocations), with three rewrites:
//   - module-local symbols and DWARF labels that would clash are renamed (`name$<input number>`),
//     deterministically and never onto a visible name;
//   - debug sections of the same name are concatenated in input order, and every reference into them
//     (`.b32 .debug_loc`, labels defined inside them) is relocated by the module's offset; compile units
//     are re-encoded against one shared abbreviation table with merged file numbers (DwarfMerge.h), and
//     the DWARF of losing weak copies points at the winner's labels (docs/linker.md, "Debug-info merge");
//   - `.file` entries are deduplicated by path and renumbered, and every `.loc` use (FileIndex
//     relocations) follows.
// Fixed after this pass: the output module; every LinkModule's SymOut/SecOut.
#include "DwarfMerge.h"
#include "LinkPasses.h"
#include "ptxlink/InputFiles.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <chrono>
#include <map>

using namespace llvm;

namespace ptxlink {

/// Names of labels that debug data refers to (symbols) and that some other kept function also defines as a
/// plain label. PTX scopes a label to its function, but ptxas looks up a debug section's `.b64 $L__tmp5`
/// among the labels of every function, so such a name must go to one label only: the callers rename
/// every symbol of that name. The plain labels are those the assembler recorded for each function
/// (ModuleVariant::PlainLabel); the text is not scanned. Only a link that keeps a label symbol in code
/// (a -G module's) can have a clash: any other reads no label here at all.
static std::vector<StringRef> labelsDefinedElsewhere(ArrayRef<LinkModule> Modules, ArrayRef<InputFile> Inputs) {
  auto isCodeLabel = [](const ModuleVariant &M, const Symbol &S) {
    return S.Kind == SymbolKind::Label && S.Section < M.Sections.size() &&
           M.Sections[S.Section].Kind == SectionKind::Function;
  };
  const bool AnyLabelSymbols = llvm::any_of(Modules, [&](const LinkModule &LM) {
    return llvm::any_of(LM.M->Symbols, [&](const Symbol &S) {
      return isCodeLabel(*LM.M, S) && S.Section < LM.SectionLive.size() && LM.SectionLive[S.Section];
    });
  });
  if (!AnyLabelSymbols)
    return {};
  // The live plain labels, each by the hash and length of its name: the hashes kept where the link gave
  // the text back after reading it (InputTextPages.h; reading the names would fault every input's text back
  // in), else hashed from the text, where the record points. A large input's text is given back behind
  // the reads (its file mapping only), as the printer gives it back behind itself. No name is compared:
  // two names of one length with one 64-bit hash (a chance of 2^-64 per pair) would only rename a debug
  // label that needed no new name, which the output allows.
  DenseSet<std::pair<uint64_t, uint32_t>> Plain;
  for (const LinkModule &LM : Modules) {
    const ModuleVariant &M = *LM.M;
    if (M.plainLabels().empty())
      continue;
    const ArrayRef<uint64_t> Kept = M.plainLabelHashes();
    const ObjectFile &Source = *Inputs[LM.Input].Object;
    auto Release = [&Source](StringRef Range) { Source.releaseSourcePages(Range); };
    TextReleaser Behind =
        Kept.empty() && Source.mappedBytes() >= LargeTextBytes ? TextReleaser(Release) : TextReleaser();
    for (size_t K = 0; K < M.plainLabels().size(); ++K) {
      const ModuleVariant::PlainLabel &L = M.plainLabels()[K];
      if (L.Section >= LM.SectionLive.size() || !LM.SectionLive[L.Section])
        continue;
      if (!Kept.empty()) {
        Plain.insert({Kept[K], L.Length});
        continue;
      }
      Plain.insert({ModuleVariant::plainLabelNameHash(M.plainLabelName(L)), L.Length});
      Behind.passed(M.Sections[L.Section].contents());
    }
    Behind.finish();
  }
  std::vector<StringRef> Clashes;
  if (Plain.empty())
    return Clashes;
  DenseSet<CachedHashStringRef> Reported;
  for (const LinkModule &LM : Modules)
    for (const Symbol &S : LM.M->Symbols)
      if (isCodeLabel(*LM.M, S) &&
          Plain.contains({ModuleVariant::plainLabelNameHash(S.name()), uint32_t(S.name().size())}) &&
          Reported.insert(CachedHashStringRef(S.name())).second)
        Clashes.push_back(S.name());
  return Clashes;
}

using DebugPartList = std::vector<std::pair<uint32_t, uint32_t>>; // (module, section) in input order

/// A debug section part that the link re-encoded: the section with new contents, and its relocations
/// (those of a module's section live in the module's table, which the link does not change).
struct RewrittenPart {
  Section S;
  std::vector<Relocation> Relocs;
};
using RewrittenPartMap = std::map<std::pair<uint32_t, uint32_t>, RewrittenPart>;

/// Re-encodes every module's .debug_info against one shared abbreviation table with the merged `.file`
/// numbers (DwarfMerge.h), into Rewritten (keyed by module and section); the first .debug_abbrev part
/// becomes that table and the others empty. Returns whether it did; if some unit cannot be walked it
/// warns and rewrites nothing, so the sections are concatenated as read.
static bool mergeCompileUnits(ArrayRef<LinkModule> Modules, const StringMap<DebugPartList> &DebugParts,
                              ArrayRef<DenseMap<uint64_t, uint32_t>> FileMap,
                              RewrittenPartMap &Rewritten, ObjectFile &Storage,
                              DiagnosticEngine &Diags) {
  auto Infos = DebugParts.find(".debug_info");
  auto Abbrevs = DebugParts.find(".debug_abbrev");
  if (Infos == DebugParts.end() || Abbrevs == DebugParts.end())
    return false;
  std::vector<uint32_t> AbbrevOf(Modules.size(), NoSection);
  for (auto [MI, SI] : Abbrevs->second)
    AbbrevOf[MI] = AbbrevOf[MI] == NoSection ? SI : NoSection - 1; // NoSection - 1: more than one
  SharedAbbrevTable Shared;
  RewrittenPartMap Parts;
  for (const auto &Use : Infos->second) {
    uint32_t MI = Use.first, SI = Use.second; // not a structured binding: clang 14 cannot capture one
    const ModuleVariant &M = *Modules[MI].M;
    auto fail = [&](const Twine &Why) {
      Diags.warning("cannot merge the debug info of " + Modules[MI].ObjectName + ": " + Why +
                        "; its compile units keep their own abbreviation tables and file numbers, which ptxas -g "
                        "and debuggers may misread",
                    std::vector<DiagSite>(), "debug-merge");
      return false;
    };
    if (AbbrevOf[MI] >= NoSection - 1)
      return fail(AbbrevOf[MI] == NoSection ? "it has .debug_info but no .debug_abbrev"
                                            : "it has more than one .debug_abbrev section");
    auto MapFile = [&](uint64_t Index) -> uint64_t {
      if (Index > UINT32_MAX)
        return Index;
      auto It = FileMap[MI].find(Index);
      return It != FileMap[MI].end() ? It->second : Index;
    };
    auto Info = rewriteDebugInfo(M, M.Sections[SI], M.Sections[AbbrevOf[MI]], MapFile, Shared);
    if (!Info)
      return fail(toString(Info.takeError()));
    // Other sections' offsets into .debug_info (a name table's DIE offsets, an address table's unit
    // offset) follow the DIEs when any moved (an abbreviation code or a file number got longer).
    for (uint32_t K = 0; K < M.Sections.size() && Info->Moved; ++K) {
      const Section &S = M.Sections[K];
      const StringRef Name = M.sectionName(S);
      if (S.Kind != SectionKind::Debug || K == SI || Name == ".debug_abbrev")
        continue;
      RewrittenPart N{S, std::vector<Relocation>(M.relocs(S).begin(), M.relocs(S).end())};
      if (Name == ".debug_pubnames" || Name == ".debug_pubtypes") {
        auto Table = rewriteNameTable(M, S, *Info);
        if (!Table)
          return fail(toString(Table.takeError()));
        N.S.setContents(Storage.save(*Table).take_front(Table->size()));
      }
      for (Relocation &R : N.Relocs) {
        if ((R.Kind != RelocKind::Data32 && R.Kind != RelocKind::Data64) || R.Symbol >= M.Symbols.size() ||
            M.Symbols[R.Symbol].Kind != SymbolKind::Section || M.Symbols[R.Symbol].name() != ".debug_info")
          continue;
        std::optional<uint64_t> Moved = Info->newOffset(uint64_t(R.Addend));
        if (!Moved)
          return fail("a reference from " + Name + " to .debug_info offset " + Twine(R.Addend) +
                      ", where no unit or DIE starts");
        if (*Moved > uint64_t(MaxRelocationAddend)) // addends are 32-bit (ObjectModel.h)
          return fail("a reference from " + Name + " to .debug_info offset " + Twine(R.Addend) +
                      " would move to offset " + Twine(*Moved) + ", past 2 GiB");
        R.Addend = int32_t(*Moved);
      }
      Parts.emplace(std::make_pair(MI, K), std::move(N));
    }
    RewrittenPart N{M.Sections[SI], std::move(Info->Relocs)};
    N.S.setContents(Storage.save(Info->Contents));
    N.S.setContents(N.S.contents().take_front(Info->Contents.size()));
    Parts.emplace(std::make_pair(MI, SI), std::move(N));
  }
  std::string Table = Shared.encode();
  bool First = true;
  for (auto [MI, SI] : Abbrevs->second) {
    const ModuleVariant &M = *Modules[MI].M;
    RewrittenPart N{M.Sections[SI], std::vector<Relocation>(M.relocs(M.Sections[SI]).begin(),
                                                            M.relocs(M.Sections[SI]).end())};
    N.S.setContents(First ? Storage.save(Table).take_front(Table.size()) : StringRef());
    First = false;
    Parts.emplace(std::make_pair(MI, SI), std::move(N));
  }
  Rewritten = std::move(Parts);
  return true;
}

namespace {

/// The steps of emitModule and what they share. Each step reads what the earlier ones built; the
/// comment on each call in emitModule says what is fixed after it.
class ModuleEmitter {
public:
  ModuleEmitter(SymbolTable &Symtab, const LinkOptions &Options, ArrayRef<InputFile> Inputs, StringRef ArchName,
                DiagnosticEngine &Diags, ModuleVariant &Out, ObjectFile &Storage)
      : Symtab(Symtab), Options(Options), Inputs(Inputs), ArchName(ArchName.str()), Diags(Diags),
        Modules(Symtab.Modules), Globals(Symtab.Globals), Out(Out), Storage(Storage) {
    // At most every input symbol and section is kept: reserving that much (untouched pages cost nothing)
    // saves the copies and the doubled memory of growing.
    for (const LinkModule &LM : Modules) {
      MaxSymbols += LM.M->Symbols.size();
      MaxSections += LM.M->Sections.size();
    }
  }

  /// Names that a renamed local must not take.
  void takeVisibleNames() {
    // Names: every visible name is taken, so a renamed local can never land on one. The visible names are
    // the keys of the resolver's GlobalIndex, which isTaken consults directly: a copy of it would cost a
    // table entry per visible name at the link's peak (4 MB for 10^5 functions). This set holds the rest:
    // labels that another function also defines, then the kept locals (views of the inputs or of Storage,
    // which outlive this pass: no copies). Its size: about as many locals as visible names, never more
    // than all the other symbols.
    // And never more than the module-local symbols (labels among them): a link of modules without any
    // reserved a table for 10^5 names it never held (4 MB, 42 bytes per module).
    for (const LinkModule &LM : Modules)
      Locals += llvm::count(LM.Global, NoGlobal);
    TakenLocals.reserve(std::min({Locals, MaxSymbols - std::min(MaxSymbols, Globals.size()), Globals.size()}) + 64);
    for (StringRef Label : labelsDefinedElsewhere(Modules, Inputs))
      if (!Symtab.isGlobalName(Label))
        TakenLocals.insert(CachedHashStringRef(Label));
  }

  /// The debug sections of every input, by name.
  void gatherDebugParts() {
    // Debug sections: one output section per name, in order of first appearance.
    for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
      const ModuleVariant &M = *Modules[MI].M;
      for (uint32_t SI = 0; SI < M.Sections.size(); ++SI)
        if (M.Sections[SI].Kind == SectionKind::Debug) {
          // Offsets are kept only for modules with debug sections (only those are looked up): 8 bytes
          // per section of every module otherwise (0.8 MB for 10^5 functions).
          if (DebugBase.empty()) // only links with debug sections look offsets up
            DebugBase.resize(Modules.size());
          if (DebugBase[MI].empty())
            DebugBase[MI].assign(M.Sections.size(), 0);
          auto &Parts = DebugParts[M.sectionName(SI)];
          if (Parts.empty())
            DebugNames.push_back(M.sectionName(SI));
          Parts.push_back({MI, SI});
        }
    }
  }

  /// The output symbols: globals once, section symbols once per name, live locals (renamed apart).
  void chooseSymbols() {
    // Each visible name once and each local at most once: in a link of modules that call each other,
    // half of all symbols are declarations of another module's definition.
    const size_t MostSymbols = std::min(MaxSymbols, Globals.size() + Locals);
    Out.Symbols.reserve(MostSymbols);
    Origins.reserve(MostSymbols);
    Out.Sections.reserve(MaxSections);
    for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
      LinkModule &LM = Modules[MI];
      const ModuleVariant &M = *LM.M;
      // A module that contributes nothing of its own (no live section, no debug section, no section
      // symbol, no call prototype) gets no SymOut/SecOut (8 bytes per symbol; 10^6 unused functions:
      // 8 MB): only its names' output symbols are chosen here, in the same order, and no later pass
      // looks its symbols up.
      const bool Contributes =
          !M.prototypes().empty() || llvm::any_of(LM.SectionLive, [](auto Live) { return bool(Live); }) ||
          llvm::any_of(M.Sections, [](const Section &S) { return S.Kind == SectionKind::Debug; }) ||
          llvm::any_of(M.Symbols, [](const Symbol &S) { return S.Kind == SymbolKind::Section; });
      if (Contributes) {
        LM.SymOut.assign(Symtab.TablePool, M.Symbols.size(), NoSymbol);
        LM.SecOut.assign(Symtab.TablePool, M.Sections.size(), NoSection);
      } else {
        LM.SymOut.clear();
        LM.SecOut.clear();
      }
      for (uint32_t SI = 0; SI < M.Symbols.size(); ++SI) {
        const Symbol &S = M.Symbols[SI];
        uint32_t GI = LM.Global[SI];
        if (GI != NoGlobal) {
          GlobalSymbol &G = Globals[GI];
          if (G.Out == NoSymbol) {
            const SymRef Def = Symtab.def(G);
            if (Def.valid() && isLive(Def.Module, Symtab.definingSection(Def))) {
              Symbol N = Symtab.sym(Def); // of G's name, as every symbol of G is
              N.Bind = G.Bind;
              if (N.Kind == SymbolKind::Variable) // of the definition that won, or the largest .common
                N.setSize(Symtab.resolvedSize(G));
              N.Initialized = G.Initialized;
              G.Out = addSymbol(N, Def.Module, Def.Symbol);
            } else if (!Def.valid() && G.Live && !Symtab.decls(G).empty()) {
              SymRef Decl = Symtab.decls(G).front();
              Symbol N = Symtab.sym(Decl);
              N.Bind = Binding::Undefined;
              N.Section = NoSection;
              G.Out = addSymbol(N, Decl.Module, Decl.Symbol);
            }
          }
          if (Contributes)
            LM.SymOut[SI] = G.Out;
          continue;
        }
        if (!Contributes)
          continue; // its locals are in no live section
        if (S.Kind == SymbolKind::Section) {
          auto [It, Inserted] = SectionSymbol.try_emplace(S.name(), NoSymbol);
          if (Inserted) {
            Symbol N = S;
            N.setName(Storage.save(S.name()));
            N.Section = NoSection; // a Section symbol has no value (Symbol::value())
            It->second = addSymbol(N, MI, SI);
          }
          LM.SymOut[SI] = It->second;
          continue;
        }
        uint32_t Home = S.Kind == SymbolKind::Label ? (S.Section < M.Sections.size() ? S.Section : NoSection)
                                                    : Symtab.definingSection({MI, SI});
        if (Home == NoSection || !isLive(MI, Home))
          continue;
        Symbol N = S;
        if (Symtab.isGlobalName(S.name()) || !TakenLocals.insert(CachedHashStringRef(S.name())).second) {
          std::string Base = S.name().str() + "$" + std::to_string(LM.Input + 1);
          std::string Candidate = Base;
          for (unsigned K = 1; isTaken(Candidate); ++K)
            Candidate = Base + "$" + std::to_string(K);
          if (Candidate.size() > MaxSymbolNameBytes) { // a Symbol keeps a 24-bit length
            Diags.error("local symbol '" + S.name().take_front(32) + "...' of " + LM.ObjectName +
                             " cannot be renamed apart from another of its name: '" + Candidate.substr(Candidate.size() - 32) +
                             "' would be " + Twine(Candidate.size()) + " bytes long (at most " +
                             Twine(MaxSymbolNameBytes) + " are supported)");
          } else { // (the link fails: the original name is kept only to finish the emit)
            N.setName(Storage.save(Candidate));
          }
          TakenLocals.insert(CachedHashStringRef(N.name()));
        }
        LM.SymOut[SI] = addSymbol(N, MI, SI);
      }
    }
  }

  /// One `.file` table for the output.
  void mergeFileTables() {
    // `.file` table: deduplicated by path, numbered from 1 in order of first appearance.
    // Sized only where a module has a `.file` table or debug sections (which look it up).
    if (!DebugParts.empty() || llvm::any_of(Modules, [](const LinkModule &LM) { return !LM.M->files().empty(); }))
      FileMap.resize(Modules.size());
    for (uint32_t MI = 0; MI < Modules.size(); ++MI)
      for (const FileEntry &F : Modules[MI].M->files()) {
        auto [It, Inserted] = FileIndex.try_emplace(F.Path, Out.files().size() + 1);
        if (Inserted) {
          FileEntry N = F;
          N.Index = It->second;
          Out.rare().Files.push_back(N);
        }
        FileMap[MI][F.Index] = It->second;
      }
  }

  /// The compile units re-encoded for the merged tables.
  void mergeDebugInfo() {
    // Compile units: re-encoded against one shared abbreviation table with file numbers of the merged
    // `.file` list (DwarfMerge.h says why ptxas needs both). Parts that are not rewritten are used as read.
    SharedAbbrevs = mergeCompileUnits(Modules, DebugParts, FileMap, RewrittenParts, Storage, Diags);
  }

  /// Out.labelSection, with one error (output-too-large) when the output labels more sections than a
  /// Section can index (MaxSectionLabels: its debug sections and the sections renamed apart from their
  /// inputs' names, or placed apart from their symbols, are labelled).
  void label(Section &D, StringRef Name, Loc Where) {
    if (Out.labelSection(D, Name, Where) || TooManyLabels)
      return;
    TooManyLabels = true;
    Diags.error("more than " + Twine(MaxSectionLabels) + " sections of the linked module have names or " +
                         "places of their own, which a section cannot index (" + ArchName + ")",
                     std::vector<DiagSite>(), "output-too-large");
  }

  /// The output sections: live code and data, then one merged section per debug name.
  void placeSections() {
    // Sections: live code and data in input order, then the merged debug sections.
    const bool WritesObject = Options.Emit == EmitKind::Object;
    for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
      const ModuleVariant &M = *Modules[MI].M;
      for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
        const Section &S = M.Sections[SI];
        if (S.Kind == SectionKind::Debug || !isLive(MI, SI))
          continue;
        Modules[MI].SecOut[SI] = Out.Sections.size();
        Out.Sections.push_back(S);
        // mapRelocations gives it its relocations, its output symbol, and its name and place.
        Out.Sections.back().RelocBegin = Out.Sections.back().RelocCount = 0;
        Out.Sections.back().Symbol = NoSymbol;
        Out.Sections.back().Label = NoLabel;
        Out.setSectionSource(Out.Sections.size() - 1, M.SourceName);
        // An object (-r) carries the ODR hash of each weak definition it keeps, as read: the hash depends
        // on the text, the definition's own name and the spelling of the visible names it refers to
        // (OdrHash.h), none of which a link changes (it renames only module-local names, which the
        // hash does not see, and keeps a kept definition's text).
        if (WritesObject)
          if (std::optional<uint64_t> H = M.odrHashOf(SI))
            Out.facts().OdrHashes.push_back({uint32_t(Out.Sections.size() - 1), *H});
      }
      // And the labels each kept function defines, at the same offsets (the text is kept as read; the
      // printer, which renames, writes no object).
      if (WritesObject)
        for (const ModuleVariant::PlainLabel &L : M.plainLabels())
          if (isLive(MI, L.Section) && M.Sections[L.Section].Kind != SectionKind::Debug)
            Out.facts().PlainLabels.push_back({Modules[MI].SecOut[L.Section], L.Offset, L.Length});
    }
    FirstDebug = Out.Sections.size();
    for (StringRef Name : DebugNames) {
      auto &Parts = DebugParts[Name];
      uint64_t Total = 0;
      for (auto [MI, SI] : Parts) {
        DebugBase[MI][SI] = Total;
        Total += debugPart(MI, SI).contents().size();
      }
      // A section's contents are below 4 GiB (Section keeps a 32-bit size): a larger merged section is
      // refused, not truncated, and nothing is copied (the link writes no output).
      const bool Fits = Total <= MaxSectionBytes;
      if (!Fits) {
        Diags.error("the linked " + Name + " would be " + Twine(Total) +
                             " bytes: a section must be below 4 GiB (" + ArchName + ")",
                         std::vector<DiagSite>(), "output-too-large");
        TooLarge.insert(Name);
      }
      char *Buf = Storage.arena().Allocate<char>(Fits ? std::max<uint64_t>(Total, 1) : 1);
      Section D = debugPart(Parts.front().first, Parts.front().second);
      D.RelocBegin = D.RelocCount = 0; // mapRelocations gives them
      D.Symbol = NoSymbol;
      // Named and placed as its first part (whose label is one of that module's).
      label(D, Name, Modules[Parts.front().first].M->sectionWhere(Parts.front().second));
      for (auto [MI, SI] : Parts) {
        const Section &P = debugPart(MI, SI);
        if (Fits && !P.contents().empty())
          std::memcpy(Buf + DebugBase[MI][SI], P.contents().data(), P.contents().size());
        Modules[MI].SecOut[SI] = Out.Sections.size();
        // Every compile unit refers to the shared table at the start of the section.
        if (SharedAbbrevs && Name == ".debug_abbrev")
          DebugBase[MI][SI] = 0;
      }
      D.setContents(StringRef(Buf, Fits ? Total : 0));
      DebugBuf.push_back(Buf);
      uint32_t Index = Out.Sections.size();
      Out.Sections.push_back(std::move(D));
      Out.setSectionSource(Index, StringRef()); // several inputs'
      auto It = SectionSymbol.find(Name);
      if (It != SectionSymbol.end()) {
        Out.Sections[Index].Symbol = It->second;
        Out.Symbols[It->second].Section = Index;
      }
    }
  }

  /// Each output symbol's section and value.
  void placeSymbols() {
    // Symbols now know their sections; aliases their aliasees.
    for (uint32_t O = 0; O < Out.Symbols.size(); ++O) {
      Symbol &N = Out.Symbols[O];
      auto [MI, SI] = Origins[O];
      const ModuleVariant &M = *Modules[MI].M;
      const Symbol &S = M.Symbols[SI];
      if (S.Kind == SymbolKind::Section)
        continue;
      if (N.Bind == Binding::Undefined) {
        N.Section = NoSection;
        continue;
      }
      if (S.Section < M.Sections.size()) {
        N.Section = Modules[MI].SecOut[S.Section];
        if (S.Kind == SymbolKind::Label && M.Sections[S.Section].Kind == SectionKind::Debug)
          N.setValue(S.value() + DebugBase[MI][S.Section]);
      } else {
        N.Section = NoSection;
      }
      if (const uint32_t Aliasee = M.aliasOf(SI); Aliasee != NoSymbol)
        Out.setAliasOf(O, Aliasee < M.Symbols.size() ? Modules[MI].SymOut[Aliasee] : NoSymbol);
    }
  }

  /// The relocations of every output section, pointing at output symbols.
  void mapRelocations() {
    // Relocations follow their symbols, offsets and `.file` numbers. They go into Out.Relocs section by
    // section in output order: first the code and data sections (placed in input order), then each
    // merged debug section with its parts in input order.
    size_t MostRelocs = 0;
    for (uint32_t MI = 0; MI < Modules.size(); ++MI)
      for (uint32_t SI = 0; SI < Modules[MI].SecOut.size(); ++SI) // none in a module that contributes nothing
        if (Modules[MI].SecOut[SI] != NoSection)
          MostRelocs += Modules[MI].M->Sections[SI].Kind == SectionKind::Debug ? debugPartRelocs(MI, SI).size()
                                                                               : Modules[MI].M->Sections[SI].RelocCount;
    Out.Relocs.reserve(MostRelocs);
    unsigned Dangling = 0;
    uint64_t AddendsPastRange = 0; // SectionOffset/Data addends that a merged debug section put past 2 GiB
    for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
      const ModuleVariant &M = *Modules[MI].M;
      for (uint32_t SI = 0; SI < Modules[MI].SecOut.size(); ++SI) {
        uint32_t OS = Modules[MI].SecOut[SI];
        const Section &S = M.Sections[SI];
        if (OS == NoSection || S.Kind == SectionKind::Debug)
          continue;
        Section &D = Out.Sections[OS];
        D.Symbol = S.Symbol < M.Symbols.size() ? Modules[MI].SymOut[S.Symbol] : NoSymbol;
        // Its output symbol's name (the input's, unless renamed apart) and the input's place.
        label(D, D.Symbol != NoSymbol ? Out.Symbols[D.Symbol].name() : M.sectionName(S), M.sectionWhere(S));
        Out.startRelocs(D);
        mapPartRelocs(MI, SI, M.relocs(S), D, OS, Dangling, AddendsPastRange);
        Out.endRelocs(D);
      }
    }
    for (size_t K = 0; K < DebugNames.size(); ++K) {
      const uint32_t OS = FirstDebug + K;
      Section &D = Out.Sections[OS];
      Out.startRelocs(D);
      unsigned PastRange = 0;
      for (auto [MI, SI] : DebugParts[DebugNames[K]])
        PastRange += mapPartRelocs(MI, SI, debugPartRelocs(MI, SI), D, OS, Dangling, AddendsPastRange);
      Out.endRelocs(D);
      if (PastRange && !TooLarge.contains(DebugNames[K])) // else refused whole by placeSections
        Diags.error("the linked " + DebugNames[K] + " is " + Twine(D.contents().size()) + " bytes: " +
                             Twine(PastRange) + " of its relocations lie past 4 GiB, which a relocation cannot reach (" +
                             ArchName + ")",
                         std::vector<DiagSite>(), "output-too-large");
      MutableArrayRef<Relocation> Relocs = Out.relocs(D);
      std::stable_sort(Relocs.begin(), Relocs.end(),
                       [](const Relocation &A, const Relocation &B) { return A.Offset < B.Offset; });
    }
    if (AddendsPastRange)
      Diags.error(Twine(AddendsPastRange) + " references into merged debug sections lie past 2 GiB, which a " +
                           "relocation's addend cannot reach (" + ArchName + ")",
                       std::vector<DiagSite>(), "output-too-large");
    if (Dangling)
      Diags.error("internal error: " + std::to_string(Dangling) + " references to symbols that were not kept (" +
                      ArchName + ")",
                  std::vector<DiagSite>(), "internal");
  }

  /// Appends to Out.Relocs the relocations Relocs of module MI's section SI (a debug part: as the link
  /// uses it), which goes into output section D (index OS), mapped to output symbols and offsets.
  /// Returns how many it dropped because a merged debug section put them past 4 GiB (Relocation's
  /// offsets are 32-bit), and counts in AddendsPastRange those it dropped because their addend, a place
  /// in a merged debug section, lies past 2 GiB (addends are 32-bit); the caller reports both.
  unsigned mapPartRelocs(uint32_t MI, uint32_t SI, ArrayRef<Relocation> Relocs, const Section &D, uint32_t OS,
                         unsigned &Dangling, uint64_t &AddendsPastRange) {
    const ModuleVariant &M = *Modules[MI].M;
    const bool IsDebug = M.Sections[SI].Kind == SectionKind::Debug;
    const uint64_t Base = IsDebug ? DebugBase[MI][SI] : 0;
    unsigned PastRange = 0;
    for (const Relocation &R : Relocs) {
      Relocation N = R;
      if (Base + R.Offset > MaxRelocationOffset) {
        ++PastRange;
        continue;
      }
      N.Offset = uint32_t(Base + R.Offset);
      if (R.Kind == RelocKind::FileIndex) {
        if (MI < FileMap.size())
          if (auto It = FileMap[MI].find(R.Symbol); It != FileMap[MI].end())
            N.Symbol = It->second;
        Out.Relocs.push_back(N);
        continue;
      }
      N.Symbol = R.Symbol < M.Symbols.size() ? Modules[MI].SymOut[R.Symbol] : NoSymbol;
      if (N.Symbol == NoSymbol && IsDebug && R.Symbol < M.Symbols.size())
        N.Symbol = winnerLabel(MI, R.Symbol);
      if (N.Symbol == NoSymbol) {
        // DWARF describing code that was not kept and has no stand-in in the winner (which has no
        // labels): like lld for discarded sections, the address becomes 0 and the reference goes.
        if (IsDebug && R.Symbol < M.Symbols.size() && M.Symbols[R.Symbol].Kind == SymbolKind::Label &&
            (R.Kind == RelocKind::Data32 || R.Kind == RelocKind::Data64)) {
          unsigned Width = R.Kind == RelocKind::Data32 ? 4 : 8;
          if (uint64_t(N.Offset) + Width <= D.contents().size())
            std::memset(DebugBuf[OS - FirstDebug] + N.Offset, 0, Width);
          continue;
        }
        ++Dangling;
        continue;
      }
      const Symbol &T = M.Symbols[R.Symbol];
      // The input's bytes spell the name T had when its module was assembled. The output symbol has T's
      // name where T is a visible name (one output symbol per name) or a local kept under its own name
      // (it shares T's bytes). A local renamed by an earlier `-r` link keeps its assembled spelling in
      // the text: its name is longer than the bytes (renaming only appends), which the length tells.
      N.SpelledAsIs = R.Kind == RelocKind::NameRef && R.Length == T.name().size() &&
                      (Modules[MI].Global[R.Symbol] != NoGlobal || Out.Symbols[N.Symbol].name().data() == T.name().data());
      bool Drop = false;
      if (T.Kind == SymbolKind::Section && (R.Kind == RelocKind::Data32 || R.Kind == RelocKind::Data64 ||
                                            R.Kind == RelocKind::SectionOffset)) {
        // `.b32 .debug_abbrev` (and `function_name .debug_str+16` in a `.loc`) means the start of this
        // module's part of the merged section.
        for (uint32_t K = 0; K < M.Sections.size(); ++K)
          if (M.Sections[K].Kind == SectionKind::Debug && M.sectionName(K) == T.name()) {
            // Addends are 32-bit (ObjectModel.h): one past 2 GiB is dropped and counted for the caller.
            const int64_t Moved = int64_t(R.Addend) + int64_t(DebugBase[MI][K]);
            if (!relocationAddendFits(Moved)) {
              ++AddendsPastRange;
              Drop = true;
            }
            N.Addend = int32_t(Moved);
            break;
          }
      }
      if (!Drop)
        Out.Relocs.push_back(N);
    }
    return PastRange;
  }

  /// The ABI and call-prototype records the output keeps.
  void copyAbiRecords() {
    // ABI records of every kept symbol, and the call prototypes of kept functions: an object (-r) carries
    // them all. Printed PTX needs only the declarations it writes out (externs and aliases); the definitions
    // carry their own headers, so copying their records would be wasted work.
    bool WholeAbi = Options.Emit == EmitKind::Object;
    for (uint32_t O = 0; O < Out.Symbols.size(); ++O) {
      if (!WholeAbi && Out.Symbols[O].Bind != Binding::Undefined && Out.aliasOf(O) == NoSymbol)
        continue;
      auto [MI, SI] = Origins[O];
      if (const FunctionAbi *F = Symtab.functionAbi({MI, SI})) {
        Out.copyFunction(*Modules[MI].M, *F, O); // its lists and extras come along; the output symbol is made
      } else if (const VariableAbi *V = Symtab.variableAbi({MI, SI})) {
        VariableAbi N = *V;
        N.Symbol = O;
        if (Out.Symbols[O].Bind == Binding::Common)
          N.Initialized = Out.Symbols[O].Initialized;
        Out.Variables.push_back(std::move(N));
      }
    }
    for (uint32_t MI = 0; MI < Modules.size() && WholeAbi; ++MI)
      for (const PrototypeAbi &P : Modules[MI].M->prototypes()) {
        if (P.Function >= Modules[MI].SymOut.size() || Modules[MI].SymOut[P.Function] == NoSymbol)
          continue;
        PrototypeAbi N = P;
        N.Function = Modules[MI].SymOut[P.Function];
        N.CallTargets.clear();
        for (uint32_t T : P.CallTargets)
          if (T < Modules[MI].SymOut.size() && Modules[MI].SymOut[T] != NoSymbol)
            N.CallTargets.push_back(Modules[MI].SymOut[T]);
        Out.rare().Prototypes.push_back(std::move(N));
      }
  }

  /// Per output symbol: the input symbol it came from. Handed over, not copied: the copy was a second
  /// table of 8 bytes per kept symbol at the link's peak. The last step.
  std::vector<SymRef> takeOrigins() { return std::move(Origins); }

private:
  bool isTaken(StringRef Name) const {
    return Symtab.isGlobalName(Name) || TakenLocals.contains(CachedHashStringRef(Name));
  }
  uint32_t addSymbol(const Symbol &From, uint32_t MI, uint32_t SI) {
    Out.Symbols.push_back(From);
    Origins.push_back({MI, SI});
    return static_cast<uint32_t>(Out.Symbols.size() - 1);
  }
  bool isLive(uint32_t MI, uint32_t Sec) const {
    return Sec < Modules[MI].SectionLive.size() && Modules[MI].SectionLive[Sec];
  }
  /// A debug section part as the output uses it: rewritten by mergeDebugInfo, or as read.
  const Section &debugPart(uint32_t MI, uint32_t SI) const {
    auto It = RewrittenParts.find({MI, SI});
    return It != RewrittenParts.end() ? It->second.S : Modules[MI].M->Sections[SI];
  }
  /// Its relocations.
  ArrayRef<Relocation> debugPartRelocs(uint32_t MI, uint32_t SI) const {
    auto It = RewrittenParts.find({MI, SI});
    return It != RewrittenParts.end() ? ArrayRef<Relocation>(It->second.Relocs)
                                      : Modules[MI].M->relocs(Modules[MI].M->Sections[SI]);
  }

  // The DWARF of a definition that lost resolution (a later weak copy, a weak one that a visible
  // definition overrides) describes the winner's code, as in nvlink -g's output, where its relocations
  // against the function's symbol resolve to the winner: each label of the losing copy stands for the
  // label at the same position in the winner (copies of one inline function or template have the same
  // labels, debug-referenced depots and parameters in the same order). If the counts differ, the first
  // stands for the winner's first and every other for its last (an empty range at its end, never the
  // 0,0 pair that ends a .debug_loc list).
  // Per module (built when first needed; the tables sized then, since most links never need them): each
  // section's labels in text order, and each label's position.
  const std::vector<uint32_t> &labelsOf(uint32_t MI, uint32_t Sec) {
    if (LabelsBySection.empty()) {
      LabelsBySection.resize(Modules.size());
      LabelPosition.resize(Modules.size());
    }
    auto &PerSection = LabelsBySection[MI];
    if (PerSection.empty()) {
      const ModuleVariant &M = *Modules[MI].M;
      PerSection.resize(M.Sections.size());
      LabelPosition[MI].assign(M.Symbols.size(), 0);
      for (uint32_t I = 0; I < M.Symbols.size(); ++I)
        if (M.Symbols[I].Kind == SymbolKind::Label && M.Symbols[I].Section < M.Sections.size())
          PerSection[M.Symbols[I].Section].push_back(I);
      for (std::vector<uint32_t> &L : PerSection) {
        std::stable_sort(L.begin(), L.end(),
                         [&](uint32_t A, uint32_t B) { return M.Symbols[A].value() < M.Symbols[B].value(); });
        for (uint32_t P = 0; P < L.size(); ++P)
          LabelPosition[MI][L[P]] = P;
      }
    }
    return PerSection[Sec];
  }

  uint32_t winnerLabel(uint32_t MI, uint32_t Label) {
    const ModuleVariant &M = *Modules[MI].M;
    const Symbol &L = M.Symbols[Label];
    if (L.Kind != SymbolKind::Label || L.Section >= M.Sections.size() ||
        M.Sections[L.Section].Kind == SectionKind::Debug)
      return NoSymbol;
    uint32_t Owner = M.Sections[L.Section].Symbol;
    if (Owner >= M.Symbols.size() || Modules[MI].Global[Owner] == NoGlobal)
      return NoSymbol;
    const SymRef Def = Symtab.def(Modules[MI].Global[Owner]);
    uint32_t WinnerSec = Def.valid() ? Symtab.definingSection(Def) : NoSection;
    if (WinnerSec == NoSection || !isLive(Def.Module, WinnerSec) || (Def.Module == MI && WinnerSec == L.Section))
      return NoSymbol;
    const std::vector<uint32_t> &Mine = labelsOf(MI, L.Section);
    const std::vector<uint32_t> &Theirs = labelsOf(Def.Module, WinnerSec);
    if (Theirs.empty())
      return NoSymbol;
    size_t Pos = LabelPosition[MI][Label];
    uint32_t Pick = Mine.size() == Theirs.size() ? Theirs[Pos] : Pos == 0 ? Theirs.front() : Theirs.back();
    return Modules[Def.Module].SymOut[Pick];
  }

  SymbolTable &Symtab;
  const LinkOptions &Options;
  ArrayRef<InputFile> Inputs;
  std::string ArchName; // in messages
  DiagnosticEngine &Diags;
  std::vector<LinkModule> &Modules;
  std::vector<GlobalSymbol> &Globals;
  ModuleVariant &Out;
  ObjectFile &Storage;
  size_t MaxSymbols = 0, MaxSections = 0; // at most every input symbol and section is kept
  size_t Locals = 0;                       // the input symbols without a visible name (takeVisibleNames)
  // Names a renamed local must not take, besides the visible ones (Symtab.GlobalIndex): see takeVisibleNames.
  DenseSet<CachedHashStringRef> TakenLocals;
  // Debug sections: names in order of first appearance, the parts of each, each part's offset in its
  // merged section.
  std::vector<StringRef> DebugNames;
  StringMap<DebugPartList> DebugParts;
  std::vector<std::vector<uint64_t>> DebugBase; // per module, sized at the first debug section
  // Section symbol of each debug name (created on demand, also for names only referenced).
  StringMap<uint32_t> SectionSymbol;
  std::vector<SymRef> Origins; // per output symbol
  StringMap<uint32_t> FileIndex;                      // path -> output `.file` number
  // Per module: input `.file` number -> output. Keyed by 64 bits so that no 32-bit number from a file
  // is one of DenseMap's reserved keys (0xffffffff, 0xfffffffe for 32-bit keys).
  std::vector<DenseMap<uint64_t, uint32_t>> FileMap;
  RewrittenPartMap RewrittenParts; // compile units re-encoded
  bool SharedAbbrevs = false;
  std::vector<char *> DebugBuf; // the merged debug sections' bytes, writable (they live in Storage)
  StringSet<> TooLarge;         // merged debug sections refused for their size (4 GiB or more)
  bool TooManyLabels = false;   // reported once
  uint32_t FirstDebug = 0;
  // Per module, built when winnerLabel first needs it: each section's labels in text order, and each
  // label's position there.
  std::vector<std::vector<std::vector<uint32_t>>> LabelsBySection;
  std::vector<std::vector<uint32_t>> LabelPosition;
};

} // namespace

OutputModule emitModule(SymbolTable &Symtab, const LinkOptions &Options, ArrayRef<InputFile> Inputs,
                        const TargetChoice &Target, DiagnosticEngine &Diags, ModuleVariant &Out, ObjectFile &Storage) {
  Out = ModuleVariant();
  OutputModule Result;
  Result.Module = &Out;
  Out.SourceName = Storage.save(Options.Output.empty() ? std::string("<linked>") : Options.Output);
  Out.Target = outputTarget(Symtab.Modules, Target.ptxTarget(), Storage);

  ModuleEmitter E(Symtab, Options, Inputs, Target.Arch.name(), Diags, Out, Storage);
  // After: every visible name, and every label that debug data of another module defines, is taken.
  E.takeVisibleNames();
  // After: the debug sections of each name, in input order, and their section symbols' names.
  E.gatherDebugParts();
  // After: Out.Symbols (in input order; locals renamed apart) and every module's SymOut.
  E.chooseSymbols();
  // After: the resolver's name index is gone. Renaming locals was its last use (the reports that look
  // names up, --trace-symbol, ran before emit), and the tables emit makes next are the link's peak.
  Symtab.GlobalIndex.release();
  // After: Out.Files, and per module the renumbering of its `.file` entries.
  E.mergeFileTables();
  // After: compile units re-encoded against one abbreviation table and the merged `.file` numbers.
  E.mergeDebugInfo();
  // After: Out.Sections (live code and data, then the merged debug sections) and every SecOut.
  E.placeSections();
  // After: each output symbol's section and value; aliases point at output symbols.
  E.placeSymbols();
  // After: every relocation refers to output symbols, offsets and `.file` numbers.
  E.mapRelocations();
  // After: the ABI records the output needs (all of them for -r).
  E.copyAbiRecords();
  Result.Origin = E.takeOrigins();
  // After: the calls whose argument or return-value alignment differs from the callee's agree with it.
  alignCallSiteParams(Out, [&Symtab, &Origin = Result.Origin](uint32_t O) -> CalleeAbi {
    if (O >= Origin.size() || Origin[O].Module >= Symtab.Modules.size())
      return {nullptr, nullptr};
    return {Symtab.Modules[Origin[O].Module].M, Symtab.functionAbi(Origin[O])};
  });
  return Result;
}

} // namespace ptxlink

