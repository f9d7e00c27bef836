// The body scanner: one pass over a function body's bytes that records every reference to a module-scope
// symbol or debug-referenced label, `.loc` file indices, and `.callprototype` / `.calltargets` data.
// Statement structure is tracked just enough to know whether an identifier is an opcode, a label, a
// declared local name or an operand, and which `{` opens a scope rather than a vector operand.
#include "BodyScanner.h"
#include "ByteScan.h"

#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace llvm;

namespace ptxlink {

namespace {
enum CharClass : uint8_t { Other, Space, Newline, Slash, Quote, Semi, LBrace, RBrace, Comma, Equal, At, Digit, Dot, Ident, Percent };

const std::array<uint8_t, 256> Classes = [] {
  std::array<uint8_t, 256> T{};
  for (int C = 0; C < 256; ++C) {
    if (C == ' ' || C == '\t' || C == '\r' || C == '\f' || C == '\v')
      T[C] = Space;
    else if ((C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' || C == '$')
      T[C] = Ident;
    else if (C >= '0' && C <= '9')
      T[C] = Digit;
  }
  T['\n'] = Newline;
  T['/'] = Slash;
  T['"'] = Quote;
  T[';'] = Semi;
  T['{'] = LBrace;
  T['}'] = RBrace;
  T[','] = Comma;
  T['='] = Equal;
  T['@'] = At;
  T['.'] = Dot;
  T['%'] = Percent;
  return T;
}();

const std::array<bool, 256> IdentTable = [] {
  std::array<bool, 256> T{};
  for (int C = 0; C < 256; ++C)
    T[C] = isIdentChar(static_cast<char>(C));
  return T;
}();

inline bool identChar(char C) { return IdentTable[static_cast<unsigned char>(C)]; }

/// ' ' or '\t', as one bit test rather than two compares and branches.
inline bool isSpaceOrTab(char C) {
  unsigned char U = static_cast<unsigned char>(C);
  return U <= ' ' && ((((uint64_t(1) << ' ') | (uint64_t(1) << '\t')) >> U) & 1);
}

/// Length of an identifier-like run at P (identifier chars plus `.x` and `::x` continuations, which
/// make opcodes such as `ld.param::entry.u32` and special registers such as `%tid.x` single tokens).
inline size_t wordEnd(const char *B, size_t I, size_t End) {
#if defined(__SSE2__)
  // Opcodes (`fma.rn.f32`, `ld.param.u64`) are the long words; take the common case - a run of identifier
  // characters and dots, each dot followed by an identifier character, not ending at ':' - 16 bytes at a
  // time, and leave everything else to the byte loop below.
  if (I + 16 <= End) {
    auto Set = [](char C) { return _mm_set1_epi8(C); };
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(B + I));
    __m128i L = _mm_or_si128(V, Set(0x20));
    __m128i Ident = _mm_or_si128(
        _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(L, Set('a' - 1)), _mm_cmplt_epi8(L, Set('z' + 1))),
                     _mm_and_si128(_mm_cmpgt_epi8(V, Set('0' - 1)), _mm_cmplt_epi8(V, Set('9' + 1)))),
        _mm_or_si128(_mm_cmpeq_epi8(V, Set('_')), _mm_cmpeq_epi8(V, Set('$'))));
    unsigned Id = static_cast<unsigned>(_mm_movemask_epi8(Ident));
    unsigned Dots = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(V, Set('.'))));
    unsigned Stop = ~(Id | Dots) & 0xFFFFu;
    if (Stop) {
      unsigned K = static_cast<unsigned>(__builtin_ctz(Stop));
      unsigned DotsIn = Dots & ((1u << K) - 1);
      if (!((DotsIn << 1) & ~Id) && B[I + K] != ':')
        return I + K;
    }
  }
#endif
  while (true) {
    while (I < End && identChar(B[I]))
      ++I;
    if (I + 1 < End && B[I] == '.' && identChar(B[I + 1])) {
      I += 1;
      continue;
    }
    if (I + 2 < End && B[I] == ':' && B[I + 1] == ':' && identChar(B[I + 2])) {
      I += 2;
      continue;
    }
    return I;
  }
}

} // namespace

