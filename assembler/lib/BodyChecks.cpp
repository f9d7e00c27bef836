// Branch-target and register checks of function bodies (BodyChecks.h).
//
// One pass over the body's bytes with just enough statement structure: a statement starts after `;`, `{`
// or `}`; its first word is a label (`name:`), a directive or the opcode; declarations (`.reg`, `.local`,
// `.param`, ...) name what they declare; every other `%name` is a use. Blocks are not scoped: a name
// declared anywhere in the function counts as declared everywhere in it, which can only make the check
// accept more (ptxas stays the judge of the rest).
#include "BodyChecks.h"
#include "ByteScan.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <array>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace llvm;

namespace ptxlink {

namespace {

/// What a byte is to the check's name loops, from a table: isAlnum's chain of compares per byte was a fifth
/// of the check, which reads every register name and opcode of a body (ptxlink-as of a 7 MB nvcc module).
enum ByteClass : uint8_t {
  NameByte = 1,  // continues a name: letters, digits, '_', '$'
  DigitByte = 2, // '0'-'9'
  DotByte = 4,   // '.': continues a directive, an opcode's modifiers
  ColonByte = 8, // ':': inside an opcode's modifiers (`.shared::cta`)
  StartByte = 16 // starts a name: letters, '_', '$', '%'
};
constexpr std::array<uint8_t, 256> byteClasses() {
  std::array<uint8_t, 256> T{};
  for (unsigned C = 0; C < 256; ++C) {
    const bool Letter = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z'), Digit = C >= '0' && C <= '9';
    if (Letter || Digit || C == '_' || C == '$')
      T[C] |= NameByte;
    if (Digit)
      T[C] |= DigitByte;
    if (Letter || C == '_' || C == '$' || C == '%')
      T[C] |= StartByte;
  }
  T['.'] |= DotByte;
  T[':'] |= ColonByte;
  return T;
}
uint8_t byteClass(char C) {
  static constexpr std::array<uint8_t, 256> Classes = byteClasses();
  return Classes[static_cast<unsigned char>(C)];
}
bool startsPtxName(char C) { return byteClass(C) & StartByte; }
bool continuesPtxName(char C) { return byteClass(C) & NameByte; }

/// PTX's special registers (PTX ISA "Special Registers"), by the name before any `.x`-style suffix.
bool isSpecialRegister(StringRef Name) {
  bool Fixed = StringSwitch<bool>(Name)
                   .Cases("%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", true)
                   .Cases("%nsmid", "%gridid", "%is_explicit_cluster", "%clusterid", "%nclusterid", true)
                   .Cases("%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", true)
                   .Cases("%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", true)
                   .Cases("%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", true)
                   .Cases("%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap", true)
                   .Cases("%reserved_smem_offset_0", "%reserved_smem_offset_1", "%total_smem_size", true)
                   .Cases("%aggr_smem_size", "%dynamic_smem_size", "%current_graph_exec", true)
                   .Default(false);
  if (Fixed)
    return true;
  // Numbered families: %envreg0..31, %pm0..7 and %pm0_64..%pm7_64.
  StringRef Rest = Name;
  if (Rest.consume_front("%envreg"))
    return !Rest.empty() && all_of(Rest, isDigit);
  if (Rest.consume_front("%pm")) {
    Rest.consume_back("_64");
    return Rest.size() == 1 && isDigit(Rest[0]);
  }
  return false;
}

struct Use {
  StringRef Name;
  size_t Offset;
};

/// The next byte at or after I (before End) that matters inside an instruction's operands: ';' (the end),
/// '%' (a register), '/' (a comment) or '"'. Everything else (opcode-free operand text: numbers, names,
/// brackets, vector braces, commas) is skipped 16 bytes at a time; this is most of a body's bytes.
size_t nextOperandByteThatMatters(const char *B, size_t I, size_t End) {
#if defined(__SSE2__)
  const __m128i Semi = _mm_set1_epi8(';'), Pct = _mm_set1_epi8('%'), Slash = _mm_set1_epi8('/'), Quote = _mm_set1_epi8('"');
  while (I + 16 <= End) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(B + I));
    __m128i Hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(V, Semi), _mm_cmpeq_epi8(V, Pct)),
                               _mm_or_si128(_mm_cmpeq_epi8(V, Slash), _mm_cmpeq_epi8(V, Quote)));
    if (unsigned M = static_cast<unsigned>(_mm_movemask_epi8(Hit)))
      return I + static_cast<unsigned>(__builtin_ctz(M));
    I += 16;
  }
