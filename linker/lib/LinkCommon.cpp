// Helpers every link pass uses: naming sites in diagnostics, demangling, following a reference to its
// definition, the ODR content hash, pass timing, and variant selection (pass 1).
#include "LinkContext.h"
#include "ptxlink/AbiCheck.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Format.h"

#include <cstring>
#include <xxhash.h>

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

void PassTimes::add(StringRef Pass, StringRef Arch, std::chrono::steady_clock::time_point Start) {
  double Ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  Entries.push_back({Pass.str(), Arch.str(), Ms});
}

void PassTimes::printCsv(raw_ostream &OS, bool Headings) const {
  double Total = 0;
  if (Headings)
    OS << "pass,arch,milliseconds\n";
  for (const Entry &E : Entries) {
    Total += E.Millis;
    OS << E.Pass << ',' << E.Arch << ',' << format("%.3f", E.Millis) << '\n';
  }
  OS << "total,," << format("%.3f", Total) << '\n';
}

/// A variant's architecture as the "no variant usable" diagnostics name it. A module assembled without a
/// `.target` directive (the assembler warns, ptxas refuses it) has no architecture and suits none.
static std::string variantArchWords(StringRef Arch) {
  return Arch.empty() ? std::string("no .target") : Arch.str();
}

ArchLink::ArchLink(const LinkOptions &Options, ArrayRef<InputFile> Inputs, Target Arch, DiagnosticEngine &Diags,
                   PassTimes &Times)
    : Options(Options), Inputs(Inputs), Arch(Arch), Diags(Diags), Times(Times) {}

