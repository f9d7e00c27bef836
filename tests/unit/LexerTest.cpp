// Unit tests of the module-level PTX tokenizer: token kinds, positions across CRLF and comments, number
// and string forms, error tokens, the dotted-name extension used for 2014-era rustc names, and the entry
// points of the parser's fast paths (typed names, function bodies, continuing after a byte scanner,
// one-line statements), and the byte scanners beside it (ByteScan.h).
#include "ByteScan.h"
#include "PtxLexer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace ptxlink;

namespace {

std::vector<Token> lexAll(llvm::StringRef Text) {
  Lexer L(Text);
  std::vector<Token> R;
  while (true) {
    Token T = L.next();
    R.push_back(T);
    if (T.is(TokKind::Eof))
      break;
  }
  return R;
}

TEST(LexerTest, KindsAndText) {
  auto T = lexAll(".visible .entry k(.param .u64 %p_0) { $L__BB0_1: }");
  ASSERT_EQ(T.size(), 13u);
  EXPECT_EQ(T[0].Kind, TokKind::Directive);
  EXPECT_EQ(T[0].Text, ".visible");
  EXPECT_EQ(T[2].Kind, TokKind::Identifier);
  EXPECT_EQ(T[2].Text, "k");
  EXPECT_TRUE(T[3].isPunct('('));
  EXPECT_EQ(T[6].Text, "%p_0");
  EXPECT_EQ(T[6].Kind, TokKind::Identifier);
  EXPECT_EQ(T[9].Text, "$L__BB0_1");
  EXPECT_TRUE(T[10].isPunct(':'));
  EXPECT_TRUE(T[12].is(TokKind::Eof));
}

TEST(LexerTest, Numbers) {
  auto T = lexAll("42 0x2A 0x8000U 017 0b101 1.5 0f3F800000 0d3FF0000000000000 1e10 6.5");
  std::vector<TokKind> Kinds;
  for (const Token &X : T)
    Kinds.push_back(X.Kind);
  std::vector<TokKind> Want{TokKind::Integer, TokKind::Integer, TokKind::Integer, TokKind::Integer,
                            TokKind::Integer, TokKind::Float,   TokKind::Float,   TokKind::Float,
                            TokKind::Float,   TokKind::Float,   TokKind::Eof};
  EXPECT_EQ(Kinds, Want);
  uint64_t V = 0;
  EXPECT_TRUE(parseIntegerLiteral("0x2A", V));
  EXPECT_EQ(V, 42u);
  EXPECT_TRUE(parseIntegerLiteral("0x8000U", V));
  EXPECT_EQ(V, 0x8000u);
  EXPECT_TRUE(parseIntegerLiteral("017", V));
  EXPECT_EQ(V, 15u);
  EXPECT_TRUE(parseIntegerLiteral("0b101", V));
  EXPECT_EQ(V, 5u);
  EXPECT_TRUE(parseIntegerLiteral("18446744073709551615", V));
  EXPECT_EQ(V, UINT64_MAX);
  EXPECT_FALSE(parseIntegerLiteral("18446744073709551616", V));
  EXPECT_FALSE(parseIntegerLiteral("0xZZ", V));
}

TEST(LexerTest, CommentsAndLinesWithCrlf) {
  auto T = lexAll("// header\r\n.version 7.0 /* a\r\n b */ .target\r\n\t sm_80 // trailing\r\n");
  ASSERT_EQ(T.size(), 5u);
  EXPECT_EQ(T[0].Text, ".version");
  EXPECT_EQ(T[0].Loc.Line, 2u);
  EXPECT_EQ(T[0].Loc.Column, 1u);
  EXPECT_EQ(T[2].Text, ".target");
  EXPECT_EQ(T[2].Loc.Line, 3u);
  EXPECT_EQ(T[2].Loc.Column, 7u);
  EXPECT_EQ(T[3].Text, "sm_80");
  EXPECT_EQ(T[3].Loc.Line, 4u);
  EXPECT_EQ(T[3].Loc.Column, 3u);
}

TEST(LexerTest, Strings) {
  auto T = lexAll(".file 1 \"a \\\"b\\\".cu\", 12, 34");
  ASSERT_GE(T.size(), 3u);
  EXPECT_EQ(T[2].Kind, TokKind::String);
  EXPECT_EQ(T[2].Text, "\"a \\\"b\\\".cu\"");
}

TEST(LexerTest, Errors) {
  {
    Lexer L("\"open\n");
    Token T = L.next();
    EXPECT_EQ(T.Kind, TokKind::Error);
    EXPECT_EQ(L.errorMessage(), "unterminated string");
  }
  {
    Lexer L(".version /* never closed");
    EXPECT_EQ(L.next().Text, ".version");
    Token T = L.next();
    EXPECT_EQ(T.Kind, TokKind::Error);
    EXPECT_EQ(L.errorMessage(), "unterminated /* comment");
    EXPECT_TRUE(L.next().is(TokKind::Eof));
  }
  {
    Lexer L(llvm::StringRef("\x7f" "ELF\0\0", 6));
    Token T = L.next();
    EXPECT_EQ(T.Kind, TokKind::Error);
  }
}

TEST(LexerTest, DirectivesWithoutSpaces) {
  // `.reg.u32` is two directives; `..x` is not a directive.
  auto T = lexAll(".reg.u32 input_<4>;");
  EXPECT_EQ(T[0].Text, ".reg");
  EXPECT_EQ(T[1].Text, ".u32");
  EXPECT_EQ(T[2].Text, "input_");
  EXPECT_TRUE(T[3].isPunct('<'));
}

TEST(LexerTest, DottedNames) {
  Lexer L("T.RawPtr$LT$T$GT$6offset20hfbc25d526e97e8a67aa4v0.0E_param_0 x .y");
  Token T = L.next();
  EXPECT_EQ(T.Text, "T");
  EXPECT_TRUE(L.extendDottedName(T));
  EXPECT_EQ(T.Text, "T.RawPtr$LT$T$GT$6offset20hfbc25d526e97e8a67aa4v0.0E_param_0");
  Token X = L.next();
  EXPECT_EQ(X.Text, "x");
  EXPECT_FALSE(L.extendDottedName(X)); // `x .y`: whitespace ends the name
  EXPECT_EQ(L.next().Text, ".y");
}

TEST(LexerTest, PeekDoesNotConsume) {
  Lexer L("a : b");
  EXPECT_EQ(L.peek().Text, "a");
  EXPECT_EQ(L.next().Text, "a");
  EXPECT_TRUE(L.peek().isPunct(':'));
  EXPECT_TRUE(L.next().isPunct(':'));
  EXPECT_EQ(L.next().Text, "b");
}

bool isU64(llvm::StringRef T) { return T == ".u64" || T == ".b32"; }

TEST(LexerTest, TypedNameOnOneLine) {
  Lexer L(".param  .u64\tp_0, .param .b32 x\n");
  ASSERT_TRUE(L.next().isDirective(".param"));
  Token Type, Name;
  ASSERT_TRUE(L.lexTypedName(isU64, Type, Name));
  EXPECT_TRUE(Type.isDirective(".u64"));
  EXPECT_EQ(Type.Offset, 8u);
  EXPECT_EQ(Type.Loc.Column, 9u);
  EXPECT_EQ(Name.Kind, TokKind::Identifier);
  EXPECT_EQ(Name.Text, "p_0");
  EXPECT_EQ(Name.Loc.Line, 1u);
  EXPECT_EQ(Name.Loc.Column, 14u);
  // The lexer goes on after the name.
  EXPECT_TRUE(L.next().isPunct(','));
}

TEST(LexerTest, TypedNameTakesNothingOtherwise) {
  // Each of these is left to the general path, with the position where it was.
  for (llvm::StringRef Text : {".param .align 8 .u64 p", ".param .u64\np", ".param .u64 /*c*/ p", ".param .f32 p",
                               ".param .u64 a.b", ".param .u64 %", ".param .u64 [", ".param"}) {
    Lexer L(Text);
    L.next();
    Token Type, Name;
    EXPECT_FALSE(L.lexTypedName(isU64, Type, Name)) << Text.str();
    Token After = L.next();
    EXPECT_EQ(After.Offset, Text.size() > 6 ? 7u : 6u) << Text.str();
  }
}

TEST(LexerTest, FunctionBodySkippedWithLines) {
  llvm::StringRef Text = ".func f()\n{\n  { \"}\" // }\n  /* {\n */ }\n}\n.func g";
  Lexer L(Text);
  Token LBrace;
  do
    LBrace = L.next();
  while (!LBrace.isPunct('{'));
  Token Close = L.skipFunctionBody(LBrace);
  ASSERT_TRUE(Close.isPunct('}'));
  EXPECT_EQ(Close.Offset, Text.rfind('}'));
  EXPECT_EQ(Close.Loc.Line, 6u);
  EXPECT_EQ(Close.Loc.Column, 1u);
  Token Next = L.next();
  EXPECT_TRUE(Next.isDirective(".func"));
  EXPECT_EQ(Next.Loc.Line, 7u);
}

TEST(LexerTest, FunctionBodyErrors) {
  {
    Lexer L("x\n {\n  ret;\n");
    L.next();
    Token LBrace = L.next();
    Token E = L.skipFunctionBody(LBrace);
    ASSERT_TRUE(E.is(TokKind::Error));
    EXPECT_EQ(L.errorMessage(), "unterminated function body: expected '}'");
    EXPECT_EQ(E.Offset, 3u); // at the '{'
    EXPECT_EQ(E.Loc.Line, 2u);
    EXPECT_EQ(E.Loc.Column, 2u);
    Token End = L.next();
    EXPECT_TRUE(End.is(TokKind::Eof));
    EXPECT_EQ(End.Loc.Line, 4u);
  }
  {
    Lexer L("{\n a; /* open\n");
    Token LBrace = L.next();
    Token E = L.skipFunctionBody(LBrace);
    ASSERT_TRUE(E.is(TokKind::Error));
    EXPECT_EQ(L.errorMessage(), "unterminated /* comment");
    EXPECT_EQ(E.Loc.Line, 2u);
    EXPECT_EQ(E.Loc.Column, 5u);
  }
}

TEST(LexerTest, ContinueAtATokenAByteScannerReached) {
  llvm::StringRef Text = ".b8 1\n.b32 $L__tmp1, 0x10\n  .b64 .debug_loc+96\n}";
  Lexer L(Text);
  L.next();
  // A scanner read up to `96` on line 3 (which starts at offset 26).
  size_t At = Text.find("96");
  Token T = L.continueAt(LexPos{At, 3, 26});
  EXPECT_EQ(T.Kind, TokKind::Integer);
  EXPECT_EQ(T.Text, "96");
  EXPECT_EQ(T.Loc.Line, 3u);
  EXPECT_EQ(T.Loc.Column, At - 26 + 1);
  Token Close = L.next();
  EXPECT_TRUE(Close.isPunct('}'));
  EXPECT_EQ(Close.Loc.Line, 4u);
}

TEST(LexerTest, OneLineStatement) {
  llvm::StringRef Text = "@@DWARF .4byte 7, x\n.version 8.0";
  Lexer L(Text);
  ASSERT_TRUE(L.next().isPunct('@'));
  EXPECT_FALSE(L.consume("@DWARFX"));
  ASSERT_TRUE(L.consume("@DWARF"));
  Lexer Line = L.splitLine();
  Token Dir = Line.lexDotWord();
  EXPECT_EQ(Dir.Kind, TokKind::Directive);
  EXPECT_EQ(Dir.Text, ".4byte");
  EXPECT_EQ(Dir.Loc.Column, 9u);
  EXPECT_EQ(Line.next().Text, "7");
  EXPECT_TRUE(Line.next().isPunct(','));
  EXPECT_EQ(Line.next().Text, "x");
  EXPECT_TRUE(Line.next().is(TokKind::Eof)); // the line's lexer ends with the line
  Token Next = L.next();                     // and the module's goes on at the next one
  EXPECT_TRUE(Next.isDirective(".version"));
  EXPECT_EQ(Next.Loc.Line, 2u);
  // No name after the dot: the token is just the dot.
  Lexer Bare("  . x");
  EXPECT_EQ(Bare.lexDotWord().Text, ".");
}

// The parser sizes its tables by this count: the 16-byte scan must count exactly what a '.'-by-'.' walk
// counts, at block edges and at the end of the text too.
TEST(ByteScan, CountFunctionDirectivesAgreesWithAWalk) {
  auto walk = [](llvm::StringRef Text) {
    size_t Count = 0;
    for (size_t I = 0; I < Text.size(); ++I)
      if (Text[I] == '.')
        Count += Text.drop_front(I + 1).starts_with("func") || Text.drop_front(I + 1).starts_with("entry");
    return Count;
  };
  auto count = [](llvm::StringRef Text) { return countFunctionDirectives(Text.data(), Text.size()); };
  EXPECT_EQ(count(""), 0u);
  EXPECT_EQ(count(".func"), 1u);
  EXPECT_EQ(count(".fun"), 0u);
  EXPECT_EQ(count(".entr"), 0u);
  EXPECT_EQ(count("x.entry"), 1u);
  EXPECT_EQ(count(".visible .entry k(){} .func f(){} ld.param.u64 %rd1, [p]; .extern .func g();"), 3u);
  // Every position of a directive against a 16-byte block: across the edge, at the last byte.
  for (size_t Pad = 0; Pad < 40; ++Pad)
    for (const char *Word : {".func", ".entry", ".f", ".e", ".fun", ".entr", ".e.func"}) {
      std::string Text = std::string(Pad, 'x') + Word;
      EXPECT_EQ(count(Text), walk(Text)) << Text;
      Text += std::string(Pad % 17, '.');
      EXPECT_EQ(count(Text), walk(Text)) << Text;
    }
  // Random texts over the letters that matter.
  std::mt19937 Random(7);
  const char Alphabet[] = ".funcentry x";
  for (int Round = 0; Round < 200; ++Round) {
    std::string Text(Random() % 100, ' ');
    for (char &C : Text)
      C = Alphabet[Random() % (sizeof(Alphabet) - 1)];
    EXPECT_EQ(count(Text), walk(Text)) << Text;
  }
}

} // namespace