BodyScanner::BodyScanner(StringRef Text, SourceDiags &Diags, const SymbolNameMap &SymMap,
                         ModelTable<Symbol> &Symbols, const std::vector<uint8_t> &IsFunctionLabel,
                         function_ref<uint32_t(StringRef)> SectionSymbolFor)
    : Text(Text), D(Diags), SymMap(SymMap), Symbols(Symbols), IsFunctionLabel(IsFunctionLabel),
      SectionSymbolFor(SectionSymbolFor) {
  for (const Symbol &S : Symbols) // every name SymMap knows
    if (!S.name().empty())
      FirstChar[static_cast<unsigned char>(S.name()[0])] = true;
  // ShadowCount is made on the first shadow: most modules have none (2 bytes per symbol otherwise, zeroed
  // up front: 2 MB for 10^6 functions, at ptxlink-as's peak).
}

LexPos BodyScanner::posAt(size_t Offset) {
  if (Offset < Known.Offset)
    Known = BodyStart;
  const char *B = Text.data();
  size_t From = Known.Offset;
  Known.Line += static_cast<uint32_t>(countNewlines(B + From, Offset - From));
  if (const void *Last = memrchr(B + From, '\n', Offset - From))
    Known.LineStart = static_cast<const char *>(Last) - B + 1;
  Known.Offset = Offset;
  return Known;
}

SourceLoc BodyScanner::locAt(size_t Offset) {
  LexPos P = posAt(Offset);
  return SourceLoc{P.Line, static_cast<uint32_t>(Offset - P.LineStart + 1)};
}

size_t BodyScanner::skipOperands(size_t I, size_t End) const {
  // Inside an instruction's operands only a few bytes matter: ';' '{' '}' '"' '/' and the first character
  // of a word that could begin a module-scope name. Registers, numbers, punctuation and whitespace are
  // skipped 16 bytes at a time. Returns the position of the next byte that matters (or where the vector
  // loop stopped); the caller's byte loop takes it from there.
#if defined(__SSE2__)
  const char *B = Text.data();
  if (I == 0)
    return I;
  auto Set = [](char C) { return _mm_set1_epi8(C); };
  const __m128i Semi = Set(';'), LB = Set('{'), RB = Set('}'), Q = Set('"'), SL = Set('/');
  const __m128i Und = Set('_'), Dol = Set('$'), Pct = Set('%'), Dot = Set('.');
  const __m128i A1 = Set('a' - 1), Z1 = Set('z' + 1), D0 = Set('0' - 1), D9 = Set('9' + 1), Low = Set(0x20);
  // Word characters are letters, digits and _ $ % . (the same set in both forms below). A word starts
  // where a word character follows a non-word one; the byte before each 16-byte block is carried over
  // from the previous block's mask instead of loading and classifying the block again one byte back.
  auto WordByte = [](unsigned char C) {
    unsigned char L = C | 0x20;
    return (L >= 'a' && L <= 'z') || (C >= '0' && C <= '9') || C == '_' || C == '$' || C == '%' || C == '.';
  };
  unsigned Prev = WordByte(static_cast<unsigned char>(B[I - 1])) ? 1u : 0u;
  // Register names (`%r1`) are most words in operands; without a module-scope name starting with '%'
  // their starts need no look at all.
  const bool PercentMatters = FirstChar['%'];
  while (I + 16 <= End) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(B + I));
    __m128i Special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(V, Semi), _mm_cmpeq_epi8(V, LB)),
                                   _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(V, RB), _mm_cmpeq_epi8(V, Q)),
                                                _mm_cmpeq_epi8(V, SL)));
    __m128i L = _mm_or_si128(V, Low);
    __m128i Letter = _mm_and_si128(_mm_cmpgt_epi8(L, A1), _mm_cmplt_epi8(L, Z1));
    __m128i Digit = _mm_and_si128(_mm_cmpgt_epi8(V, D0), _mm_cmplt_epi8(V, D9));
    __m128i Percent = _mm_cmpeq_epi8(V, Pct);
    __m128i Other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(V, Und), _mm_cmpeq_epi8(V, Dol)),
                                 _mm_or_si128(Percent, _mm_cmpeq_epi8(V, Dot)));
    unsigned Word = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(Letter, Digit), Other)));
    unsigned NotStart = static_cast<unsigned>(_mm_movemask_epi8(Digit));
    if (!PercentMatters)
      NotStart |= static_cast<unsigned>(_mm_movemask_epi8(Percent));
    unsigned Starts = Word & ~((Word << 1) | Prev) & ~NotStart & 0xFFFFu;
    unsigned SpecialMask = static_cast<unsigned>(_mm_movemask_epi8(Special));
    unsigned M = SpecialMask | Starts;
    while (M) {
      unsigned K = static_cast<unsigned>(__builtin_ctz(M));
      if ((SpecialMask >> K) & 1 || FirstChar[static_cast<unsigned char>(B[I + K])])
        return I + K;
      M &= M - 1;
    }
    Prev = (Word >> 15) & 1;
    I += 16;
  }
