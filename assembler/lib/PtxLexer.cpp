// Tokenizer for module-level PTX: identifiers, directives, numbers, strings and punctuation, skipping
// whitespace and both comment styles, tracking line numbers incrementally (CRLF counts as one line end);
// and the entry points of the parser's fast paths (PtxLexer.h), which cut tokens by the same rules.
#include "PtxLexer.h"
#include "ByteScan.h"

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace llvm;

namespace ptxlink {

void Lexer::skipSpaceAndComments() {
  const char *B = Text.data();
  size_t N = Text.size();
  size_t I = Pos.Offset;
  // ' ' \t \r \f \v as one bit test: this loop runs before every token.
  constexpr uint64_t Blanks = (uint64_t(1) << ' ') | (uint64_t(1) << '\t') | (uint64_t(1) << '\r') |
                              (uint64_t(1) << '\f') | (uint64_t(1) << '\v');
  while (I < N) {
    char C = B[I];
    unsigned char U = static_cast<unsigned char>(C);
    if (U <= ' ' && ((Blanks >> U) & 1)) {
      ++I;
    } else if (C == '\n') {
      ++I;
      ++Pos.Line;
      Pos.LineStart = I;
    } else if (C == '/' && I + 1 < N && B[I + 1] == '/') {
      I = lineCommentEnd(B, I, N);
    } else if (C == '/' && I + 1 < N && B[I + 1] == '*') {
      // Not blockCommentEnd: the lines inside are counted on the way.
      uint32_t SavedLine = Pos.Line;
      size_t SavedLineStart = Pos.LineStart;
      size_t J = I + 2;
      bool Closed = false;
      while (J < N) {
        if (B[J] == '\n') {
          ++Pos.Line;
          Pos.LineStart = J + 1;
        } else if (B[J] == '*' && J + 1 < N && B[J + 1] == '/') {
          J += 2;
          Closed = true;
          break;
        }
        ++J;
      }
      if (!Closed) {
        // Leave the position at the comment so lex() reports it.
        Pos.Offset = I;
        Pos.Line = SavedLine;
        Pos.LineStart = SavedLineStart;
        return;
      }
      I = J;
    } else {
      break;
    }
  }
  Pos.Offset = I;
}

Token Lexer::lex() {
  skipSpaceAndComments();
  const char *B = Text.data();
  size_t N = Text.size();
  size_t I = Pos.Offset;
  Token T;
  T.Offset = I;
  T.Loc = SourceLoc{Pos.Line, static_cast<uint32_t>(I - Pos.LineStart + 1)};
  if (I >= N) {
    T.Kind = TokKind::Eof;
    T.Text = Text.substr(N, 0);
    return T;
  }
  char C = B[I];
  size_t J = I + 1;
  if (C == '/' && J < N && B[J] == '*') {
    T.Kind = TokKind::Error;
    ErrorMsg = "unterminated /* comment";
    T.Text = Text.substr(I, 2);
    Pos.Offset = N; // nothing after an unterminated comment can be tokenized
    return T;
  }
  if (isIdentStart(C)) {
    J = identEnd(B, J, N);
    if (J == I + 1 && (C == '%' || C == '$')) {
      // A lone '%' or '$' is not an identifier.
      T.Kind = TokKind::Punct;
    } else {
      T.Kind = TokKind::Identifier;
    }
  } else if (size_t DirEnd = directiveTokenEnd(B, I, N); DirEnd != I) {
    J = DirEnd;
    T.Kind = TokKind::Directive;
  } else if (isDigit(C) || (C == '.' && J < N && isDigit(B[J]))) {
    // Numbers: hex/binary/float-bit-pattern prefixes, decimal with optional fraction and exponent.
    bool IsFloat = C == '.';
    if (C == '0' && J < N && (B[J] == 'f' || B[J] == 'F' || B[J] == 'd' || B[J] == 'D')) {
      IsFloat = true;
      ++J;
      while (J < N && isIdentChar(B[J]))
        ++J;
    } else if (C == '0' && J < N && (B[J] == 'x' || B[J] == 'X' || B[J] == 'b' || B[J] == 'B')) {
      ++J;
      while (J < N && isIdentChar(B[J]))
        ++J;
    } else {
      while (J < N && isDigit(B[J]))
        ++J;
      if (J < N && B[J] == '.' && !(J + 1 < N && isIdentChar(B[J + 1]) && !isDigit(B[J + 1]))) {
        IsFloat = true;
        ++J;
        while (J < N && isDigit(B[J]))
          ++J;
      }
      if (J < N && (B[J] == 'e' || B[J] == 'E')) {
        size_t K = J + 1;
        if (K < N && (B[K] == '+' || B[K] == '-'))
          ++K;
        if (K < N && isDigit(B[K])) {
          IsFloat = true;
          J = K;
          while (J < N && isDigit(B[J]))
            ++J;
        }
      }
      if (!IsFloat && J < N && (B[J] == 'U' || B[J] == 'u'))
        ++J;
    }
    T.Kind = IsFloat ? TokKind::Float : TokKind::Integer;
  } else if (C == '"') {
    J = stringLiteralEnd(B, I, N);
    if (J >= N || B[J] != '"') {
      T.Kind = TokKind::Error;
      ErrorMsg = "unterminated string";
      T.Text = Text.slice(I, J);
      Pos.Offset = J;
      return T;
    }
    ++J;
    T.Kind = TokKind::String;
  } else if (C == '\0' || static_cast<unsigned char>(C) >= 0x7f || (C > 0 && C < 0x20)) {
    T.Kind = TokKind::Error;
    ErrorMsg = C == '\0' ? "unexpected NUL byte (is this a binary file?)" : "unexpected character";
    if (C == '\0') {
      // Nothing sensible can follow in a binary file: report it once.
      T.Text = Text.slice(I, J);
      Pos.Offset = N;
      return T;
    }
  } else {
    T.Kind = TokKind::Punct;
  }
  T.Text = Text.slice(I, J);
  Pos.Offset = J;
  return T;
}

Token Lexer::next() {
  if (HasPeeked) {
    HasPeeked = false;
    Pos = AfterPeek;
    return Peeked;
  }
  return lex();
}

Token Lexer::peek() {
  if (!HasPeeked) {
    LexPos Save = Pos;
    Peeked = lex();
    AfterPeek = Pos;
    Pos = Save;
    HasPeeked = true;
  }
  return Peeked;
}

bool Lexer::extendDottedName(Token &Tok) {
  if (HasPeeked) {
    // Peeking skipped whitespace already; only extend if the peeked token is adjacent.
    HasPeeked = false;
  }
  const char *B = Text.data();
  size_t N = Text.size();
  size_t J = Tok.end();
  if (Pos.Offset != J)
    return false;
  bool Extended = false;
  while (J + 1 < N && B[J] == '.' && isIdentChar(B[J + 1])) {
    J += 1;
    while (J < N && isIdentChar(B[J]))
      ++J;
    Extended = true;
  }
  if (Extended) {
    Tok.Text = Text.slice(Tok.Offset, J);
    Pos.Offset = J;
  }
  return Extended;
}

Token Lexer::tokenOnLine(TokKind Kind, size_t Begin, size_t End) const {
  Token T;
  T.Kind = Kind;
  T.Text = Text.slice(Begin, End);
  T.Offset = Begin;
  T.Loc = SourceLoc{Pos.Line, static_cast<uint32_t>(Begin - Pos.LineStart + 1)};
  return T;
}

bool Lexer::lexTypedName(function_ref<bool(StringRef)> IsType, Token &Type, Token &Name) {
  // Parameter lists are most of a module's text outside function bodies, and nearly every parameter is
  // `.param .u64 name` on one line: read here from the bytes rather than as tokens each with a dispatch
  // and a whitespace skip. Both tokens are on the current line, so the line count does not change.
  const char *B = Text.data();
  size_t N = Text.size();
  size_t I = Pos.Offset;
  auto SkipBlanks = [&] {
    while (I < N && (B[I] == ' ' || B[I] == '\t'))
      ++I;
  };
  SkipBlanks();
  size_t TypeBegin = I;
  I = directiveTokenEnd(B, I, N);
  if (I == TypeBegin || !IsType(Text.slice(TypeBegin, I)))
    return false;
  size_t TypeEnd = I;
  SkipBlanks();
  size_t NameBegin = I;
  I = identifierTokenEnd(B, I, N);
  // A dotted name (`T.RawPtr..0`) is left to the general path, which warns about it.
  if (I == NameBegin || (I < N && B[I] == '.'))
    return false;
  Type = tokenOnLine(TokKind::Directive, TypeBegin, TypeEnd);
  Name = tokenOnLine(TokKind::Identifier, NameBegin, I);
  Pos.Offset = I;
  HasPeeked = false;
  return true;
}

/// True if any byte of the 8-byte word W equals C (the classic SWAR zero-byte test; exact as a yes/no).
static inline uint64_t hasByte(uint64_t W, uint8_t C) {
  constexpr uint64_t Ones = 0x0101010101010101ULL, Highs = 0x8080808080808080ULL;
  uint64_t X = W ^ (Ones * C);
  return (X - Ones) & ~X & Highs;
}

/// Lines and the last line start within [From, To), counted in one vectorizable pass.
static void advanceLines(const char *B, size_t From, size_t To, uint32_t &Line, size_t &LineStart) {
  Line += static_cast<uint32_t>(countNewlines(B + From, To - From));
  const void *Last = memrchr(B + From, '\n', To - From);
  if (Last)
    LineStart = static_cast<const char *>(Last) - B + 1;
}

LexPos advancePos(StringRef Text, LexPos From, size_t To) {
  advanceLines(Text.data(), From.Offset, To, From.Line, From.LineStart);
  From.Offset = To;
  return From;
}

Token Lexer::skipFunctionBody(const Token &LBrace) {
  // Find the matching '}' without tokenizing: only braces, strings and comments matter. This runs over
  // every body byte, so it looks at 16 (or 8) bytes at a time and counts lines afterwards in a separate
  // pass.
  HasPeeked = false;
  const char *B = Text.data();
  size_t N = Text.size();
  const LexPos Open = LBrace.start();
  size_t I = LBrace.Offset + 1;
  unsigned Depth = 1;
  auto Fail = [&](size_t At, const char *Message) {
    Pos = Open;
    advanceLines(B, Open.Offset, At, Pos.Line, Pos.LineStart);
    Token T = tokenOnLine(TokKind::Error, At, At);
    ErrorMsg = Message;
    // Nothing after an unclosed body can be parsed: the lexer ends there, with every line counted.
    Pos = Open;
    advanceLines(B, Open.Offset, N, Pos.Line, Pos.LineStart);
    Pos.Offset = N;
    return T;
  };
  while (true) {
#if defined(__SSE2__)
    {
      const __m128i LB = _mm_set1_epi8('{'), RB = _mm_set1_epi8('}'), Q = _mm_set1_epi8('"'),
                    SL = _mm_set1_epi8('/');
      while (I + 16 <= N) {
        __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(B + I));
        __m128i M = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(V, LB), _mm_cmpeq_epi8(V, RB)),
                                 _mm_or_si128(_mm_cmpeq_epi8(V, Q), _mm_cmpeq_epi8(V, SL)));
        unsigned Mask = static_cast<unsigned>(_mm_movemask_epi8(M));
        if (Mask) {
          I += static_cast<size_t>(__builtin_ctz(Mask));
          break;
        }
        I += 16;
      }
    }
