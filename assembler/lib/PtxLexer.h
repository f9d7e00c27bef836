// The PTX tokenizer used for module-level text (headers, parameter lists, variable declarations and
// initializers, debug sections).
//
// The problem: the module-level grammar needs real tokens with positions, but the bulk of a PTX file is
// instruction bodies, which are scanned separately by a much cheaper loop (see BodyScanner). So this lexer
// is small and allocation-free: a token is a kind plus a StringRef into the source and its line/column,
// and the lexer keeps the line count incrementally so no position is ever recomputed from the start.
//
// Besides next()/peek(), the lexer has entry points for the parser's fast paths (a function body skipped
// by brace matching, the common `.param .u64 name`, a run of debug-data lines read from the bytes, a
// legacy `@@DWARF` line): each cuts its tokens and moves the position itself, so tokens are made and
// lines counted in one place, and the parser never builds a token or sets the lexer's position by hand.
#pragma once

#include "ptxlink/PtxChars.h"
#include "ptxlink/Diagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"
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

/// Position of the lexer (also used to hand a position from the body scanner to a sub-parser).
struct LexPos {
  size_t Offset = 0;
  uint32_t Line = 1;
  size_t LineStart = 0;
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
  /// The lexer position at the token's first byte.
  LexPos start() const { return LexPos{Offset, Loc.Line, Offset - (Loc.Column - 1)}; }
};

/// Character classes shared by the lexer and the body scanner (identifiers: ptxlink/PtxChars.h).
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

  // Entry points for the parser's fast paths. Each starts where the last token returned by next()
  // ended (a pending peek() is dropped) and leaves the lexer after what it returns.

  /// The common parameter declaration `.param .u64 name`, after its state space: a directive for which
  /// IsType holds and an identifier, on this line with only blanks before each. Returns false with
  /// nothing consumed for anything else (a comment or line break in between, `.align`, a vector, a
  /// dotted name), which the caller's general path reads token by token.
  bool lexTypedName(llvm::function_ref<bool(llvm::StringRef)> IsType, Token &Type, Token &Name);

  /// After the `{` that opens a function body (the last token read): finds the matching `}` without
  /// tokenizing (only braces, strings and comments matter), counts the lines crossed, and returns the
  /// `}`. On an unclosed body or comment, returns an Error token there (errorMessage() says which) and
  /// moves to the end of the text.
  Token skipFunctionBody(const Token &LBrace);

  /// Continues at At, the first byte of a token that a byte scanner of the caller read up to (the last
  /// item of a run of plain debug-data lines, see DwarfDataLines.h), and returns that token as next()
  /// would; the scanner gives its line and line start, so no line is counted twice.
  Token continueAt(LexPos At);

  /// If the text at the position is Literal (no blanks skipped; Literal holds no line break), moves past
  /// it and returns true.
  bool consume(llvm::StringRef Literal);
  /// A new lexer over the rest of the current line (for a one-line statement such as `@@DWARF ...`);
  /// this one continues at the line's end.
  Lexer splitLine();
  /// Blanks, then `.` and the identifier characters after it as a Directive token, digits first
  /// included: the directives of `@@DWARF` lines (`.4byte`), which next() would read as a number. The
  /// token is just `.`, or empty, if no name (or no `.`) follows.
  Token lexDotWord();

  LexPos position() const { return Pos; }
  llvm::StringRef text() const { return Text; }

  /// Message for the last Error token.
  llvm::StringRef errorMessage() const { return ErrorMsg; }

private:
  Token lex();
  void skipSpaceAndComments();
  /// A token of Kind over [Begin, End) on the current line.
  Token tokenOnLine(TokKind Kind, size_t Begin, size_t End) const;

  llvm::StringRef Text;
  LexPos Pos;
  bool HasPeeked = false;
  Token Peeked;
  LexPos AfterPeek;
  const char *ErrorMsg = "";
};

/// The lexer's position at To, counted from its position From (From.Offset <= To). Every path of the
/// lexer counts a line at each '\n' and at nothing else (in CRLF the '\r' is a blank, and so is a lone
/// '\r') and columns in bytes from the line's start, so a position it passed need not be kept: this gives
/// the same line and column again.
LexPos advancePos(llvm::StringRef Text, LexPos From, size_t To);

/// Parses an integer literal token's text (decimal, 0x hex, 0b binary, leading-0 octal, optional U
/// suffix). Returns false on overflow or malformed text.
bool parseIntegerLiteral(llvm::StringRef Text, uint64_t &Value);

} // namespace ptxlink