#endif
  (void)End;
  return I;
}

void BodyScanner::reference(uint32_t Sym, size_t Offset, uint32_t Length, bool Call, bool CallTarget) {
  const Symbol &S = Symbols[Sym];
  if (S.Kind == SymbolKind::Label && IsFunctionLabel[Sym]) {
    LabelUses.push_back({Sym, Offset, Length});
    return;
  }
  if (S.Kind == SymbolKind::Section)
    return; // a debug section name used as an operand is not something we rename
  if (Sym < ShadowCount.size() && ShadowCount[Sym])
    return;
  Relocs->push_back(Relocation{sectionOffset(Offset), Sym, RelocKind::NameRef, Length, 0});
  Relocs->back().CallSite = Call;
  Relocs->back().CallTargetSite = CallTarget;
}

void BodyScanner::declareLocal(uint32_t Sym) {
  if (ShadowCount.size() < Symbols.size())
    ShadowCount.resize(Symbols.size(), 0);
  if (ShadowCount[Sym] == UINT16_MAX)
    return;
  ++ShadowCount[Sym];
  ShadowStack.push_back({Sym, Depth});
}

void BodyScanner::declareLocalOrDebugName(uint32_t Sym, size_t Offset, std::optional<SourceLoc> Loc) {
  Symbol &S = Symbols[Sym];
  if (S.Kind != SymbolKind::Label) {
    declareLocal(Sym); // hides a module-scope name
    return;
  }
  if (!IsFunctionLabel[Sym])
    return;
  // A parameter or local variable that debug data refers to (DW_OP_addr of `__local_depot0`, `foo_param_0`):
  // the first function declaring it defines it; every declaration and use in that body is renamed with it.
  if (S.Section == NoSection) {
    S.Section = SectionIdx;
    S.setValue(Offset - Base);
    S.Where = Loc ? *Loc : locAt(Offset);
  }
  if (S.Section == SectionIdx)
    LabelUses.push_back({Sym, Offset, uint32_t(S.name().size())});
}

void BodyScanner::popScope() {
  while (!ShadowStack.empty() && ShadowStack.back().second >= Depth) {
    --ShadowCount[ShadowStack.back().first];
    ShadowStack.pop_back();
  }
}

