// The ODR hash of a weak definition: its text with names the link may rename replaced by a marker, then
// normalised modulo what nvcc numbers per module (OdrHash.h says what exactly), then hashed. Run by the
// assembler for every section that defines a weak symbol, and by a link that writes an object for a
// section whose hash it cannot carry over; never by the resolver, which compares the recorded numbers.
#include "ptxlink/OdrHash.h"
#include "ptxlink/PtxChars.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>
#include <xxhash.h>

using namespace llvm;

namespace ptxlink {

namespace {

// The characters of a name in the normalisation: PTX identifiers (PtxChars.h), register names (`%r1`),
// and the marker byte that stands for a replaced name.
constexpr bool isNameChar(char C) { return isIdentChar(C) || C == '%' || C == '\x01'; }
constexpr bool isBlank(char C) { return C == ' ' || C == '\t' || C == '\r' || C == '\v' || C == '\f'; }
// The same as tables, for the loops over every byte of a definition.
template <bool (*Is)(char)> constexpr std::array<bool, 256> charTable() {
  std::array<bool, 256> T{};
  for (unsigned C = 0; C < 256; ++C)
    T[C] = Is(static_cast<char>(C));
  return T;
}
constexpr std::array<bool, 256> NameChar = charTable<isNameChar>(), Blank = charTable<isBlank>();

/// One line of a definition's text without comments, trimmed; Label is the label it defines, if any.
struct CanonLine {
  StringRef Label; // `name:` at the start of the line (`prototype_3 : .callprototype ...` too)
  StringRef Rest;  // what follows the label (or the whole line), trimmed
};

/// Splits Text into lines without comments (`//` to the end of the line, `/* ... */` anywhere; not inside
/// a string), keeping the ones that matter: no empty lines and no `.loc` lines.
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
void appendWithoutModuleNumbering(StringRef Name, std::string &Normal) {
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
  Normal += Out;
}

/// The normalised text's hash (OdrHash.h): what the compiler numbers per module is not part of the
/// definition. nvcc numbers branch labels by the function's position in its module ($L__BB3_7), the local
/// stack array (__local_depot3), call sequences (`// callseq 12`) and call prototypes (prototype_5); a -G
/// copy adds `.loc` lines (whose file numbers are per module too) and labels only its DWARF refers to
/// ($L__tmp12, $L__func_begin4); under -G nvcc also names the module's file-internal helpers and statics
/// with a tag of the translation unit and numbers per module the weak placeholders a kernel's address is
/// taken through (`<kernel>$51`). So: comments and `.loc` lines go; a label that the body uses is replaced
/// by its number in order of first appearance, one it never uses goes with its definition;
/// `__local_depotN` loses N; tagged and `$N` names lose their numbering; runs of blanks count as one.
uint64_t normalisedHash(StringRef Text) {
  std::vector<CanonLine> Lines;
  canonicalLines(Text, Lines);
  struct LabelState {
    bool Used = false;
    uint32_t Number = 0; // 0 until first printed
  };
  SmallDenseMap<StringRef, LabelState, 16> Labels;
  // Whether a name may be a defined label, by its first byte: nearly every name of a body is a register
  // or an opcode part, which no label starts like, so most need no look-up.
  std::array<bool, 256> LabelStart{};
  // (A label the DWARF refers to was replaced by the marker: it is never numbered.)
  for (const CanonLine &L : Lines)
    if (!L.Label.empty() && L.Label[0] != '\x01') {
      Labels.try_emplace(L.Label);
      LabelStart[static_cast<unsigned char>(L.Label[0])] = true;
    }
  auto labelOf = [&](StringRef Name) -> LabelState * {
    if (!LabelStart[static_cast<unsigned char>(Name[0])])
      return nullptr;
    auto It = Labels.find(Name);
    return It == Labels.end() ? nullptr : &It->second;
  };
  // Which labels the body uses (a use may come before the definition: a forward branch). Only a name
  // that starts like a label is looked at.
  if (!Labels.empty())
    for (const CanonLine &L : Lines) {
      const char *P = L.Rest.begin(), *E = L.Rest.end();
      while (P < E) {
        if (!NameChar[static_cast<unsigned char>(*P)]) {
          ++P;
          continue;
        }
        const char *T = P++;
        while (P < E && NameChar[static_cast<unsigned char>(*P)])
          ++P;
        if (LabelStart[static_cast<unsigned char>(*T)])
          if (LabelState *S = labelOf(StringRef(T, size_t(P - T))))
            S->Used = true;
      }
    }
  uint32_t NextLabel = 0;
  std::string Normal;
  Normal.reserve(Text.size());
  auto appendLabel = [&](LabelState &S) {
    if (S.Number == 0)
      S.Number = ++NextLabel;
    char Buf[16] = {'\x02', 'L'};
    size_t N = 2;
    char Digits[12];
    size_t D = 0;
    for (uint32_t V = S.Number; V; V /= 10)
      Digits[D++] = char('0' + V % 10);
    while (D)
      Buf[N++] = Digits[--D];
    Normal.append(Buf, N);
  };
  for (const CanonLine &L : Lines) {
    if (!L.Label.empty()) {
      LabelState *S = labelOf(L.Label);
      const bool Used = S && S->Used;
      if (!Used && L.Rest.empty())
        continue; // a label only debug data refers to ($L__tmp), or none at all
      if (Used) {
        appendLabel(*S);
        Normal += ':';
      }
    }
    // The line is copied in runs: only a run of blanks (one blank) and a name that is a used label or
    // holds a '_' or '$' (the numbered forms) can differ from the text. (The line is trimmed, so a run of
    // blanks always has text after it.)
    const char *P = L.Rest.begin(), *E = L.Rest.end(), *Run = P;
    while (P < E) {
      const unsigned char C = static_cast<unsigned char>(*P);
      if (Blank[C]) {
        Normal.append(Run, P);
        while (P < E && Blank[static_cast<unsigned char>(*P)])
          ++P;
        Normal += ' ';
        Run = P;
        continue;
      }
      if (!NameChar[C]) {
        ++P;
        continue;
      }
      const char *T = P++;
      bool Numbered = C == '_' || C == '$';
      while (P < E && NameChar[static_cast<unsigned char>(*P)]) {
        Numbered |= *P == '_' || *P == '$';
        ++P;
      }
      const StringRef Name(T, size_t(P - T));
      if (LabelStart[C])
        if (LabelState *S = labelOf(Name); S && S->Used) {
          Normal.append(Run, T);
          appendLabel(*S);
          Run = P;
          continue;
        }
      if (!Numbered)
        continue;
      if (Name.starts_with("__local_depot") && Name.size() > 13 &&
          llvm::all_of(Name.drop_front(13), [](char D) { return isDigit(D); })) {
        Normal.append(Run, T);
        Normal += "__local_depot";
        Run = P;
      } else if (Name.contains("_INTERNAL_") || Name.contains("__nv_static_") || Name.contains("_GLOBAL__N__") ||
                 Name.contains('$')) {
        Normal.append(Run, T);
        appendWithoutModuleNumbering(Name, Normal);
        Run = P;
      }
    }
    Normal.append(Run, E);
    Normal += '\n';
  }
  return XXH3_64bits(Normal.data(), Normal.size());
}

/// A symbol a link resolves across modules by its name (the resolver's rule).
bool isVisible(const Symbol &S) {
  return S.Bind != Binding::Local && S.Kind != SymbolKind::Label && S.Kind != SymbolKind::Section;
}

} // namespace

uint64_t odrHash(const ModuleVariant &V, uint32_t Index) {
  const Section &S = V.Sections[Index];
  const StringRef Contents = S.contents();
  const StringRef Own = S.Symbol < V.Symbols.size() ? V.Symbols[S.Symbol].name() : StringRef();
  std::string Text;
  Text.reserve(Contents.size());
  uint64_t Pos = 0;
  for (const Relocation &Rel : V.relocs(S)) {
    if (Rel.Kind != RelocKind::NameRef || Rel.Offset < Pos || uint64_t(Rel.Offset) + Rel.Length > Contents.size())
      continue;
    Text.append(Contents.data() + Pos, Rel.Offset - Pos);
    if (Rel.Symbol < V.Symbols.size() && isVisible(V.Symbols[Rel.Symbol]) && V.Symbols[Rel.Symbol].name() != Own)
      Text += V.Symbols[Rel.Symbol].name();
    else
      Text += "\x01local";
    Pos = uint64_t(Rel.Offset) + Rel.Length;
  }
  Text.append(Contents.data() + Pos, Contents.size() - Pos);
  return normalisedHash(Text);
}

void recordOdrHash(ModuleVariant &V, uint32_t Index) {
  const Section &S = V.Sections[Index];
  if (S.Symbol >= V.Symbols.size() || V.Symbols[S.Symbol].Bind != Binding::Weak ||
      (S.Kind != SectionKind::Function && S.Kind != SectionKind::Variable))
    return;
  assert((V.odrHashes().empty() || V.odrHashes().back().Section < Index) && "hashes are recorded in section order");
  V.facts().OdrHashes.push_back({Index, odrHash(V, Index)});
}

} // namespace ptxlink