#endif
  while (I < End && B[I] != ';' && B[I] != '%' && B[I] != '/' && B[I] != '"')
    ++I;
  return I;
}

} // namespace

void checkFunctionBody(StringRef Text, const PtxFunction &F, const FunctionSignature &Abi,
                       function_ref<bool(StringRef)> IsModuleName, SourceDiags &Diags) {
  const char *B = Text.data();
  size_t I = F.BodyBegin + 1, End = F.End - 1;
  SmallVector<StringRef, 16> Labels;
  SmallVector<StringRef, 16> Declared; // names declared without a range (few: most registers are `%r<N>`)
  struct Range {
    StringRef Prefix;
    uint64_t Count;
    size_t At;
  };
  SmallVector<Range, 8> Ranges;   // `%r<5>`: {"%r", 5}; the largest declaration of each prefix
  SmallVector<Use, 16> Targets;   // branch targets
  SmallVector<Use, 16> Registers; // `%name` uses not covered by a range when seen (checked at the end)
  for (const auto *List : {&Abi.Returns, &Abi.Params})
    for (const ParamInfo &P : *List)
      if (!P.name().empty())
        Declared.push_back(P.name());

  auto readName = [&](size_t S) {
    size_t J = S + 1;
    while (J < End && continuesPtxName(B[J]))
      ++J;
    return J;
  };
  // A `%name` (at S) to its end, and where the digits that end it start (its end if none; never before
  // S + 1): one pass for both, since every register use needs both.
  auto readRegister = [&](size_t S, size_t &DigitsAt) {
    size_t J = S + 1;
    DigitsAt = J;
    for (; J < End; ++J) {
      const uint8_t K = byteClass(B[J]);
      if (!(K & NameByte))
        break;
      if (!(K & DigitByte))
        DigitsAt = J + 1;
    }
    return J;
  };
  // A register use [S, Stop), its digits from DigitsAt: covered by a range seen so far (the usual case:
  // declarations come first), or kept for the check at the end.
  size_t LastRange = 0;
  auto useRegister = [&](size_t S, size_t DigitsAt, size_t Stop) {
    if (DigitsAt < Stop && Stop - DigitsAt <= 9 && !Ranges.empty()) {
      const size_t PrefixSize = DigitsAt - S;
      uint64_t Index = 0;
      for (size_t K = DigitsAt; K < Stop; ++K)
        Index = Index * 10 + (B[K] - '0');
      auto Covers = [&](const Range &R) {
        // Prefixes are two or three bytes ("%r", "%rd"): compared inline, not through memcmp.
        if (R.Prefix.size() != PrefixSize || Index >= R.Count)
          return false;
        for (size_t K = 0; K < PrefixSize; ++K)
          if (R.Prefix[K] != B[S + K])
            return false;
        return true;
      };
      if (LastRange < Ranges.size() && Covers(Ranges[LastRange]))
        return;
      for (size_t K = 0; K < Ranges.size(); ++K)
        if (Covers(Ranges[K])) {
          LastRange = K;
          return;
        }
    }
    Registers.push_back({Text.slice(S, Stop), S});
  };
  auto skipSpace = [&] {
    while (I < End) {
      char C = B[I];
      if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' || C == '\v')
        ++I;
      else if (C == '/' && I + 1 < End && B[I + 1] == '/')
        I = lineCommentEnd(B, I, End);
      else if (C == '/' && I + 1 < End && B[I + 1] == '*')
        I = blockCommentEnd(B, I, End);
      else
        return;
    }
  };
  auto skipString = [&] {
    for (++I; I < End && B[I] != '"' && B[I] != '\n'; ++I)
      if (B[I] == '\\')
        ++I;
    ++I;
  };
  // The rest of a statement whose words do not matter (a directive we do not read), to its ';'.
  auto skipStatement = [&] {
    while (I < End && B[I] != ';') {
      if (B[I] == '"')
        skipString();
      else if (B[I] == '/' && I + 1 < End && (B[I + 1] == '/' || B[I + 1] == '*'))
        skipSpace();
      else
        ++I;
    }
    ++I;
  };

  while (true) {
    skipSpace();
    if (I >= End)
      break;
    char C = B[I];
    if (C == '{' || C == '}' || C == ';') { // blocks, and empty statements
      ++I;
      continue;
    }
    if (C == '@' && I + 1 < End && B[I + 1] == '@') { // a legacy `@@DWARF` line
      while (I < End && B[I] != '\n')
        ++I;
      continue;
    }
    if (C == '@') { // a guard: `@%p`, `@!%p`, `@p`; the opcode follows
      ++I;
      skipSpace();
      if (I < End && B[I] == '!')
        ++I;
      skipSpace();
      if (I < End && startsPtxName(B[I])) {
        size_t S = I, DigitsAt;
        I = readRegister(S, DigitsAt);
        if (B[S] == '%')
          useRegister(S, DigitsAt, I);
      }
      continue;
    }
    if (C == '.') { // a directive
      size_t S = I++;
      while (I < End && (byteClass(B[I]) & (NameByte | DotByte)))
        ++I;
      StringRef Dir = Text.slice(S, I);
      StringRef Base = Dir.take_front(Dir.find('.', 1));
      if (Base == ".loc" || Base == ".file") { // no `;` ends these
        while (I < End && B[I] != '\n')
          ++I;
        continue;
      }
      bool IsDecl = Base == ".reg" || Base == ".local" || Base == ".shared" || Base == ".param" || Base == ".const" ||
                    Base == ".global" || Base == ".tex" || Base == ".sreg";
      if (!IsDecl && Base != ".branchtargets") {
        skipStatement(); // .pragma, .callprototype, .calltargets, ...
        continue;
      }
      // `.reg .b32 %r<5>, x;` / `.local .align 8 .b8 buf[16];` / `.branchtargets L1, L2;`: every name
      // that is not a type or directive is declared (or, for .branchtargets, a label used).
      bool ExpectName = true;
      while (I < End && B[I] != ';') {
        char D = B[I];
        if (D == '"') {
          skipString();
        } else if (D == '/' && I + 1 < End && (B[I + 1] == '/' || B[I + 1] == '*')) {
          skipSpace();
        } else if (D == '.') {
          ++I;
          while (I < End && (byteClass(B[I]) & (NameByte | DotByte)))
            ++I;
        } else if (isDigit(D)) {
          while (I < End && (byteClass(B[I]) & (NameByte | DotByte)))
            ++I;
        } else if (startsPtxName(D)) {
          size_t NS = I;
          I = readName(NS);
          StringRef Name = Text.slice(NS, I);
          if (!IsDecl) {
            Targets.push_back({Name, NS});
          } else if (ExpectName) {
            ExpectName = false;
            if (I < End && B[I] == '<') { // `%r<5>` declares %r0..%r4
              size_t J = I + 1;
              uint64_t N = 0;
              while (J < End && isDigit(B[J]) && N < (uint64_t(1) << 40))
                N = N * 10 + (B[J++] - '0');
              if (J < End && B[J] == '>') {
                auto It = llvm::find_if(Ranges, [&](const Range &R) { return R.Prefix == Name; });
                if (It == Ranges.end())
                  Ranges.push_back({Name, N, NS});
                else if (N > It->Count)
                  *It = Range{Name, N, NS};
                I = J + 1;
                continue;
              }
            }
            Declared.push_back(Name);
          }
        } else if (D == ',') {
          ExpectName = true;
          ++I;
        } else if (D == '=') { // an initializer: nothing more is declared
          skipStatement();
          --I;
        } else {
          ++I;
        }
      }
      ++I;
      continue;
    }
    if (!startsPtxName(C)) { // not PTX; ptxas will say so
      skipStatement();
      continue;
    }
    size_t S = I;
    I = readName(S);
    size_t J = I;
    while (J < End && (B[J] == ' ' || B[J] == '\t'))
      ++J;
    if (J < End && B[J] == ':' && !(J + 1 < End && B[J + 1] == ':')) { // a label
      Labels.push_back(Text.slice(S, I));
      I = J + 1;
      continue;
    }
    bool IsBranch = I - S == 3 && B[S] == 'b' && B[S + 1] == 'r' && B[S + 2] == 'a';
    while (I < End && (byteClass(B[I]) & (NameByte | DotByte | ColonByte)))
      ++I; // the opcode's modifiers
    if (IsBranch) {
      // `bra[.uni] target;`: the target is the last plain name.
      StringRef Target;
      size_t TargetAt = 0;
      while (I < End && B[I] != ';') {
        if (startsPtxName(B[I])) {
          size_t NS = I, DigitsAt;
          I = readRegister(NS, DigitsAt);
          if (B[NS] == '%')
            useRegister(NS, DigitsAt, I);
          else {
            Target = Text.slice(NS, I);
            TargetAt = NS;
          }
        } else if (B[I] == '/' || B[I] == '"') {
          skipStatement();
          --I;
        } else {
          ++I;
        }
      }
      ++I;
      if (!Target.empty())
        Targets.push_back({Target, TargetAt});
      continue;
    }
    // Operands: only registers (and the statement's end) matter.
    while (true) {
      I = nextOperandByteThatMatters(B, I, End);
      if (I >= End)
        break;
      char D = B[I];
      if (D == ';') {
        ++I;
        break;
      }
      if (D == '%') {
        size_t NS = I, DigitsAt;
        I = readRegister(NS, DigitsAt);
        if (I > NS + 1)
          useRegister(NS, DigitsAt, I);
        continue;
      }
      if (D == '"')
        skipString();
      else if (I + 1 < End && (B[I + 1] == '/' || B[I + 1] == '*'))
        skipSpace();
      else
        ++I;
    }
  }

  // A walk of the list for the usual handful of names; a set where a function has many: nvcc -G code has
  // a label per line (214,069 in 20 functions of one file), and looking each branch target up among them
  // made reading such a module quadratic (4 s of a 14-object device link).
  constexpr size_t SetAbove = 32;
  DenseSet<StringRef> LabelSet, DeclaredSet;
  if (Labels.size() > SetAbove)
    LabelSet.insert(Labels.begin(), Labels.end());
  if (Declared.size() > SetAbove)
    DeclaredSet.insert(Declared.begin(), Declared.end());
  auto isDeclared = [&](StringRef Name) {
    return Declared.size() > SetAbove ? DeclaredSet.contains(Name) : llvm::is_contained(Declared, Name);
  };
  auto isLabel = [&](StringRef Name) {
    return Labels.size() > SetAbove ? LabelSet.contains(Name) : llvm::is_contained(Labels, Name);
  };
  auto rangeOf = [&](StringRef Prefix) -> const Range * {
    auto It = llvm::find_if(Ranges, [&](const Range &R) { return R.Prefix == Prefix; });
    return It == Ranges.end() ? nullptr : &*It;
  };

  // Each name once, at its first use, in source order.
  const StringRef FunctionName = F.name(Text);
  std::vector<std::pair<size_t, std::string>> Problems;
  DenseSet<StringRef> Reported;
  for (const Use &T : Targets)
    if (!isLabel(T.Name) && !IsModuleName(T.Name) && Reported.insert(T.Name).second)
      Problems.push_back({T.Offset, ("branch target '" + T.Name + "' is not a label in function '" + FunctionName + "'").str()});
  for (const Use &R : Registers) {
    if (isDeclared(R.Name) || isSpecialRegister(R.Name) || IsModuleName(R.Name))
      continue;
    // `%r12` against `.reg .b32 %r<5>` (declared after the use, or out of range; ptxas reads `%r01` as %r1).
    StringRef Prefix = R.Name.rtrim("0123456789");
    StringRef Digits = R.Name.drop_front(Prefix.size());
    const Range *Decl = Digits.empty() || Digits.size() > 9 ? nullptr : rangeOf(Prefix);
    uint64_t Index = 0;
    if (Decl && !Digits.getAsInteger(10, Index) && Index < Decl->Count)
      continue;
    if (!Reported.insert(R.Name).second)
      continue;
    if (Decl) {
      SourceLoc DeclLoc = locate(Text, Decl->At);
      Problems.push_back({R.Offset, ("register '" + R.Name + "' is outside its declaration " + Prefix + "<" +
                                     Twine(Decl->Count) + "> at line " + Twine(DeclLoc.Line) + " (" +
                                     (Decl->Count ? (Prefix + "0 to " + Prefix + Twine(Decl->Count - 1)).str()
                                                  : std::string("no registers")) +
                                     ")")
                                        .str()});
    } else {
      Problems.push_back({R.Offset, ("register '" + R.Name + "' is not declared in function '" + FunctionName + "'").str()});
    }
  }
  llvm::stable_sort(Problems, [](const auto &A, const auto &B) { return A.first < B.first; });
  for (const auto &[Offset, Message] : Problems)
    Diags.errorAt(Offset, Message);
}

} // namespace ptxlink