bool BodyScanner::scanLoc(size_t &IRef, size_t End) {
  // `.loc file line col [, function_name label[+imm], inlined_at file line col]` up to the end of line.
  const char *B = Text.data();
  size_t I = IRef;
  auto SkipH = [&] {
    while (I < End && (B[I] == ' ' || B[I] == '\t' || B[I] == '\r'))
      ++I;
  };
  auto Fail = [&](const Twine &Msg) {
    D.error(I, locAt(I), Msg);
    while (I < End && B[I] != '\n')
      ++I;
    IRef = I;
    return false;
  };
  size_t LongFileIndex = 0; // the digits of a `.file` index spelled in more bytes than a relocation replaces
  auto Number = [&](bool IsFile) -> bool {
    SkipH();
    size_t S = I;
    while (I < End && isDigit(B[I]))
      ++I;
    if (I == S)
      return false;
    if (IsFile) {
      uint64_t V = 0;
      for (size_t K = S; K < I && V <= UINT32_MAX; ++K)
        V = V * 10 + uint64_t(B[K] - '0');
      if (V > UINT32_MAX)
        return false;
      if (I - S > MaxRelocationLength) {
        LongFileIndex = I - S;
        I = S;
        return false;
      }
      Relocs->push_back(Relocation{sectionOffset(S), uint32_t(V), RelocKind::FileIndex, uint32_t(I - S), 0});
    }
    return true;
  };
  if (!Number(true) || !Number(false) || !Number(false))
    return Fail(LongFileIndex ? "file index spelled in " + Twine(LongFileIndex) +
                                    " digits: a relocation replaces at most 16777215 bytes"
                              : Twine("malformed .loc directive: expected 'file line column'"));
  SkipH();
  if (I < End && B[I] == ',') {
    ++I;
    SkipH();
    size_t S = I;
    I = wordEnd(B, I, End);
    if (Text.slice(S, I) != "function_name")
      return Fail("expected 'function_name' in .loc directive");
    SkipH();
    S = I;
    if (I < End && B[I] == '.')
      ++I;
    I = wordEnd(B, I, End);
    if (I == S)
      return Fail("expected a label after 'function_name'");
    StringRef Name = Text.slice(S, I);
    uint32_t Sym = Name[0] == '.' ? NoSymbol : lookup(Name);
    if (Sym != NoSymbol)
      reference(Sym, S, uint32_t(I - S));
    size_t RefEnd = I, OffsetBegin = I;
    uint64_t Offset = 0;
    bool OffsetOk = true;
    SkipH();
    if (I < End && B[I] == '+') {
      ++I;
      SkipH();
      size_t NS = I;
      while (I < End && identChar(B[I]))
        ++I;
      if (NS == I)
        return Fail("expected an offset after '+' in .loc directive");
      OffsetOk = parseIntegerLiteral(Text.slice(NS, I), Offset);
      OffsetBegin = NS;
      RefEnd = I;
      SkipH();
    }
    // `.debug_str+16`: an offset in this module's own .debug_str, which moves when a link puts other
    // modules' strings before it (a label in the section moves with it and needs nothing).
    if (Name[0] == '.' && OffsetOk) {
      // A relocation's addend is 32-bit signed and its length 24 bits (ObjectModel.h).
      if (Offset > uint64_t(MaxRelocationAddend)) {
        I = OffsetBegin;
        return Fail("offset " + Twine(Offset) + " after '" + Name + "' is too large (at most 2^31 - 1)");
      }
      if (RefEnd - S > MaxRelocationLength) {
        I = S;
        return Fail("a debug section reference spelled in " + Twine(RefEnd - S) +
                    " bytes: a relocation replaces at most 16777215");
      }
      uint32_t SecSym = SectionSymbolFor(Name); // may add a symbol: ShadowCount is read with a bound
      if (SecSym != NoSymbol)
        Relocs->push_back(Relocation{sectionOffset(S), SecSym, RelocKind::SectionOffset, uint32_t(RefEnd - S),
                                     static_cast<int32_t>(Offset)});
    }
    if (I >= End || B[I] != ',')
      return Fail("expected ', inlined_at' in .loc directive");
    ++I;
    SkipH();
    S = I;
    I = wordEnd(B, I, End);
    if (Text.slice(S, I) != "inlined_at")
      return Fail("expected 'inlined_at' in .loc directive");
    if (!Number(true) || !Number(false) || !Number(false))
      return Fail("malformed .loc directive: expected 'inlined_at file line column'");
    SkipH();
  }
  if (I < End && B[I] != '\n' && !(B[I] == '/' && I + 1 < End && (B[I + 1] == '/' || B[I + 1] == '*')))
    return Fail("unexpected text after .loc directive");
  IRef = I;
  return true;
}