bool ArchLink::selectVariants() {
  PassTimes::Scope Timed = Times.scope("select variants", Arch.name());
  bool Ok = true;
  Modules.clear();
  // Inputs without a usable variant, grouped by the targets they do have (in order of first appearance).
  std::vector<std::pair<std::string, std::vector<uint32_t>>> Unusable;
  for (uint32_t I = 0; I < Inputs.size(); ++I) {
    const ObjectFile &Obj = *Inputs[I].Object;
    const std::optional<HostOrigin> &Host = Inputs[I].Host;
    if (Obj.Variants.empty() && !Host)
      continue; // an empty module (e.g. only comments) contributes nothing
    int V = selectVariant(Obj, Arch);
    if (V < 0 && Host && Options.Dlto && !Host->LtoIrArches.empty())
      continue; // LTO-IR only: nvJitLink links it (LtoLink.h); checkLtoInputs said what is not checked
    if (V < 0 && Host) {
      // An nvcc object compiled without PTX for this arch: say which option keeps it.
      std::vector<DiagSite> Sites;
      for (const ModuleVariant &MV : Obj.Variants)
        Sites.push_back({MV.Target.Arch.empty() ? std::string("has PTX without a .target directive")
                                                : "has PTX for " + MV.Target.Arch.str()});
      for (const std::string &A : Host->CubinArches)
        Sites.push_back({"has SASS only for " + A + " (ptxlink links PTX)"});
      for (const std::string &A : Host->LtoIrArches)
        Sites.push_back({"has LTO-IR only for " + A + " (nvcc -dlto; ptxlink links PTX)"});
      std::string Number = Arch.name().substr(3); // "90a"
      // PTX kept, but for a newer architecture only: PTX runs on its own architecture and newer ones, so
      // the advice is about the architecture compiled for, not about keeping PTX.
      bool NewerPtxOnly = !Obj.Variants.empty() && llvm::all_of(Obj.Variants, [&](const ModuleVariant &MV) {
        auto A = parseArch(MV.Target.Arch);
        return A && A->name() != Arch.name();
      });
      std::string Advice =
          NewerPtxOnly ? " in this nvcc object: its PTX is for a newer architecture, which cannot run on " + Arch.name() +
                             "; link for that architecture, or compile for " + Arch.name() + " too, e.g. -gencode arch=compute_" +
                             Number + ",code=[sm_" + Number + ",compute_" + Number + "]"
                       : " in this nvcc object; compile it with PTX kept, e.g. -gencode arch=compute_" + Number + ",code=[sm_" +
                             Number + ",compute_" + Number + "]";
      Diags.error(Inputs[I].Name + ": no PTX usable for " + Arch.name() + Advice, std::move(Sites), "no-usable-variant");
      Ok = false;
      continue;
    }
    if (V < 0) {
      // The cause is the set of targets the input has; inputs with the same cause are reported together.
      SmallVector<StringRef, 4> Targets;
      for (const ModuleVariant &MV : Obj.Variants)
        if (!llvm::is_contained(Targets, MV.Target.Arch))
          Targets.push_back(MV.Target.Arch);
      // Inputs without a .target have the empty architecture; "" is their cause, said in words below.
      std::string Cause = join(map_range(Targets, variantArchWords), ", ");
      if (Targets.size() == 1 && Targets.front().empty())
        Cause.clear();
      auto It = llvm::find_if(Unusable, [&](const auto &U) { return U.first == Cause; });
      if (It == Unusable.end())
        Unusable.push_back({Cause, {I}});
      else
        It->second.push_back(I);
      Ok = false;
      continue;
    }
    LinkModule LM;
    LM.Input = I;
    LM.M = &Obj.Variants[V];
    LM.ObjectName = Inputs[I].Name;
    LM.Global.assign(LM.M->Symbols.size(), NoGlobal);
    LM.SectionLive.assign(LM.M->Sections.size(), 0);
    // The first record of a symbol counts (a valid object has at most one); a function's record over a
    // variable's (see AbiOf). Records in strictly increasing symbol order need no table.
    const bool Ordered = inSymbolOrder(LM.M->Functions) &&
                         inSymbolOrder(LM.M->Variables) &&
                         LM.M->Functions.size() < LinkModule::VariableAbiTag &&
                         LM.M->Variables.size() < LinkModule::VariableAbiTag;
    if (!Ordered) {
      LM.AbiOf.assign(LM.M->Symbols.size(), LinkModule::NoAbi);
      for (uint32_t V = std::min<size_t>(LM.M->Variables.size(), LinkModule::VariableAbiTag - 1); V-- > 0;)
        if (uint32_t S = LM.M->Variables[V].Symbol; S < LM.AbiOf.size())
          LM.AbiOf[S] = LinkModule::VariableAbiTag | V;
      for (uint32_t F = std::min<size_t>(LM.M->Functions.size(), LinkModule::VariableAbiTag); F-- > 0;)
        if (uint32_t S = LM.M->Functions[F].Symbol; S < LM.AbiOf.size())
          LM.AbiOf[S] = F;
    }
    Modules.push_back(std::move(LM));
  }
  for (const auto &[Cause, Which] : Unusable) {
    if (Which.size() == 1) {
      // One input: its variants, one per line, each with the file it came from.
      const InputFile &In = Inputs[Which.front()];
      std::vector<DiagSite> Sites;
      for (const ModuleVariant &MV : In.Object->Variants)
        Sites.push_back(DiagSite::at(MV.Target.Arch.empty()
                                         ? std::string("has a variant without a .target directive, usable for "
                                                       "no architecture, from")
                                         : "has a variant for " + MV.Target.Arch.str() + " from",
                                     SiteLocation{MV.SourceName.empty() ? In.Name : MV.SourceName.str(), {}, ""}));
      Diags.error(In.Name + ": no variant usable for " + Arch.name(), std::move(Sites), "no-usable-variant");
      continue;
    }
    // Many inputs for one reason (a library built for another arch): said once, with the count and a
    // few of them, as lld lists a few references and counts the rest.
    constexpr size_t MaxSites = 3;
    std::vector<DiagSite> Sites;
    for (size_t K = 0; K < Which.size() && K < MaxSites; ++K)
      Sites.push_back(DiagSite::at("", SiteLocation{Inputs[Which[K]].Name, {}, ""}));
    if (Which.size() > MaxSites)
      Sites.push_back({"and " + std::to_string(Which.size() - MaxSites) + " more"});
    std::string Have = Cause.empty() ? std::string(" inputs have no .target directive")
                                     : " inputs have only " + Cause + " variants";
    Diags.error("no variant usable for " + Arch.name() + ": " + std::to_string(Which.size()) + Have,
                std::move(Sites), "no-usable-variant");
  }
  return Ok;
}

std::vector<const ModuleVariant *> ArchLink::selectedVariants() const {
  std::vector<const ModuleVariant *> Out;
  Out.reserve(Modules.size());
  for (const LinkModule &LM : Modules)
    Out.push_back(LM.M);
  return Out;
}