#endif
    while (I + 8 <= N) {
      uint64_t W;
      memcpy(&W, B + I, 8);
      if (hasByte(W, '{') | hasByte(W, '}') | hasByte(W, '"') | hasByte(W, '/'))
        break;
      I += 8;
    }
    while (I < N && B[I] != '{' && B[I] != '}' && B[I] != '"' && B[I] != '/')
      ++I;
    if (I >= N)
      return Fail(LBrace.Offset, "unterminated function body: expected '}'");
    char C = B[I];
    if (C == '{') {
      ++Depth;
      ++I;
    } else if (C == '}') {
      ++I;
      if (--Depth == 0)
        break;
    } else if (C == '"') {
      I = stringLiteralEnd(B, I, N);
      if (I < N && B[I] == '"')
        ++I; // an unterminated string is reported by the body scanner
    } else if (I + 1 < N && B[I + 1] == '/') {
      I = lineCommentEnd(B, I, N);
    } else if (I + 1 < N && B[I + 1] == '*') {
      size_t J = blockCommentEnd(B, I, N);
      if (J > N)
        return Fail(I, "unterminated /* comment");
      I = J;
    } else {
      ++I;
    }
  }
  Pos = Open;
  advanceLines(B, Open.Offset, I, Pos.Line, Pos.LineStart);
  Pos.Offset = I;
  return tokenOnLine(TokKind::Punct, I - 1, I);
}