/// Where the scan is within the current statement: what the next identifier would be (opcode, label,
/// declared name, operand) and what a brace means there. Reset at every `;` and scope brace.
struct BodyScanner::Statement {
  bool AtStart = true;     // the next word is a label or an opcode
  bool Guard = false;      // after `@`: the next word is a predicate
  bool InVector = false;   // inside `{...}` of a vector operand
  bool ExpectName = false; // in a declaration, the next word is the name it declares
  bool InCall = false;     // the opcode is `call` (`call.uni`): a name operand is the callee
  Mode Md = Mode::Normal;
  int InitBrace = 0;       // braces open in a declaration's initializer
  StringRef LastLabel;     // the label just before this statement (a .callprototype's name)
  size_t LastLabelOffset = 0;

  /// A `;` or a `}` that closes a scope: the next word begins a statement.
  void endStatement() {
    AtStart = true;
    Md = Mode::Normal;
    InVector = Guard = ExpectName = InCall = false;
    LastLabel = StringRef();
  }
};

void BodyScanner::scan(const PtxFunction &F, const FunctionSignature &Abi, uint32_t SecIdx, uint32_t FuncSym, ModelTable<Relocation> &Out,
                       ModelTable<PrototypeAbi> &Protos, bool KeepStrings, ObjectFile &Obj) {
  // The steps of one body; each says what is fixed after it.
  startBody(F, SecIdx, Out);
  // Parameters hide module-scope names of the same spelling (or define the names debug data expects).
  declareParameters(Abi);
  size_t FirstProto = Protos.size();
  // Every statement read: references recorded in Out, labels defined, prototypes appended to
  // Protos; label uses and the names of local labels are still pending.
  scanStatements(F, FuncSym, Protos, KeepStrings, Obj);
  // Label uses kept where the label is defined in this body, references hidden by local labels dropped:
  // Out is complete.
  resolveLabelUses(F);
  // The scanner is ready for the next body, and this body's prototypes name their call targets.
  endBody(Protos, FirstProto);
}

void BodyScanner::startBody(const PtxFunction &F, uint32_t SecIdx, ModelTable<Relocation> &Out) {
  Base = F.Begin;
  SectionIdx = SecIdx;
  Relocs = &Out;
  Depth = 0;
  ShadowStack.clear();
  LabelUses.clear();
  LocalLabels.clear();
  PlainLabels.clear();
  CallTargets.clear();
  // From `.func`, not `{`: the record does not keep the line of `{`, and the header's lines are counted
  // only if a location in the body is needed (posAt).
  BodyStart = F.beginPos();
  Known = BodyStart;
}

void BodyScanner::declareParameters(const FunctionSignature &Abi) {
  // Parameter names are locals of the whole body (and may be what debug data points at).
  for (const auto *List : {&Abi.Returns, &Abi.Params})
    for (const ParamInfo &P : *List)
      if (!P.name().empty()) {
        uint32_t S = lookup(P.name());
        if (S != NoSymbol)
          declareLocalOrDebugName(S, static_cast<size_t>(P.name().data() - Text.data()), P.Where);
      }
}

// Inlined: called for every word of every operand list, and for every directive at a statement's start,
// from the byte loop, where a call with the statement state in memory costs more than the work (callgrind).
LLVM_ATTRIBUTE_ALWAYS_INLINE void BodyScanner::nameOperand(Statement &St, size_t Start, size_t Stop) {
  // A name operand spanning [Start, Stop): the name a declaration introduces (a local that may hide a
  // module-scope symbol, or a name the debug sections refer to), or a use of a module-scope symbol.
  uint32_t Sym = lookup(Text.slice(Start, Stop));
  if (St.Md == Mode::Decl && St.ExpectName) {
    St.ExpectName = false;
    if (Sym != NoSymbol)
      declareLocalOrDebugName(Sym, Start, std::nullopt);
    return;
  }
  if (Sym == NoSymbol)
    return;
  reference(Sym, Start, uint32_t(Stop - Start), St.InCall, St.Md == Mode::CallTargets);
  if (St.Md == Mode::CallTargets &&
      (Symbols[Sym].Kind == SymbolKind::Function || Symbols[Sym].Kind == SymbolKind::Kernel))
    CallTargets.push_back(Sym);
}

