// Unit tests of the module-level PTX parser: module directives and targets, function headers in all
// their forms, variables and initializers, debug sections (`.section` and `@@DWARF`), and error recovery
// (every error reported with its location, parsing continues).
#include "PtxParser.h"

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstring>
#include <map>
#include <random>
#include <regex>
#include <string>

using namespace ptxlink;

namespace {

struct Parsed {
  std::string Text;
  std::string Errors;
  PtxModule M;
  bool Ok = false;
  unsigned ErrorCount = 0;
};

std::unique_ptr<Parsed> parse(const std::string &Text) {
  auto P = std::make_unique<Parsed>();
  P->Text = Text;
  llvm::raw_string_ostream OS(P->Errors);
  DiagnosticEngine Engine(OS, "test");
  Engine.setErrorLimit(0);
  SourceDiags D(Engine, P->Text, "t.ptx");
  P->Ok = parsePtxModule(P->Text, "t.ptx", D, P->M);
  P->ErrorCount = D.errors();
  OS.flush();
  return P;
}

const char *Header = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// The same debug fixups, read from two spellings of one section: A's from TextA, B's where ColumnInB says
/// A's columns moved to.
template <typename ColumnMap>
void expectSameFixups(const PtxDebugSection &A, const PtxDebugSection &B, const std::string &TextA,
                      ColumnMap ColumnInB) {
  ASSERT_EQ(A.Fixups.size(), B.Fixups.size());
  for (size_t I = 0; I < A.Fixups.size(); ++I) {
    const PtxDwarfFixup &X = A.Fixups[I], &Y = B.Fixups[I];
    EXPECT_EQ(X.Name, Y.Name);
    EXPECT_EQ(X.MinusName, Y.MinusName);
    EXPECT_EQ(X.Offset, Y.Offset);
    EXPECT_EQ(X.Width, Y.Width);
    EXPECT_EQ(X.Addend, Y.Addend);
    EXPECT_EQ(X.Loc.Line, Y.Loc.Line);
    EXPECT_EQ(ColumnInB(X.Loc), Y.Loc.Column);
    EXPECT_EQ(TextA.substr(X.TextOffset, X.Name.size()), X.Name.str());
    size_t LineStart = TextA.rfind('\n', X.TextOffset) + 1;
    EXPECT_EQ(X.Loc.Column, X.TextOffset - LineStart + 1);
  }
}

TEST(ParserTest, ModuleDirectives) {
  auto P = parse(".version 7.8\n.target compute_90a, debug\n.address_size 32\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  EXPECT_EQ(P->M.Target.VersionMajor, 7u);
  EXPECT_EQ(P->M.Target.VersionMinor, 8u);
  EXPECT_EQ(P->M.ArchName, "sm_90a");
  EXPECT_TRUE(P->M.Target.Debug);
  EXPECT_EQ(P->M.Target.AddressSize, 32u);
  EXPECT_TRUE(P->M.Target.AddressSizeGiven);
}

TEST(ParserTest, TargetForms) {
  EXPECT_EQ(canonicalArch("sm_101a"), "sm_110a");
  EXPECT_EQ(canonicalArch("sm_101"), "sm_110");
  EXPECT_EQ(canonicalArch("sm_101f"), "sm_110f");
  EXPECT_EQ(canonicalArch("compute_52"), "sm_52");
  EXPECT_EQ(canonicalArch("sm_120f"), "sm_120f");
  EXPECT_EQ(canonicalArch("debug"), "");
  auto P = parse(".version 1.4\n.target sm_10, map_f64_to_f32\n.target sm_13, texmode_independent\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  EXPECT_EQ(P->M.ArchName, "sm_13");
  EXPECT_TRUE(P->M.Target.MapF64ToF32);
  EXPECT_EQ(P->M.Target.Texmode, "texmode_independent");
  EXPECT_EQ(P->M.Target.Options.size(), 2u);
  EXPECT_FALSE(P->M.Target.AddressSizeGiven);
  EXPECT_EQ(P->M.Target.AddressSize, 32u);
  auto Q = parse(".version 8.8\n.target sm_100\n.target sm_100a\n.target sm_90\n");
  ASSERT_TRUE(Q->Ok) << Q->Errors;
  EXPECT_EQ(Q->M.ArchName, "sm_100a");
  auto Bad = parse(".version 8.8\n.target sm_xx\n");
  EXPECT_FALSE(Bad->Ok);
  EXPECT_NE(Bad->Errors.find("t.ptx:2:9: error: unknown target 'sm_xx'"), std::string::npos) << Bad->Errors;
}

TEST(ParserTest, FunctionHeaders) {
  auto P = parse(std::string(Header) +
                 ".visible .func (.param .align 16 .b8 ret[16]) f(.reg .b32 a, .param .u64 .ptr .global .align 16 p,\n"
                 "   .param .v4 .f32 v, .param .align 4 .b8 rest[]) .noreturn_placeholder_removed\n");
  // .noreturn is not allowed with return parameters, and unknown directives are errors.
  EXPECT_FALSE(P->Ok);
  auto Q = parse(std::string(Header) +
                 ".visible .func (.param .align 16 .b8 ret[16]) f(.reg .b32 a, .param .u64 .ptr .global .align 16 p,\n"
                 "   .param .v4 .f32 v, .param .align 4 .b8 rest[]) .abi_preserve 8 .abi_preserve_control 2\n{\n ret;\n}\n"
                 ".func .attribute(.unified(0x1, 0x2)) g .noreturn;\n"
                 ".entry k .maxntid 128, 2 .reqntid 64 .minnctapersm 4 .maxnreg 32 .maxnctapersm 1\n"
                 "  .reqnctapercluster 2, 2, 1 .explicitcluster .maxclusterrank 8 .blocksareclusters\n"
                 "  .pragma \"nounroll\"; { ret; }\n"
                 ".extern .func (.param .b32 r) h\n(\n  .param .b32 x\n)\n;\n");
  ASSERT_TRUE(Q->Ok) << Q->Errors;
  ASSERT_EQ(Q->M.Functions.size(), 4u);
  const PtxFunction &F = Q->M.Functions[0];
  const FunctionAbi &FAbi = Q->M.FunctionAbis[0];
  EXPECT_EQ(F.name(Q->M.Text), "f");
  EXPECT_EQ(F.Link, Linkage::Visible);
  EXPECT_TRUE(F.HasBody);
  ASSERT_EQ(Q->M.returns(FAbi).size(), 1u);
  EXPECT_EQ(Q->M.returns(FAbi)[0].Align, 16u);
  EXPECT_EQ(Q->M.returns(FAbi)[0].ArrayDims.size(), 1u);
  EXPECT_EQ(Q->M.returns(FAbi)[0].ArrayDims[0], 16u);
  ASSERT_EQ(Q->M.params(FAbi).size(), 4u);
  EXPECT_EQ(Q->M.params(FAbi)[0].Space, StateSpace::Reg);
  EXPECT_EQ(Q->M.params(FAbi)[1].IsPtr, true);
  EXPECT_EQ(Q->M.params(FAbi)[1].PtrSpace, StateSpace::Global);
  EXPECT_EQ(Q->M.params(FAbi)[1].PtrAlign, 16u);
  EXPECT_EQ(Q->M.params(FAbi)[1].Align, 0u);
  EXPECT_EQ(Q->M.params(FAbi)[2].VectorWidth, 4u);
  EXPECT_EQ(Q->M.params(FAbi)[2].type(), ".f32");
  EXPECT_TRUE(Q->M.params(FAbi)[3].UnsizedArray);
  EXPECT_EQ(*Q->M.tuning(FAbi)->AbiPreserve, 8u);
  EXPECT_EQ(*Q->M.tuning(FAbi)->AbiPreserveControl, 2u);
  EXPECT_EQ(Q->Text.substr(F.Begin, F.HeaderEnd - F.Begin).substr(0, 6), ".func ");
  EXPECT_EQ(Q->Text[F.HeaderEnd - 1], '2'); // the last header token is `.abi_preserve_control 2`
  EXPECT_EQ(Q->Text[F.End - 1], '}');

  const PtxFunction &G = Q->M.Functions[1];
  const FunctionAbi &GAbi = Q->M.FunctionAbis[1];
  EXPECT_FALSE(G.HasBody);
  EXPECT_TRUE(GAbi.NoReturn);
  ASSERT_EQ(Q->M.tuning(GAbi)->Attributes.size(), 1u);
  EXPECT_EQ(Q->M.tuning(GAbi)->Attributes[0], ".unified(0x1, 0x2)");

  const PtxFunction &K = Q->M.Functions[2];
  const FunctionAbi &KAbi = Q->M.FunctionAbis[2];
  EXPECT_TRUE(K.IsKernel);
  EXPECT_TRUE(K.HasBody);
  EXPECT_EQ((*Q->M.tuning(KAbi)->MaxNTid)[0], 128u);
  EXPECT_EQ((*Q->M.tuning(KAbi)->MaxNTid)[1], 2u);
  EXPECT_EQ((*Q->M.tuning(KAbi)->MaxNTid)[2], 1u);
  EXPECT_EQ((*Q->M.tuning(KAbi)->ReqNTid)[0], 64u);
  EXPECT_EQ(*Q->M.tuning(KAbi)->MinNCtaPerSm, 4u);
  EXPECT_EQ(*Q->M.tuning(KAbi)->MaxNReg, 32u);
  EXPECT_EQ(*Q->M.tuning(KAbi)->MaxNCtaPerSm, 1u);
  EXPECT_EQ((*Q->M.tuning(KAbi)->ReqNCtaPerCluster)[1], 2u);
  EXPECT_TRUE(Q->M.tuning(KAbi)->ExplicitCluster);
  EXPECT_EQ(*Q->M.tuning(KAbi)->MaxClusterRank, 8u);
  EXPECT_TRUE(Q->M.tuning(KAbi)->BlocksAreClusters);
  ASSERT_EQ(Q->M.tuning(KAbi)->Pragmas.size(), 1u);
  EXPECT_EQ(Q->M.tuning(KAbi)->Pragmas[0], "nounroll");
  // The header stops before the pragma's ';' so that header + ";" is a valid prototype.
  EXPECT_EQ(Q->Text[K.HeaderEnd - 1], '"');

  const PtxFunction &H = Q->M.Functions[3];
  const FunctionAbi &HAbi = Q->M.FunctionAbis[3];
  EXPECT_EQ(H.Link, Linkage::Extern);
  EXPECT_FALSE(H.HasBody);
  EXPECT_EQ(Q->M.params(HAbi).size(), 1u);
}

TEST(ParserTest, OldStylePrototypesWithoutSemicolon) {
  auto P = parse(".version 2.1\n.target sm_20\n"
                 "\t.visible .func (.param .s32 r) f (.param .s32 a)\n\n"
                 "\t.visible .func () g (.param .u32 $p)\n"
                 "\t.entry k { ret; }\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.Functions.size(), 3u);
  EXPECT_FALSE(P->M.Functions[0].HasBody);
  EXPECT_FALSE(P->M.Functions[1].HasBody);
  EXPECT_TRUE(P->M.returns(P->M.FunctionAbis[1]).empty());
  EXPECT_TRUE(P->M.Functions[2].HasBody);
}

// PtxFunction keeps neither the name's place nor the line of `{`: both are counted again from `.func`
// through the header (nameLoc, beginPos + advancePos). They must be what the lexer gives those tokens,
// whatever lies between: CRLF, a lone '\r', tabs, comments across lines, a dotted name, pragmas.
TEST(ParserTest, FunctionPlacesCountedAgainMatchTheLexer) {
  const std::string Text = std::string(Header) +
                           "\t.visible .func\t(.param .b32 r)\r\n  /* a\r\n comment */ f\t(\r\n.param .b32 a) {\r\n ret;\r\n}\r\n"
                           ".func\rg\r(.param .b32 a)\r.noreturn\r\n\r\n\t{ ret; }\n"
                           "  .entry // line comment\n\t\tk.x .maxntid 1 .pragma \"a\",\n \"b\";\n{\n}\n"
                           ".extern .func (.param .b32 r)\n\n h\n(\n  .param .b32 x\n)\n;\n";
  auto P = parse(Text);
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.Functions.size(), 4u);
  // Every token as the lexer cuts it, by offset.
  std::map<size_t, SourceLoc> LexedAt;
  Lexer L(P->Text);
  for (Token T = L.next(); !T.is(TokKind::Eof); T = L.next()) {
    ASSERT_FALSE(T.is(TokKind::Error)) << L.errorMessage().str();
    if (T.is(TokKind::Identifier))
      L.extendDottedName(T);
    LexedAt[T.Offset] = T.Loc;
  }
  const char *Names[] = {"f", "g", "k.x", "h"};
  for (size_t I = 0; I < 4; ++I) {
    const PtxFunction &F = P->M.Functions[I];
    EXPECT_EQ(F.name(P->M.Text), Names[I]);
    ASSERT_TRUE(LexedAt.count(F.NameOffset)) << Names[I];
    EXPECT_EQ(F.nameLoc(P->M.Text).Line, LexedAt[F.NameOffset].Line) << Names[I];
    EXPECT_EQ(F.nameLoc(P->M.Text).Column, LexedAt[F.NameOffset].Column) << Names[I];
    if (!F.HasBody)
      continue;
    ASSERT_TRUE(LexedAt.count(F.BodyBegin)) << Names[I];
    LexPos Open = advancePos(P->M.Text, F.beginPos(), F.BodyBegin);
    Token Brace;
    Brace.Offset = F.BodyBegin;
    Brace.Loc = LexedAt[F.BodyBegin];
    EXPECT_EQ(Open.Line, Brace.start().Line) << Names[I];
    EXPECT_EQ(Open.LineStart, Brace.start().LineStart) << Names[I];
  }
  // The spot checks the comparison rests on: a lone '\r' is no line end, CRLF is one.
  EXPECT_EQ(P->M.Functions[0].nameLoc(P->M.Text).Line, 6u);
  EXPECT_EQ(P->M.Functions[1].nameLoc(P->M.Text).Line, 10u);
  EXPECT_EQ(P->M.Functions[1].nameLoc(P->M.Text).Column, 7u);
  EXPECT_EQ(P->M.Functions[2].nameLoc(P->M.Text).Line, 14u);
  EXPECT_EQ(P->M.Functions[2].nameLoc(P->M.Text).Column, 3u);
}

TEST(ParserTest, BodiesAreSkippedWithStringsCommentsAndBraces) {
  auto P = parse(std::string(Header) + ".entry k {\n { .reg .b32 t; mov.b64 {t, %r1}, %rd1; }\n"
                                       " // } not a brace\n /* } */ .pragma \"}\";\n}\n.global .u32 x;\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.Functions.size(), 1u);
  ASSERT_EQ(P->M.Variables.size(), 1u);
  EXPECT_EQ(P->M.Variables[0].Loc.Line, 9u);
}

TEST(ParserTest, Variables) {
  auto P = parse(std::string(Header) +
                 ".visible .global .align 8 .u64 a = 1, b[4] = {x, generic(y)+4, mask(0xFF)(generic(z)), 0};\n"
                 ".extern .shared .align 16 .b8 smem[];\n"
                 ".extern .global .attribute(.managed) .align 8 .b64 m;\n"
                 ".common .global .u32 c;\n"
                 ".const .f32 k = 0f3fb18a86 /* 1.38704 */;\n"
                 ".global .u32 t[] = {{1, 2}, {3, 4}, {5, 6}};\n"
                 ".global .v2 .f32 v;\n"
                 ".tex .u64 tex;\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.Variables.size(), 8u);
  const PtxVariable &V = P->M.Variables[0];
  EXPECT_EQ(V.Link, Linkage::Visible);
  EXPECT_EQ(V.Align, 8u);
  ASSERT_EQ(V.Decls.size(), 2u);
  EXPECT_TRUE(V.Decls[0].Initialized);
  ASSERT_EQ(V.Decls[1].Uses.size(), 3u);
  EXPECT_EQ(V.Decls[1].Uses[0].Name, "x");
  EXPECT_EQ(V.Decls[1].Uses[1].Name, "y");
  EXPECT_EQ(V.Decls[1].Uses[2].Name, "z");
  EXPECT_EQ(V.Decls[1].InitElements, 4u);
  EXPECT_EQ(P->Text.substr(V.Decls[1].Uses[2].Offset, 1), "z");
  EXPECT_TRUE(P->M.Variables[1].Decls[0].UnsizedArray);
  EXPECT_EQ(P->M.Variables[1].Space, StateSpace::Shared);
  ASSERT_EQ(P->M.Variables[2].Attributes.size(), 1u);
  EXPECT_EQ(P->M.Variables[2].Attributes[0], ".managed");
  EXPECT_EQ(P->M.Variables[3].Link, Linkage::Common);
  EXPECT_EQ(P->M.Variables[5].Decls[0].InitElements, 3u);
  EXPECT_EQ(P->M.Variables[6].VectorWidth, 2u);
  EXPECT_EQ(P->M.Variables[7].Space, StateSpace::Tex);
}

TEST(ParserTest, ParameterizedVariableNames) {
  auto P = parse(std::string(Header) + ".visible .global .align 4 .u32 gv<4>;\n" // line 4
                                       ".global .u32 a<2>, b, c<1>;\n"
                                       ".extern .shared .v2 .f32 s <3>;\n"
                                       ".global .u32 a7<10>;\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.Variables.size(), 4u);
  const PtxVariable &GV = P->M.Variables[0];
  EXPECT_EQ(GV.Align, 4u);
  ASSERT_EQ(GV.Decls.size(), 4u);
  size_t GvAt = P->Text.find("gv<4>");
  for (unsigned I = 0; I < 4; ++I) {
    const PtxDeclarator &D = GV.Decls[I];
    EXPECT_EQ(D.Name, "gv" + std::to_string(I));
    EXPECT_TRUE(D.SynthesizedName);
    // The source range stays that of `gv<4>`, for diagnostics.
    EXPECT_EQ(D.NameOffset, GvAt);
    EXPECT_EQ(D.End, GvAt + 5);
    EXPECT_EQ(D.Loc.Line, 4u);
    EXPECT_EQ(D.Loc.Column, 32u);
    EXPECT_FALSE(D.Initialized);
    EXPECT_TRUE(D.ArrayDims.empty());
    // The name is not a slice of the source text.
    EXPECT_TRUE(D.Name.data() < P->Text.data() || D.Name.data() >= P->Text.data() + P->Text.size());
  }
  const PtxVariable &AB = P->M.Variables[1];
  ASSERT_EQ(AB.Decls.size(), 4u);
  EXPECT_EQ(AB.Decls[0].Name, "a0");
  EXPECT_EQ(AB.Decls[1].Name, "a1");
  EXPECT_EQ(AB.Decls[2].Name, "b");
  EXPECT_FALSE(AB.Decls[2].SynthesizedName);
  EXPECT_EQ(AB.Decls[3].Name, "c0");
  EXPECT_TRUE(AB.Decls[3].SynthesizedName);
  const PtxVariable &S = P->M.Variables[2];
  EXPECT_EQ(S.Link, Linkage::Extern);
  EXPECT_EQ(S.Space, StateSpace::Shared);
  EXPECT_EQ(S.VectorWidth, 2u);
  ASSERT_EQ(S.Decls.size(), 3u);
  EXPECT_EQ(S.Decls[2].Name, "s2");
  const PtxVariable &A7 = P->M.Variables[3];
  ASSERT_EQ(A7.Decls.size(), 10u);
  EXPECT_EQ(A7.Decls[9].Name, "a79");

  // The names outlive a move of the module.
  PtxModule Moved = std::move(P->M);
  EXPECT_EQ(Moved.Variables[0].Decls[3].Name, "gv3");
}

// Each declaration may name up to 65,536 variables, and so may the module's declarations together: four
// declarations of 959,556 in a 182-byte input took 1 GB (fuzzing, docs/reliability.md).
TEST(ParserTest, ParameterizedVariablesAreBoundedPerModule) {
  auto P = parse(std::string(Header) + ".global .u32 a<40000>;\n" // line 4
                                       ".global .u32 b<40000>;\n" // 5
                                       ".global .u32 c<2>;\n");    // 6
  EXPECT_FALSE(P->Ok);
  EXPECT_EQ(P->ErrorCount, 1u) << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:5:16: error: parameterized variable count 40000 takes this module's "
                           "parameterized variables past 65536 (40000 declared before it)"),
            std::string::npos)
      << P->Errors;
}

TEST(ParserTest, ParameterizedVariableNameErrors) {
  auto P = parse(std::string(Header) + ".global .u32 a<0>;\n"       // line 4
                                       ".global .u32 b<x>;\n"       // 5
                                       ".global .u32 c<4;\n"        // 6
                                       ".global .u32 d<2>[4];\n"    // 7
                                       ".global .u32 e<2> = 1;\n"   // 8
                                       ".global .u32 f<0x2>;\n"     // 9
                                       ".global .u32 g<2097152>;\n" // 10
                                       ".global .u32 ok<2>;\n");
  EXPECT_FALSE(P->Ok);
  EXPECT_EQ(P->ErrorCount, 7u) << P->Errors;
  auto Has = [&](const char *Message) {
    EXPECT_NE(P->Errors.find(Message), std::string::npos) << "missing: " << Message << "\nin:\n" << P->Errors;
  };
  Has("t.ptx:4:16: error: parameterized variable count must be at least 1\n.global .u32 a<0>;\n"
      "               ^\n");
  Has("t.ptx:5:16: error: expected a decimal variable count after '<', found 'x'");
  Has("t.ptx:6:17: error: expected '>' after the variable count, found ';'");
  Has("t.ptx:7:18: error: a parameterized variable name cannot be declared as an array");
  Has("t.ptx:8:19: error: a parameterized variable name cannot have an initializer");
  Has("t.ptx:9:16: error: expected a decimal variable count after '<', found '0x2'");
  Has("t.ptx:10:16: error: parameterized variable count 2097152 is too large (at most 65536)");
  // Recovery kept the good declaration.
  ASSERT_EQ(P->M.Variables.size(), 1u);
  EXPECT_EQ(P->M.Variables[0].Decls.size(), 2u);
}

TEST(ParserTest, DebugSection) {
  auto P = parse(std::string(Header) + ".section .debug_info {\n"
                                       "  .b32 end-start\n"
                                       "start:\n"
                                       "  .b8 1, -1, 0xff // c\n"
                                       "  .b16 -5, 258\n"
                                       "  .b32 .debug_abbrev, .debug_loc+0x4\n"
                                       "  .b64 $L__func_begin0, -1\n"
                                       "  .b32 info_label1+12\n"
                                       "end:\n"
                                       "}\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.DebugSections.size(), 1u);
  const PtxDebugSection &S = P->M.DebugSections[0];
  EXPECT_EQ(S.Name, ".debug_info");
  std::vector<uint8_t> Want = {
      35, 0, 0, 0,                                     // end - start
      1, 0xff, 0xff,                                   // .b8
      0xfb, 0xff, 2, 1,                                // .b16
      0, 0, 0, 0, 0, 0, 0, 0,                          // two .b32 relocations
      0, 0, 0, 0, 0, 0, 0, 0,                          // .b64 relocation
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // -1
      0, 0, 0, 0,                                      // label+12
  };
  EXPECT_EQ(S.Bytes, Want);
  ASSERT_EQ(S.Labels.size(), 2u);
  EXPECT_EQ(S.Labels[0].Name, "start");
  EXPECT_EQ(S.Labels[0].Offset, 4u);
  EXPECT_EQ(S.Labels[1].Offset, 39u);
  ASSERT_EQ(S.Fixups.size(), 4u);
  EXPECT_EQ(S.Fixups[0].Name, ".debug_abbrev");
  EXPECT_EQ(S.Fixups[0].Offset, 11u);
  EXPECT_EQ(S.Fixups[1].Name, ".debug_loc");
  EXPECT_EQ(S.Fixups[1].Addend, 4);
  EXPECT_EQ(S.Fixups[2].Name, "$L__func_begin0");
  EXPECT_EQ(S.Fixups[2].Width, 8u);
  EXPECT_EQ(S.Fixups[3].Name, "info_label1");
  EXPECT_EQ(S.Fixups[3].Addend, 12);
}

// The plain lines of a -G module's debug sections are read straight from the bytes (DwarfDataLines.cpp);
// every other form goes through the general list reader. Written both ways (a leading `0` keeps a line
// plain, a leading `0x0` sends it to the general reader), a section must come out the same.
TEST(ParserTest, PlainDebugLinesMatchTheGeneralReader) {
  const char *Lines[] = {".b8 1",
                         ".b8 108,103,101",
                         ".b16 258",
                         ".b32 668648",
                         ".b64 18446744073709551615",
                         ".b32 .debug_abbrev",
                         ".b64 $L__func_begin0",
                         ".b64 $L__func_end0+12",
                         ".b32 .debug_loc + 96 , 7",
                         "\t.b8\t2\t",
                         ".b8 255 // comment",
                         ".b64 kernel_param_0"};
  for (const char *Eol : {"\n", "\r\n"}) {
    std::string Plain = std::string(Header) + ".section .debug_info {" + Eol;
    std::string General = Plain;
    for (const char *Line : Lines) {
      std::string L = Line;
      size_t Dir = L.find(".b");
      size_t ListBegin = L.find_first_of(" \t", Dir) + 1;
      Plain += L.substr(0, ListBegin) + "0, " + L.substr(ListBegin) + Eol;
      General += L.substr(0, ListBegin) + "0x0, " + L.substr(ListBegin) + Eol;
    }
    Plain += std::string("}") + Eol;
    General += std::string("}") + Eol;
    auto P = parse(Plain), G = parse(General);
    ASSERT_TRUE(P->Ok) << P->Errors;
    ASSERT_TRUE(G->Ok) << G->Errors;
    const PtxDebugSection &PS = P->M.DebugSections[0], &GS = G->M.DebugSections[0];
    EXPECT_EQ(PS.Bytes, GS.Bytes);
    ASSERT_EQ(PS.Fixups.size(), 5u);
    // "0x0" is two bytes longer than "0".
    expectSameFixups(PS, GS, P->Text, [](SourceLoc L) { return L.Column + 2; });
    EXPECT_EQ(PS.Fixups[2].Addend, 12);
    EXPECT_EQ(PS.Fixups[3].Addend, 96);
  }
}

// A line the plain reader does not take ends its run; the lines after it start a new one, and errors are
// reported where the general reader finds them.
TEST(ParserTest, PlainDebugLinesAroundOtherLines) {
  auto P = parse(std::string(Header) + ".section .debug_info {\n"
                                       ".b8 1\n"
                                       ".b8 0x10\n"
                                       ".b8 2\n"
                                       ".b8 300\n"
                                       ".b8 3\n"
                                       ".b16 $L__tmp0\n"
                                       ".b64 $L__tmp1-$L__tmp2\n"
                                       "}\n");
  EXPECT_FALSE(P->Ok);
  EXPECT_NE(P->Errors.find("t.ptx:8:5: error: value 300 does not fit in .b8"), std::string::npos) << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:10:6: error: a label or section reference needs .b32 or .b64, not .b16"),
            std::string::npos)
      << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:11:6: error: label difference '$L__tmp1-$L__tmp2' needs both labels"),
            std::string::npos)
      << P->Errors;
  const PtxDebugSection &S = P->M.DebugSections[0];
  std::vector<uint8_t> Want = {1, 0x10, 2, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(S.Bytes, Want);
}

// `.b8 N` lines (most of a -G module) have a path of their own; its edges go to the general reader.
TEST(ParserTest, OneByteDebugLines) {
  auto P = parse(std::string(Header) + ".section .debug_info {\n"
                                       ".b8 1\n.b8 7\n.b8 42\n.b8 255\n.b8 0\n"
                                       ".b8 007\n.b8 5 \n.b8 99\r\n.b8 3 // c\n.b8 10\n"
                                       ".b8 256\n.b8 25a\n.b8 08\n"
                                       "}\n");
  EXPECT_FALSE(P->Ok);
  std::vector<uint8_t> Want = {1, 7, 42, 255, 0, 7, 5, 99, 3, 10, 0, 25, 0};
  EXPECT_EQ(P->M.DebugSections[0].Bytes, Want);
  EXPECT_NE(P->Errors.find("t.ptx:15:5: error: value 256 does not fit in .b8"), std::string::npos) << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:16:7: error: expected .b8, .b16, .b32, .b64 or a label in debug section, found 'a'"),
            std::string::npos)
      << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:17:5: error: invalid integer '08'"), std::string::npos) << P->Errors;
}

// Random debug sections, each read twice: as written, and with `/**/` after every data directive, which
// the lexer skips but which keeps the plain-line reader (DwarfDataLines.cpp) from taking the line, so the
// general list reader reads it. Bytes, labels, fixups and errors must agree (columns after the comment
// moved by its 4 bytes).
TEST(ParserTest, PlainDebugLinesAgreeWithTheGeneralReaderOnRandomSections) {
  std::mt19937 Rng(20261122);
  auto pick = [&](std::initializer_list<const char *> L) { return std::string(L.begin()[Rng() % L.size()]); };
  auto chance = [&](unsigned Percent) { return Rng() % 100 < Percent; };
  auto number = [&](unsigned Width) {
    unsigned Kind = Rng() % 100;
    if (Kind < 70) {
      uint64_t Limit = Width == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * Width)) - 1;
      uint64_t V = Rng() % 3 == 0 ? Rng() % 10 : (uint64_t(Rng()) << 32 | Rng()) % (Limit == ~uint64_t(0) ? Limit : Limit + 1);
      return std::to_string(V);
    }
    if (Kind < 78)
      return std::to_string((uint64_t(1) << (8 * std::min(Width, 7u))) + Rng() % 300); // too wide (but .b64)
    if (Kind < 84)
      return pick({"007", "00", "08", "0x1F", "0b101", "-5", "-0", "1.5", "1e3", "12U", "99999999999999999999"});
    return pick({"12a", "3,", ",", ""});
  };
  auto name = [&]() {
    return pick({"$L__tmp1", "$L__func_begin0", ".debug_loc", ".debug_str", "kern_param_0", "%r", "$", "%", "x.y",
                 "lab1", "_Z3fooi"});
  };
  auto item = [&](unsigned Width) {
    unsigned Kind = Rng() % 100;
    if (Kind < 60)
      return number(Width);
    std::string N = name();
    if (Kind < 80)
      return N;
    if (Kind < 95)
      return N + pick({"+", " + ", "+ ", "- "}) + pick({"4", "96", "0x10", "012", "0", "99999999999999999999", "a"});
    return N + "-" + name();
  };
  for (int Section = 0; Section < 150; ++Section) {
    std::string Eol = chance(20) ? "\r\n" : "\n";
    std::string Plain = std::string(Header) + ".section .debug_info" + Eol + "{" + Eol, General = Plain;
    unsigned LineNo = 6; // the line after `{` (the header is three lines)
    std::map<unsigned, unsigned> CommentColumn; // line -> first column moved by the inserted comment
    for (int Line = 0; Line < 40; ++Line, ++LineNo) {
      if (chance(5)) {
        std::string L = pick({"lab1:", "lab2 :", "$L__tmp9:", ""}) + Eol;
        Plain += L;
        General += L;
        continue;
      }
      unsigned Width = 1u << (Rng() % 4);
      std::string Head = pick({"", "", "\t", "  "}) + ".b" + std::to_string(8 * Width) + pick({" ", " ", "\t"});
      std::string List = item(Width);
      for (unsigned K = Rng() % 4; K > 0; --K)
        List += pick({",", ", ", " , "}) + item(Width);
      std::string Tail = pick({"", "", "", " ", " // c", "/* c */"}) + Eol;
      Plain += Head + List + Tail;
      General += Head + "/**/" + List + Tail;
      CommentColumn[LineNo] = static_cast<unsigned>(Head.size()) + 1;
    }
    Plain += "}" + Eol;
    General += "}" + Eol;
    auto P = parse(Plain), G = parse(General);
    SCOPED_TRACE(Plain);
    ASSERT_EQ(P->M.DebugSections.size(), G->M.DebugSections.size());
    if (P->M.DebugSections.empty())
      continue;
    const PtxDebugSection &A = P->M.DebugSections[0], &B = G->M.DebugSections[0];
    EXPECT_EQ(A.Bytes, B.Bytes);
    ASSERT_EQ(A.Labels.size(), B.Labels.size());
    for (size_t I = 0; I < A.Labels.size(); ++I) {
      EXPECT_EQ(A.Labels[I].Name, B.Labels[I].Name);
      EXPECT_EQ(A.Labels[I].Offset, B.Labels[I].Offset);
    }
    auto moved = [&](SourceLoc L) {
      auto It = CommentColumn.find(L.Line);
      return It != CommentColumn.end() && L.Column >= It->second ? L.Column + 4 : L.Column;
    };
    expectSameFixups(A, B, P->Text, moved);
    // Errors: `t.ptx:L:C: error: ...` lines, in order, with the columns mapped.
    auto errors = [](const std::string &Text) {
      std::vector<std::tuple<unsigned, unsigned, std::string>> R;
      static const std::regex Line(R"(t\.ptx:(\d+):(\d+): (error|warning): ([^\n]*))");
      for (auto It = std::sregex_iterator(Text.begin(), Text.end(), Line); It != std::sregex_iterator(); ++It)
        R.emplace_back(std::stoul((*It)[1]), std::stoul((*It)[2]), (*It)[4].str());
      return R;
    };
    auto EA = errors(P->Errors), EB = errors(G->Errors);
    ASSERT_EQ(EA.size(), EB.size()) << P->Errors << "\n---\n" << G->Errors;
    for (size_t I = 0; I < EA.size(); ++I) {
      auto [LA, CA, MA] = EA[I];
      auto [LB, CB, MB] = EB[I];
      EXPECT_EQ(LA, LB);
      EXPECT_EQ(moved(SourceLoc{LA, CA}), CB) << MA;
      EXPECT_EQ(MA, MB);
    }
  }
}

TEST(ParserTest, LegacyDwarf) {
  auto P = parse(".version 1.4\n.target sm_10\n"
                 "@@DWARF .section .debug_pubnames, \"\", @progbits\n"
                 "@@DWARF .byte   0x2b, 0x00\n"
                 "@@DWARF .4byte  .debug_info\n"
                 "@@DWARF .quad 0x0102030405060708\n"
                 ".entry k { ret; }\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.DebugSections.size(), 1u);
  const PtxDebugSection &S = P->M.DebugSections[0];
  EXPECT_EQ(S.Name, ".debug_pubnames");
  std::vector<uint8_t> Want = {0x2b, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(S.Bytes, Want);
  ASSERT_EQ(S.Fixups.size(), 1u);
  EXPECT_EQ(S.Fixups[0].Offset, 2u);
  EXPECT_EQ(P->M.Functions.size(), 1u);
}

TEST(ParserTest, FilesAliasesPragmas) {
  auto P = parse(std::string(Header) + ".file 1 \"a.cu\"\n.file 2 \"b.cu\", 1339013327, 64118\n"
                                       ".pragma \"nounroll\";\n.visible .func foo(.param .u32 p) { ret; }\n"
                                       ".visible .func bar(.param .u32 p);\n.alias bar, foo;\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.Files.size(), 2u);
  EXPECT_EQ(P->M.Files[1].Path, "b.cu");
  EXPECT_EQ(*P->M.Files[1].Timestamp, 1339013327u);
  EXPECT_EQ(*P->M.Files[1].Size, 64118u);
  ASSERT_EQ(P->M.Texts.size(), 1u);
  EXPECT_EQ(P->Text.substr(P->M.Texts[0].Begin, P->M.Texts[0].End - P->M.Texts[0].Begin), ".pragma \"nounroll\";");
  ASSERT_EQ(P->M.Aliases.size(), 1u);
  EXPECT_EQ(P->M.Aliases[0].Alias, "bar");
  EXPECT_EQ(P->M.Aliases[0].Aliasee, "foo");
}

TEST(ParserTest, ReportsEveryErrorAndRecovers) {
  auto P = parse(std::string(Header) + ".global .u32 a = ;\n"    // line 4
                                       ".func f(.param .q32 x) { ret; }\n" // line 5
                                       ".global .u32 ok;\n"
                                       ".bogus 1;\n"                        // line 7
                                       ".entry k { ret; }\n");
  EXPECT_FALSE(P->Ok);
  EXPECT_EQ(P->ErrorCount, 3u) << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:4:18: error: expected an initializer after '='\n.global .u32 a = ;\n"
                           "                 ^\n"),
            std::string::npos)
      << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:5:16: error: unexpected '.q32' in parameter declaration"), std::string::npos)
      << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:7:1: error: unknown module-scope directive '.bogus'"), std::string::npos)
      << P->Errors;
  // Recovery kept the good items.
  EXPECT_EQ(P->M.Variables.size(), 1u);
  EXPECT_EQ(P->M.Functions.size(), 1u);
}

TEST(ParserTest, MissingVersionAndUnterminatedBody) {
  auto P = parse(".target sm_80\n.entry k {\n ret;\n");
  EXPECT_FALSE(P->Ok);
  EXPECT_NE(P->Errors.find("t.ptx:1:1: error: a PTX module must begin with a .version directive"), std::string::npos)
      << P->Errors;
  EXPECT_NE(P->Errors.find("t.ptx:2:10: error: unterminated function body: expected '}'"), std::string::npos)
      << P->Errors;
}

TEST(ParserTest, CallPrototypeSubParser) {
  std::string Text = "x: .callprototype (.param .b32 _) _ (.param .b64 _, .param .b8 _[12]) .abi_preserve 10;\n";
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  DiagnosticEngine Engine(OS, "test");
  SourceDiags D(Engine, Text, "t.ptx");
  PtxCallPrototype Proto;
  LexPos End;
  ASSERT_TRUE(parseCallPrototypeAt(Text, LexPos{3, 1, 0}, D, Proto, End)) << Errors;
  EXPECT_EQ(Proto.Returns.size(), 1u);
  ASSERT_EQ(Proto.Params.size(), 2u);
  EXPECT_EQ(Proto.Params[1].ArrayDims[0], 12u);
  EXPECT_EQ(*Proto.AbiPreserve, 10u);
  EXPECT_EQ(Text[End.Offset - 1], ';');
}

// typeSizeBytes is the one rule for PTX type sizes (the assembler's variable layout, which names are
// types, the ABI checks and the dumps all ask it).
TEST(ParserTest, TypeSizes) {
  EXPECT_EQ(typeSizeBytes(".b8"), 1u);
  EXPECT_EQ(typeSizeBytes(".u16"), 2u);
  EXPECT_EQ(typeSizeBytes(".f16x2"), 4u);
  EXPECT_EQ(typeSizeBytes(".bf16"), 2u);
  EXPECT_EQ(typeSizeBytes(".bf16x2"), 4u);
  EXPECT_EQ(typeSizeBytes(".tf32"), 4u);
  EXPECT_EQ(typeSizeBytes(".s64"), 8u);
  EXPECT_EQ(typeSizeBytes(".b128"), 16u);
  EXPECT_EQ(typeSizeBytes(".u16x2"), 4u);
  EXPECT_EQ(typeSizeBytes(".f32x2"), 8u);
  // The narrow floats: 8-bit formats one byte each, the 6-bit ones padded to a byte, .e2m1 packed.
  EXPECT_EQ(typeSizeBytes(".e4m3"), 1u);
  EXPECT_EQ(typeSizeBytes(".e5m2x2"), 2u);
  EXPECT_EQ(typeSizeBytes(".e4m3x4"), 4u);
  EXPECT_EQ(typeSizeBytes(".e2m3x2"), 2u);
  EXPECT_EQ(typeSizeBytes(".e3m2x4"), 4u);
  EXPECT_EQ(typeSizeBytes(".e2m1x2"), 1u);
  EXPECT_EQ(typeSizeBytes(".e2m1x4"), 2u);
  EXPECT_EQ(typeSizeBytes(".ue8m0x2"), 2u);
  // A predicate has no memory form and counts as one byte wherever a size is asked.
  EXPECT_EQ(typeSizeBytes(".pred"), 1u);
  // Opaque and unknown spellings have no size.
  EXPECT_EQ(typeSizeBytes(".texref"), 0u);
  EXPECT_EQ(typeSizeBytes(".surfref"), 0u);
  EXPECT_EQ(typeSizeBytes(".q32"), 0u);
  EXPECT_EQ(typeSizeBytes(".f8"), 0u);
  EXPECT_EQ(typeSizeBytes(".u128"), 0u);
  EXPECT_EQ(typeSizeBytes(".f16x3"), 0u);
  EXPECT_EQ(typeSizeBytes(".f16x"), 0u);
  EXPECT_EQ(typeSizeBytes("b32"), 0u);
  EXPECT_EQ(typeSizeBytes(""), 0u);
}

// The parser's records keep 32-bit offsets into the text, so a text past MaxPtxModuleBytes is refused
// with one error instead of being read with offsets that wrap. The text is a reserved, never-touched
// mapping (only its first page is written), so the test costs no memory.
TEST(ParserTest, TextLargerThan4GiBIsRefused) {
  size_t Size = MaxPtxModuleBytes + 2;
  void *Map = mmap(nullptr, Size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Map == MAP_FAILED)
    GTEST_SKIP() << "cannot reserve 4 GiB of address space";
  std::memcpy(Map, ".version 8.0\n", 13);
  llvm::StringRef Text(static_cast<const char *>(Map), Size);
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  DiagnosticEngine Engine(OS, "test");
  SourceDiags D(Engine, Text, "huge.ptx");
  PtxModule M;
  EXPECT_FALSE(parsePtxModule(Text, "huge.ptx", D, M));
  EXPECT_EQ(D.errors(), 1u);
  EXPECT_TRUE(M.Functions.empty());
  OS.flush();
  EXPECT_NE(Errors.find("huge.ptx:1:1: error: PTX module of 4294967297 bytes: at most 4294967295 bytes (4 GiB)"),
            std::string::npos)
      << Errors;
  munmap(Map, Size);
}

// The parse's function table is chunked so that the lowering frees the records behind it: an element
// keeps its index and its address while chunks before it are released, and only whole chunks below the
// given index go.
TEST(ParserTest, ChunkedFunctionTableReleasesWholeChunksBehind) {
  ChunkedVector<uint64_t, 64> Table; // 8 elements per chunk
  Table.reserve(20);
  for (uint64_t I = 0; I < 20; ++I)
    Table.push_back(I * 10);
  ASSERT_EQ(Table.size(), 20u);
  uint64_t *Twelfth = &Table[12];
  uint64_t Sum = 0;
  Table.forEach([&](uint64_t X) { Sum += X; });
  EXPECT_EQ(Sum, 1900u);
  Table.releaseBelow(7); // element 7 is in the first chunk: nothing is freed
  EXPECT_EQ(Table[0], 0u);
  Table.releaseBelow(13); // frees the first chunk (0-7) only; 8-15 holds element 13
  EXPECT_EQ(Table[8], 80u);
  EXPECT_EQ(&Table[12], Twelfth);
  EXPECT_EQ(Table[19], 190u);
  Table.releaseBelow(100); // past the end: every chunk goes, the count stays
  EXPECT_EQ(Table.size(), 20u);
}

TEST(ParserTest, DebugFixupPast4GiBIsRefusedByTheLowering) {
  // Debug bytes can outgrow their text (`.b64 0,0,...`: 8 bytes per 2 characters), so a module below
  // 4 GiB can have a debug section past it, whose references a relocation (32-bit offsets) cannot hold.
  // Such a section takes gigabytes of text; here the parse's fixup is moved there instead.
  auto P = parse(std::string(Header) + ".section .debug_info {\n"
                                       "  .b32 .debug_abbrev\n"
                                       "}\n"
                                       ".section .debug_abbrev { .b8 0 }\n");
  ASSERT_TRUE(P->Ok) << P->Errors;
  ASSERT_EQ(P->M.DebugSections[0].Fixups.size(), 1u);
  P->M.DebugSections[0].Fixups[0].Offset = uint64_t(1) << 32;
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  DiagnosticEngine Engine(OS, "test");
  SourceDiags D(Engine, P->Text, "t.ptx");
  ObjectFile Obj;
  Obj.Variants.emplace_back();
  EXPECT_FALSE(lowerPtxModule(P->M, Obj, Obj.Variants[0], D, false));
  OS.flush();
  EXPECT_NE(Errors.find("t.ptx:5:8: error: debug data refers to '.debug_abbrev' at byte 4294967296 of "
                        ".debug_info: a debug section's references must lie in its first 4 GiB"),
            std::string::npos)
      << Errors;
}

} // namespace
