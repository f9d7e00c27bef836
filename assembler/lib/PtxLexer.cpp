// Tokenizer for module-level PTX: identifiers, directives, numbers, strings and punctuation, skipping
// whitespace and both comment styles, tracking line numbers incrementally (CRLF counts as one line end).
#include "PtxLexer.h"
#include "ByteScan.h"

#include <cstdint>

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
      const void *NL = memchr(B + I, '\n', N - I);
      I = NL ? static_cast<const char *>(NL) - B : N;
    } else if (C == '/' && I + 1 < N && B[I + 1] == '*') {
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
  } else if (C == '.' && J < N && (isIdentChar(B[J]) && !isDigit(B[J]))) {
    J = identEnd(B, J, N);
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
    while (J < N && B[J] != '"' && B[J] != '\n') {
      if (B[J] == '\\' && J + 1 < N && B[J + 1] != '\n')
        ++J;
      ++J;
    }
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