void BodyScanner::defineLabel(size_t Begin, size_t End) {
  // `name:` at the start of a statement. A label that debug data refers to is defined here; one spelled
  // like a module-scope symbol hides it in this body. Every other definition is recorded as a plain
  // label (ModuleVariant::PlainLabel), the fact a link needs to keep debug data's labels unique.
  StringRef Name = Text.slice(Begin, End);
  uint32_t Sym = lookup(Name);
  if (Sym == NoSymbol || Symbols[Sym].Kind != SymbolKind::Label || !IsFunctionLabel[Sym] ||
      Symbols[Sym].Section != NoSection)
    PlainLabels.push_back({SectionIdx, sectionOffset(Begin), uint32_t(End - Begin)});
  if (Sym == NoSymbol)
    return;
  SourceLoc Loc = locAt(Begin);
  Symbol &Sy = Symbols[Sym];
  if (Sy.Kind == SymbolKind::Label && IsFunctionLabel[Sym]) {
    if (Sy.Section == NoSection) {
      Sy.Section = SectionIdx;
      Sy.setValue(Begin - Base);
      Sy.Where = Loc;
      LabelUses.push_back({Sym, Begin, uint32_t(End - Begin)});
    } else if (Sy.Section == SectionIdx) {
      D.error(Begin, Loc, "duplicate label '" + Name + "'");
    } else {
      D.warning(Begin, Loc,
                "label '" + Name +
                    "' is referenced from debug data and defined in more than one function; "
                    "debug data refers to the first");
    }
  } else if (Sy.Kind != SymbolKind::Label) {
    LocalLabels.push_back(Sym);
  }
}

LLVM_ATTRIBUTE_ALWAYS_INLINE void BodyScanner::statementDirective(Statement &St, size_t Begin, size_t &I, size_t End,
                                                               uint32_t FuncSym, ModelTable<PrototypeAbi> &Protos,
                                                               bool KeepStrings, ObjectFile &Obj) {
  // A directive [Begin, I) that begins a statement decides how the rest of the statement is read.
  StringRef Dir = Text.slice(Begin, I);
  St.AtStart = false;
  St.Md = Mode::Skip;
  if (Dir == ".loc") {
    scanLoc(I, End);
    St.AtStart = true;
    St.Md = Mode::Normal;
  } else if (Dir == ".reg" || Dir == ".param" || Dir == ".local" || Dir == ".shared" || Dir == ".const" ||
             Dir == ".global" || Dir == ".tex" || Dir.starts_with(".reg.") || Dir.starts_with(".param.") ||
             Dir.starts_with(".local.") || Dir.starts_with(".shared.") || Dir.starts_with(".const.") ||
             Dir.starts_with(".global.")) {
    St.Md = Mode::Decl;
    St.ExpectName = true;
  } else if (Dir == ".calltargets") {
    St.Md = Mode::CallTargets;
  } else if (Dir == ".callprototype") {
    callPrototype(St, Begin, I, End, FuncSym, Protos, KeepStrings, Obj);
  }
}

