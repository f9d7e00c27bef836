// Unit tests of the module-level PTX tokenizer: token kinds, positions across CRLF and comments, number
// and string forms, error tokens, and the dotted-name extension used for 2014-era rustc names.
#include "PtxLexer.h"

#include <gtest/gtest.h>

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

} // namespace