Token Lexer::continueAt(LexPos At) {
  Pos = At;
  HasPeeked = false;
  return lex();
}

bool Lexer::consume(StringRef Literal) {
  if (!Text.substr(Pos.Offset).starts_with(Literal))
    return false;
  Pos.Offset += Literal.size();
  HasPeeked = false;
  return true;
}

Lexer Lexer::splitLine() {
  HasPeeked = false;
  size_t E = Text.find('\n', Pos.Offset);
  if (E == StringRef::npos)
    E = Text.size();
  Lexer Line(Text.take_front(E), Pos);
  Pos.Offset = E;
  return Line;
}

Token Lexer::lexDotWord() {
  HasPeeked = false;
  const char *B = Text.data();
  size_t N = Text.size();
  size_t I = Pos.Offset;
  while (I < N && (B[I] == ' ' || B[I] == '\t'))
    ++I;
  size_t Begin = I;
  if (I < N && B[I] == '.') {
    ++I;
    while (I < N && isIdentChar(B[I]))
      ++I;
  }
  Pos.Offset = I;
  return tokenOnLine(TokKind::Directive, Begin, I);
}

StringRef Lexer::restOfLine() {
  HasPeeked = false;
  size_t N = Text.size();
  size_t I = Pos.Offset;
  size_t E = Text.find('\n', I);
  if (E == StringRef::npos)
    E = N;
  Pos.Offset = E;
  return Text.slice(I, E).rtrim("\r");
}

bool parseIntegerLiteral(StringRef T, uint64_t &Value) {
  if (T.ends_with("U") || T.ends_with("u"))
    T = T.drop_back();
  if (T.empty())
    return false;
  unsigned Radix = 10;
  if (T.size() > 2 && T[0] == '0' && (T[1] == 'x' || T[1] == 'X')) {
    Radix = 16;
    T = T.drop_front(2);
  } else if (T.size() > 2 && T[0] == '0' && (T[1] == 'b' || T[1] == 'B')) {
    Radix = 2;
    T = T.drop_front(2);
  } else if (T.size() > 1 && T[0] == '0') {
    Radix = 8;
    T = T.drop_front(1);
  }
  // getAsInteger returns true on error (including overflow).
  return !T.getAsInteger(Radix, Value);
}

} // namespace ptxlink