void BodyScanner::callPrototype(Statement &St, size_t Begin, size_t &I, size_t End, uint32_t FuncSym,
                                ModelTable<PrototypeAbi> &Protos, bool KeepStrings, ObjectFile &Obj) {
  // `label: .callprototype (...) _ (...);` is parsed by the module parser's prototype reader and kept as
  // an ABI record named by the label.
  PtxCallPrototype P;
  LexPos After;
  LexPos Start = posAt(Begin);
  SourceLoc DirLoc{Start.Line, uint32_t(Begin - Start.LineStart + 1)};
  if (!parseCallPrototypeAt(Text.take_front(End), Start, D, P, After)) {
    // Reported; skip to the end of the statement.
    const char *B = Text.data();
    while (I < End && B[I] != ';')
      ++I;
    return;
  }
  if (St.LastLabel.empty()) {
    D.error(Begin, DirLoc, ".callprototype needs a label");
  } else {
    PrototypeAbi A;
    A.Label = KeepStrings ? Obj.save(St.LastLabel) : St.LastLabel;
    A.Function = FuncSym;
    A.Returns = std::move(P.Returns);
    A.Params = std::move(P.Params);
    if (KeepStrings)
      for (auto *List : {&A.Returns, &A.Params})
        for (ParamInfo &Q : *List)
          Q.setName(Obj.save(Q.name())); // (a type is one of the model's own spellings)
    A.NoReturn = P.NoReturn;
    A.AbiPreserve = P.AbiPreserve;
    A.AbiPreserveControl = P.AbiPreserveControl;
    A.Where = locAt(St.LastLabelOffset);
    Protos.push_back(std::move(A));
  }
  // Resume after the ';' (the sub-lexer counted the lines it crossed).
  I = After.Offset;
  Known = After;
  St.AtStart = true;
  St.Md = Mode::Normal;
  St.LastLabel = StringRef();
}

void BodyScanner::scanStatements(const PtxFunction &F, uint32_t FuncSym, ModelTable<PrototypeAbi> &Protos,
                                 bool KeepStrings, ObjectFile &Obj) {
  // One pass over the body's bytes. Only the bytes that can change the statement's state or begin a
  // name are looked at one by one; operands are skipped 16 bytes at a time (skipOperands).
  const char *B = Text.data();
  size_t I = F.BodyBegin + 1;
  size_t End = F.End - 1; // the closing '}'
  Statement St;

  while (I < End) {
    if (!St.AtStart && St.Md == Mode::Normal) {
      I = skipOperands(I, End);
      if (I >= End)
        break;
    }
    unsigned char C = static_cast<unsigned char>(B[I]);
    if (C == ';') {
      // The end of a statement, the most frequent byte that matters: tested before the dispatch, which
      // then mostly sees the words that follow.
      St.endStatement();
      ++I;
      // The line break and indentation before the next statement, without a dispatch per byte (the
      // Space and Newline cases below do nothing else with these bytes either).
      while (I < End && static_cast<uint8_t>(Classes[static_cast<unsigned char>(B[I])] - Space) <= Newline - Space)
        ++I;
      // Most statements begin with an opcode: straight to it, without another dispatch.
      if (I < End && Classes[static_cast<unsigned char>(B[I])] == Ident)
        goto IdentCase;
      continue;
    }
    switch (Classes[C]) {
    case Space:
      ++I;
      while (I < End && Classes[static_cast<unsigned char>(B[I])] == Space)
        ++I;
      break;
    case Newline: // lines are counted lazily (locAt) when a location is needed
      ++I;
      break;
    case Slash:
      if (I + 1 < End && B[I + 1] == '/')
        I = lineCommentEnd(B, I, End);
      else if (I + 1 < End && B[I + 1] == '*')
        I = blockCommentEnd(B, I, End); // the parser already checked the comment is closed
      else
        ++I;
      break;
    case Quote: {
      size_t S = I;
      I = stringLiteralEnd(B, I, End);
      if (I >= End || B[I] != '"')
        D.error(S, locAt(S), "unterminated string");
      else
        ++I;
      St.AtStart = false;
      break;
    }
    case LBrace:
      if (St.Md == Mode::DeclInit)
        ++St.InitBrace;
      else if (St.AtStart) {
        ++Depth;
        St.LastLabel = StringRef();
      } else
        St.InVector = true;
      ++I;
      break;
    case RBrace:
      if (St.Md == Mode::DeclInit && St.InitBrace > 0)
        --St.InitBrace;
      else if (St.InVector)
        St.InVector = false;
      else {
        if (Depth > 0) {
          popScope();
          --Depth;
        }
        St.AtStart = true;
        St.Md = Mode::Normal;
        St.InCall = false;
        St.LastLabel = StringRef();
      }
      ++I;
      break;
    case Comma:
      if (St.Md == Mode::Decl || (St.Md == Mode::DeclInit && St.InitBrace == 0)) {
        St.Md = Mode::Decl;
        St.ExpectName = true;
      }
      ++I;
      break;
    case Equal:
      if (St.Md == Mode::Decl) {
        St.Md = Mode::DeclInit;
        St.InitBrace = 0;
        St.ExpectName = false;
      }
      ++I;
      break;
    case At:
      if (I + 1 < End && B[I + 1] == '@') {
        // Legacy `@@DWARF` line inside a body: not ours to interpret.
        I = lineCommentEnd(B, I, End);
      } else {
        St.Guard = true;
        ++I;
      }
      break;
    case Digit:
      while (I < End && (identChar(B[I]) || B[I] == '.'))
        ++I;
      break;
    case Dot: {
      size_t S = I;
      if (I + 1 >= End || !identChar(B[I + 1]) || isDigit(B[I + 1])) {
        ++I;
        while (I < End && (identChar(B[I]) || B[I] == '.'))
          ++I;
        break;
      }
      I = wordEnd(B, I + 1, End);
      if (St.AtStart)
        statementDirective(St, S, I, End, FuncSym, Protos, KeepStrings, Obj);
      break;
    }
    case Ident:
    IdentCase: {
      size_t S = I;
      I = wordEnd(B, I + 1, End);
      if (St.Guard) {
        St.Guard = false; // a predicate name without '%'
        break;
      }
      if (St.AtStart) {
        // A label (`name:` or `name :`) or the opcode.
        size_t J = I;
        while (J < End && isSpaceOrTab(B[J]))
          ++J;
        if (J < End && B[J] == ':' && !(J + 1 < End && B[J + 1] == ':')) {
          defineLabel(S, I);
          St.LastLabel = Text.slice(S, I);
          St.LastLabelOffset = S;
          I = J + 1;
          break;
        }
        St.AtStart = false;
        St.Md = Mode::Normal;
        // The one place that knows a name is called rather than taken: recorded on its relocation, so
        // that no later tool reads the statement again (Relocation::isCall).
        const StringRef Opcode = Text.slice(S, I);
        St.InCall = Opcode == "call" || Opcode.starts_with("call.");
        I = J; // the blanks after the opcode were just skipped
        break;
      }
      nameOperand(St, S, I);
      break;
    }
    case Percent: {
      size_t S = I;
      I = wordEnd(B, I + 1, End);
      if (St.Guard) {
        St.Guard = false;
        break;
      }
      if (!FirstChar['%'])
        break;
      nameOperand(St, S, I);
      break;
    }
    default:
      ++I;
      break;
    }
  }
}

