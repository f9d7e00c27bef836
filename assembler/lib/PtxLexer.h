// The PTX tokenizer used for module-level text (headers, parameter lists, variable declarations and
// initializers, debug sections).
//
// The problem: the module-level grammar needs real tokens with positions, but the bulk of a PTX file is
// instruction bodies, which are scanned separately by a much cheaper loop (see BodyScanner). So this lexer
// is small and allocation-free: a token is a kind plus a StringRef into the source and its line/column,
// and the lexer keeps the line count incrementally so no position is ever recomputed from the start.
#pragma once

#include "ptxlink/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

namespace ptxlink {

enum class TokKind : uint8_t {
  Eof,
  Identifier, // foo, $L__BB0_1, %r1, _ZN3fooE, __cudaparm_x
  Directive,  // .version, .b32, .debug_info (the text includes the dot)
  Integer,    // 42, 0x2A, 0x8000U, 017, 0b101
  Float,      // 1.5, 0f3F800000, 0d3FF0000000000000, 1e10
  String,     // "text" (Text includes the quotes)
  Punct,      // one of ( ) { } [ ] , ; : = + - < > @ ! | * / etc; Text is the single character
  Error,      // a character or construct the lexer cannot tokenize (unterminated string/comment, NUL)
};

struct Token {
  TokKind Kind = TokKind::Eof;
  llvm::StringRef Text;
  size_t Offset = 0; // byte offset in the source
  SourceLoc Loc;

  bool is(TokKind K) const { return Kind == K; }
  bool isPunct(char C) const { return Kind == TokKind::Punct && Text[0] == C; }
  bool isDirective(llvm::StringRef D) const { return Kind == TokKind::Directive && Text == D; }
  size_t end() const { return Offset + Text.size(); }
};

/// Position of the lexer (also used to hand a position from the body scanner to a sub-parser).
struct LexPos {
  size_t Offset = 0;
  uint32_t Line = 1;
  size_t LineStart = 0;
};

/// Character classes shared by the lexer and the body scanner.
inline bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' || C == '$' || C == '%';
}
inline bool isIdentChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_' || C == '$';
}
inline bool isDigit(char C) { return C >= '0' && C <= '9'; }

class Lexer {
public:
  explicit Lexer(llvm::StringRef Text, LexPos Start = {}) : Text(Text), Pos(Start) {}

  /// Returns the next token and advances past it (comments and whitespace are skipped).
  Token next();
  /// Returns the next token without consuming it.
  Token peek();

  /// Extends an identifier token over `.name` parts that follow without whitespace (2014-era rustc
  /// emitted names such as `T.RawPtr$LT$T$GT$..0.0E`; ptxas rejects them, we accept them so the file can
  /// at least be inspected). Returns true if the token was extended.
  bool extendDottedName(Token &Tok);

  /// Skips to the end of the current line (for legacy `@@DWARF` lines); returns the skipped text.
  llvm::StringRef restOfLine();

  LexPos position() const { return Pos; }
  void reset(LexPos P) {
    Pos = P;
    HasPeeked = false;
  }
  llvm::StringRef text() const { return Text; }

  /// Message for the last Error token.
  llvm::StringRef errorMessage() const { return ErrorMsg; }

private:
  Token lex();
  void skipSpaceAndComments();

  llvm::StringRef Text;
  LexPos Pos;
  bool HasPeeked = false;
  Token Peeked;
  LexPos AfterPeek;
  const char *ErrorMsg = "";
};

/// Parses an integer literal token's text (decimal, 0x hex, 0b binary, leading-0 octal, optional U
/// suffix). Returns false on overflow or malformed text.
bool parseIntegerLiteral(llvm::StringRef Text, uint64_t &Value);

} // namespace ptxlink