uint32_t ArchLink::aliaseeSection(SymRef R) const {
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

SourceLoc ArchLink::locationIn(uint32_t Module, uint32_t SecIdx, uint64_t Offset) const {
  const Section &S = Modules[Module].M->Sections[SecIdx];
  SourceLoc Rel = locate(S.contents(), Offset);
  const SourceLoc Where = Modules[Module].M->sectionWhere(S);
  if (!Where.isValid())
    return {};
  if (Rel.Line == 1)
    return SourceLoc{Where.Line, Where.Column + Rel.Column - 1};
  return SourceLoc{Where.Line + Rel.Line - 1, Rel.Column};
}

namespace {

bool isNameChar(char C) { return isAlnum(C) || C == '_' || C == '$' || C == '%' || C == '\x01'; }
bool isBlank(char C) { return C == ' ' || C == '\t' || C == '\r' || C == '\v' || C == '\f'; }

/// One line of a definition's text without comments, trimmed; Label is the label it defines, if any.
struct CanonLine {
  StringRef Label; // `name:` at the start of the line (`prototype_3 : .callprototype ...` too)
  StringRef Rest;  // what follows the label (or the whole line), trimmed
};

/// Splits Text into lines without comments (`//` to the end of the line, `/* ... */` anywhere; not inside
/// a string), keeping the ones that matter for the ODR comparison.
void canonicalLines(StringRef Text, std::vector<CanonLine> &Lines) {
  const char *P = Text.data(), *End = P + Text.size();
  bool InBlockComment = false;
  while (P < End) {
    const char *Eol = static_cast<const char *>(std::memchr(P, '\n', size_t(End - P)));
    const char *LineEnd = Eol ? Eol : End;
    // The line's text up to a comment. A block comment that spans lines blanks everything it covers
    // (nvcc never writes one inside a body; hand-written PTX might).
    const char *B = P, *E = LineEnd;
    if (InBlockComment) {
      size_t Close = StringRef(P, size_t(LineEnd - P)).find("*/");
      if (Close == StringRef::npos) {
        P = Eol ? Eol + 1 : End;
        continue;
      }
      InBlockComment = false;
      B = P + Close + 2;
    }
    bool InString = false;
    for (const char *Q = B; Q < E; ++Q) {
      if (*Q == '"')
        InString = !InString;
      else if (!InString && *Q == '/' && Q + 1 < E && (Q[1] == '/' || Q[1] == '*')) {
        if (Q[1] == '*') {
          // Text after a block comment that ends on this line is rare enough to be dropped with it.
          if (!StringRef(Q + 2, size_t(E - Q - 2)).contains("*/"))
            InBlockComment = true;
        }
        E = Q;
        break;
      }
    }
    P = Eol ? Eol + 1 : End;
    while (B < E && isBlank(*B))
      ++B;
    while (E > B && isBlank(E[-1]))
      --E;
    StringRef Line(B, size_t(E - B));
    if (Line.empty() || Line.starts_with(".loc"))
      continue;
    CanonLine L;
    L.Rest = Line;
    // A label definition: a name, optional blanks, and one ':' (not the '::' of `.shared::cta`).
    size_t N = 0;
    while (N < Line.size() && isNameChar(Line[N]))
      ++N;
    size_t C = N;
    while (C < Line.size() && isBlank(Line[C]))
      ++C;
    if (N > 0 && C < Line.size() && Line[C] == ':' && (C + 1 == Line.size() || Line[C + 1] != ':')) {
      L.Label = Line.take_front(N);
      L.Rest = Line.drop_front(C + 1).ltrim(" \t");
    }
    Lines.push_back(L);
  }
}

/// A name with what nvcc numbers per translation unit taken out: its module tag
/// `<8 hex>_<N>_<N characters of the file name>_<8 hex>` becomes `#` (with the mangled length in front of
/// an `_INTERNAL_` or after `__nv_static_`, which counts the tag), and a `$<digits>` suffix becomes `$`.
/// Two copies of one inline function from two .cu files then read the same.
std::string withoutModuleNumbering(StringRef Name) {
  auto isHex8 = [](StringRef S) { return S.size() >= 8 && llvm::all_of(S.take_front(8), llvm::isHexDigit); };
  std::string Out;
  for (size_t I = 0; I < Name.size();) {
    // A tag starts at an 8-hex run preceded by '_'.
    if (I > 0 && Name[I - 1] == '_' && isHex8(Name.substr(I)) && I + 9 < Name.size() && Name[I + 8] == '_') {
      size_t J = I + 9, Digits = J;
      while (J < Name.size() && llvm::isDigit(Name[J]))
        ++J;
      unsigned Len = 0;
      if (J > Digits && J < Name.size() && Name[J] == '_' && !Name.slice(Digits, J).getAsInteger(10, Len) &&
          J + 1 + Len + 9 <= Name.size() && Name[J + 1 + Len] == '_' && isHex8(Name.substr(J + 2 + Len))) {
        // Drop a length that counts the tag: "34" in `_ZN34_INTERNAL_<tag>`, "25" in `__nv_static_25__<tag>`.
        StringRef Before(Out);
        if (Before.ends_with("_INTERNAL_") || Before.ends_with("__")) {
          size_t Cut = Before.ends_with("_INTERNAL_") ? Before.size() - 10 : Before.size() - 2;
          size_t D = Cut;
          while (D > 0 && llvm::isDigit(Before[D - 1]))
            --D;
          Out.erase(D, Cut - D);
        }
        Out += '#';
        I = J + 2 + Len + 8;
        continue;
      }
    }
    Out += Name[I++];
  }
  size_t Dollar = Out.rfind('$');
  if (Dollar != std::string::npos && Dollar + 1 < Out.size() &&
      llvm::all_of(StringRef(Out).drop_front(Dollar + 1), llvm::isDigit))
    Out.resize(Dollar + 1);
  return Out;
}

} // namespace

bool ArchLink::splicedText(SymRef R, std::string &Text) const {
  Text.clear();
  const ModuleVariant &M = *Modules[R.Module].M;
  uint32_t Sec = definingSection(R);
  if (Sec == NoSection)
    return false;
  const Section &S = M.Sections[Sec];
  // Splice in normalised names: the definition's own name and module-local names may legitimately
  // differ between copies; names of other visible symbols may not.
  Text.reserve(S.contents().size());
  uint64_t Pos = 0;
  for (const Relocation &Rel : M.relocs(S)) {
    if (Rel.Kind != RelocKind::NameRef || Rel.Offset < Pos || uint64_t(Rel.Offset) + Rel.Length > S.contents().size())
      continue;
    Text.append(S.contents().data() + Pos, Rel.Offset - Pos);
    if (Rel.Symbol < M.Symbols.size() && Modules[R.Module].Global[Rel.Symbol] != NoGlobal &&
        M.Symbols[Rel.Symbol].name() != M.Symbols[R.Symbol].name())
      Text += M.Symbols[Rel.Symbol].name();
    else
      Text += "\x01local";
    Pos = uint64_t(Rel.Offset) + Rel.Length;
  }
  Text.append(S.contents().data() + Pos, S.contents().size() - Pos);
  return true;
}

uint64_t ArchLink::normalisedHash(StringRef Text) {
  // What the compiler numbers per module is not part of the definition (docs/linker.md, "The ODR
  // comparison"). Under -G, nvcc also names the module's file-internal helpers and static variables with
  // a tag of the translation unit (`_ZN34_INTERNAL_0bbeeb79_4_a_cu_f2af935b...`, `__nv_static_25__<tag>`,
  // `_GLOBAL__N__<tag>`) and numbers per module the weak placeholders a kernel's address is taken
  // through (`<kernel>$51`): both lose their numbering (withoutModuleNumbering). nvcc numbers branch labels by the function's position in its module ($L__BB3_7),
  // the local stack array (__local_depot3), call sequences (`// callseq 12`) and call prototypes
  // (prototype_5), and a -G copy adds `.loc` lines (whose file numbers are per module too) and labels
  // only its DWARF refers to ($L__tmp12, $L__func_begin4). So: comments and `.loc` lines go; a label
  // that the body uses is replaced by its number in order of first appearance, one it never uses goes
  // with its definition; `__local_depotN` loses N; runs of blanks count as one. What is left is the code
  // and its control flow, which must be the same.
  std::vector<CanonLine> Lines;
  canonicalLines(Text, Lines);
  SmallDenseMap<StringRef, uint32_t, 16> LabelNumber; // defined label -> 0 (unused) or 1 + its number
  // (A label the DWARF refers to was spliced to the local marker above: it is never numbered.)
  for (const CanonLine &L : Lines)
    if (!L.Label.empty() && L.Label[0] != '\x01')
      LabelNumber.try_emplace(L.Label, 0);
  uint32_t NextLabel = 0;
  auto numberOf = [&](StringRef Name) -> uint32_t {
    auto It = LabelNumber.find(Name);
    if (It == LabelNumber.end())
      return 0;
    if (It->second == 0)
      It->second = ++NextLabel;
    return It->second;
  };
  // Which labels the body uses (a use may come before the definition: a forward branch).
  DenseSet<StringRef> Used;
  for (const CanonLine &L : Lines)
    for (size_t I = 0; I < L.Rest.size();) {
      if (!isNameChar(L.Rest[I])) {
        ++I;
        continue;
      }
      size_t J = I;
      while (J < L.Rest.size() && isNameChar(L.Rest[J]))
        ++J;
      StringRef Name = L.Rest.slice(I, J);
      if (LabelNumber.count(Name))
        Used.insert(Name);
      I = J;
    }
  std::string Normal;
  Normal.reserve(Text.size());
  auto appendName = [&](StringRef Name) {
    if (Used.contains(Name)) {
      Normal += "\x02L";
      Normal += std::to_string(numberOf(Name));
    } else if (Name.starts_with("__local_depot") && Name.size() > 13 &&
               llvm::all_of(Name.drop_front(13), [](char C) { return isDigit(C); })) {
      Normal += "__local_depot";
    } else if (Name.contains("_INTERNAL_") || Name.contains("__nv_static_") || Name.contains("_GLOBAL__N__") ||
               Name.contains('$')) {
      Normal += withoutModuleNumbering(Name);
    } else {
      Normal += Name;
    }
  };
  for (const CanonLine &L : Lines) {
    if (!L.Label.empty()) {
      if (!Used.contains(L.Label) && L.Rest.empty())
        continue; // a label only debug data refers to ($L__tmp), or none at all
      if (Used.contains(L.Label)) {
        appendName(L.Label);
        Normal += ':';
      }
    }
    bool Blank = false;
    for (size_t I = 0; I < L.Rest.size();) {
      char C = L.Rest[I];
      if (isBlank(C)) {
        Blank = true;
        ++I;
        continue;
      }
      if (Blank && !Normal.empty() && Normal.back() != '\n')
        Normal += ' ';
      Blank = false;
      if (!isNameChar(C)) {
        Normal += C;
        ++I;
        continue;
      }
      size_t J = I;
      while (J < L.Rest.size() && isNameChar(L.Rest[J]))
        ++J;
      appendName(L.Rest.slice(I, J));
      I = J;
    }
    Normal += '\n';
  }
  return XXH3_64bits(Normal.data(), Normal.size());
}

const FunctionAbi *ArchLink::functionAbi(SymRef R) const {
  const LinkModule &LM = Modules[R.Module];
  if (LM.AbiOf.empty())
    return bySymbol(LM.M->Functions, R.Symbol);
  uint32_t F = R.Symbol < LM.AbiOf.size() ? LM.AbiOf[R.Symbol] : LinkModule::NoAbi;
  return F & LinkModule::VariableAbiTag ? nullptr : &LM.M->Functions[F]; // NoAbi has the tag bit too
}

const VariableAbi *ArchLink::variableAbi(SymRef R) const {
  const LinkModule &LM = Modules[R.Module];
  if (LM.AbiOf.empty())
    return bySymbol(LM.M->Functions, R.Symbol) ? nullptr : bySymbol(LM.M->Variables, R.Symbol);
  uint32_t V = R.Symbol < LM.AbiOf.size() ? LM.AbiOf[R.Symbol] : LinkModule::NoAbi;
  return V == LinkModule::NoAbi || !(V & LinkModule::VariableAbiTag)
             ? nullptr
             : &LM.M->Variables[V & ~LinkModule::VariableAbiTag];
}

} // namespace ptxlink