void BodyScanner::resolveLabelUses(const PtxFunction &F) {
  // Function labels: keep the uses only if the label was defined in this body.
  for (const Use &U : LabelUses)
    if (Symbols[U.Sym].Section == SectionIdx)
      Relocs->push_back(Relocation{sectionOffset(U.Offset), U.Sym, RelocKind::NameRef, U.Length, 0});
  // A body label spelled like a module-scope symbol hides it inside this body.
  if (!LocalLabels.empty()) {
    size_t HeaderEnd = F.HeaderEnd - Base;
    llvm::erase_if(*Relocs, [&](const Relocation &R) {
      return R.Kind == RelocKind::NameRef && R.Offset >= HeaderEnd &&
             std::find(LocalLabels.begin(), LocalLabels.end(), R.Symbol) != LocalLabels.end();
    });
  }
}

void BodyScanner::endBody(ModelTable<PrototypeAbi> &Protos, size_t FirstProto) {
  // Undo the parameter shadows.
  while (!ShadowStack.empty()) {
    --ShadowCount[ShadowStack.back().first];
    ShadowStack.pop_back();
  }
  if (!CallTargets.empty()) {
    std::sort(CallTargets.begin(), CallTargets.end());
    CallTargets.erase(std::unique(CallTargets.begin(), CallTargets.end()), CallTargets.end());
    for (size_t P = FirstProto; P < Protos.size(); ++P)
      Protos[P].CallTargets = CallTargets;
  }
}

} // namespace ptxlink
