// Unit tests of the link-time ABI checks (AbiCheck.h) on hand-built modules: every finding kind, its
// severity and code, and the exact text a user sees.
#include "ptxlink/AbiCheck.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <string>

using namespace ptxlink;

namespace {

ParamInfo param(llvm::StringRef Type, llvm::StringRef Name = "p", StateSpace Space = StateSpace::Param) {
  ParamInfo P;
  P.Space = Space;
  EXPECT_TRUE(P.setType(Type)) << Type.str();
  P.setName(Name);
  return P;
}

ParamInfo bytes(uint64_t N, uint32_t Align, llvm::StringRef Name = "p") {
  ParamInfo P = param(".b8", Name);
  P.ArrayDims.push_back(N);
  P.Align = Align;
  return P;
}

struct Module {
  ModuleVariant M;
  explicit Module(llvm::StringRef Source, llvm::StringRef Arch = "sm_80") {
    M.SourceName = Source;
    M.Target.VersionMajor = 8;
    M.Target.VersionMinor = 0;
    M.Target.Arch = Arch;
    M.Target.AddressSizeGiven = true;
  }
  uint32_t addSymbol(llvm::StringRef Name, SymbolKind Kind, Binding Bind, uint32_t Line) {
    Symbol S;
    S.setName(Name);
    S.Kind = Kind;
    S.Bind = Bind;
    S.Where = {Line, 1};
    M.Symbols.push_back(S);
    return static_cast<uint32_t>(M.Symbols.size() - 1);
  }
  FunctionAbi &func(llvm::StringRef Name, Binding Bind, ParamList Returns, ParamList Params,
                    uint32_t Line = 4) {
    FunctionAbi F;
    F.Symbol = addSymbol(Name, SymbolKind::Function, Bind, Line);
    F.HasBody = Bind != Binding::Undefined;
    M.appendSignature(F, Returns, Params); // its place is its symbol's
    M.Functions.push_back(F);
    return M.Functions.back();
  }
  VariableAbi &var(llvm::StringRef Name, Binding Bind, llvm::StringRef Type, std::vector<uint64_t> Dims,
                   uint32_t Align = 0, uint32_t Line = 3) {
    VariableAbi V;
    V.Symbol = addSymbol(Name, SymbolKind::Variable, Bind, Line);
    V.Type = Type;
    for (uint64_t D : Dims)
      V.ArrayDims.push_back(D);
    V.Align = Align;
    V.Where = {Line, 1};
    M.Variables.push_back(V);
    return M.Variables.back();
  }
  SymbolSite site(llvm::StringRef Name, llvm::StringRef Object) { return {&M, Object, M.findSymbol(Name)}; }
};

struct Engine {
  std::string Text;
  llvm::raw_string_ostream OS{Text};
  DiagnosticEngine Diags{OS};
  Engine() { Diags.setRecord(true); }
  std::vector<std::string> codes() const {
    std::vector<std::string> Out;
    for (const Diagnostic &D : Diags.recorded())
      Out.push_back(D.Code);
    return Out;
  }
};

/// Declaration in a.ptx (a.o), definition in b.ptx (b.o): the usual pair.
struct Pair {
  Module A{"a.ptx"}, B{"b.ptx"};
  Engine E;
  bool checkFunction(llvm::StringRef Name = "f", AbiCheckOptions Options = {}) {
    return checkFunctionAgreement(B.site(Name, "b.o"), A.site(Name, "a.o"), E.Diags, Options);
  }
  bool checkVariable(llvm::StringRef Name = "v") {
    return checkVariableAgreement(B.site(Name, "b.o"), A.site(Name, "a.o"), E.Diags);
  }
};

TEST(AbiCheck, IssueExampleIntVersusLongInt) {
  // extern "C" int f(int) declared in a.cu, long f(long, int) defined in b.cu.
  Pair P;
  P.A.func("f", Binding::Undefined, {param(".b32", "r")}, {param(".b32", "f_param_0")});
  P.B.func("f", Binding::Global, {param(".b64", "r")}, {param(".b64", "f_param_0"), param(".b32", "f_param_1")}, 3);
  EXPECT_TRUE(P.checkFunction());
  EXPECT_EQ(P.E.Text,
            "ptxlink: error: declaration of 'f' does not match its definition: params: 1 in the declaration, 2 "
            "in the definition\n"
            ">>> declared at a.ptx:4:1 (a.o): .extern .func (.param .b32 r) f (.param .b32 f_param_0)\n"
            ">>> defined at b.ptx:3:1 (b.o): .visible .func (.param .b64 r) f (.param .b64 f_param_0, .param .b32 "
            "f_param_1)\n"
            ">>> params: 1 in the declaration, 2 in the definition\n"
            ">>> return value: .b32 (4 bytes) in the declaration, .b64 (8 bytes) in the definition\n"
            ">>> param 1: .b32 (4 bytes) in the declaration, .b64 (8 bytes) in the definition\n");
  EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-count"});
}

TEST(AbiCheck, IdenticalSignaturesSayNothing) {
  Pair P;
  P.A.func("f", Binding::Undefined, {param(".b32", "r")}, {param(".b32", "x"), bytes(12, 8, "s")});
  P.B.func("f", Binding::Global, {param(".b32", "out")}, {param(".b32", "y"), bytes(12, 8, "t")});
  EXPECT_FALSE(P.checkFunction());
  EXPECT_EQ(P.E.Text, "");
}

TEST(AbiCheck, UntypedVersusUnsignedIsNothingSignedVersusUnsignedIsANote) {
  Pair P;
  P.A.func("f", Binding::Undefined, {}, {param(".b32"), param(".u32")});
  P.B.func("f", Binding::Global, {}, {param(".u32"), param(".s32")});
  EXPECT_FALSE(P.checkFunction());
  EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-signedness"});
  ASSERT_EQ(P.E.Diags.recorded().size(), 1u);
  EXPECT_EQ(P.E.Diags.recorded()[0].Level, Severity::Note);
  EXPECT_NE(P.E.Text.find(": param 2: .u32 in the declaration, .s32 in the definition\n"), std::string::npos);
}

TEST(AbiCheck, IntVersusFloatIsAWarningAndWerrorMakesItAnError) {
  for (bool Werror : {false, true}) {
    Pair P;
    P.E.Diags.setWarningsAsErrors(Werror);
    P.A.func("f", Binding::Undefined, {}, {param(".b32")});
    P.B.func("f", Binding::Global, {}, {param(".f32")});
    EXPECT_EQ(P.checkFunction(), Werror);
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-type"});
    EXPECT_NE(P.E.Text.find(Werror ? "ptxlink: error: " : "ptxlink: warning: "), std::string::npos);
    EXPECT_NE(P.E.Text.find("param 1: .b32 (4 bytes) in the declaration, .f32 (4 bytes) in the definition"),
              std::string::npos);
  }
}

TEST(AbiCheck, StructByValueLayoutChange) {
  Pair P;
  P.A.func("f", Binding::Undefined, {}, {bytes(12, 8)});
  P.B.func("f", Binding::Global, {}, {bytes(16, 8)});
  EXPECT_TRUE(P.checkFunction());
  EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-size"});
  EXPECT_NE(P.E.Text.find(": param 1: .b8[12] (12 bytes) in the declaration, .b8[16] (16 bytes) in the definition\n"),
            std::string::npos);
}

TEST(AbiCheck, AlignmentUnsizedShapeAndElement) {
  {
    Pair P;
    P.A.func("f", Binding::Undefined, {}, {bytes(16, 4)});
    P.B.func("f", Binding::Global, {}, {bytes(16, 8)});
    EXPECT_TRUE(P.checkFunction());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-align"});
    EXPECT_NE(P.E.Text.find("param 1: .align 4 .b8[16] (16 bytes) in the declaration, .align 8 .b8[16] (16 bytes)"),
              std::string::npos);
  }
  {
    Pair P;
    ParamInfo Unsized = param(".b8");
    Unsized.UnsizedArray = true;
    Unsized.Align = 4;
    P.A.func("f", Binding::Undefined, {}, {param(".b32"), Unsized});
    P.B.func("f", Binding::Global, {}, {param(".b32"), bytes(16, 4)});
    EXPECT_TRUE(P.checkFunction());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-unsized"});
    EXPECT_NE(P.E.Text.find("param 2: .b8[] in the declaration, .b8[16] (16 bytes) in the definition"),
              std::string::npos);
    EXPECT_NE(P.E.Text.find("f (.param .b32 p, .param .align 4 .b8 p[])"), std::string::npos);
  }
  {
    Pair P;
    ParamInfo V2 = param(".f32");
    V2.VectorWidth = 2;
    P.A.func("f", Binding::Undefined, {}, {V2});
    P.B.func("f", Binding::Global, {}, {param(".b64")});
    EXPECT_TRUE(P.checkFunction());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-shape"});
    EXPECT_NE(P.E.Text.find("param 1: .v2 .f32 (8 bytes) in the declaration, .b64 (8 bytes) in the definition"),
              std::string::npos);
  }
  {
    Pair P;
    ParamInfo Words = param(".b32");
    Words.ArrayDims.push_back(4);
    Words.Align = 8;
    P.A.func("f", Binding::Undefined, {}, {Words});
    P.B.func("f", Binding::Global, {}, {bytes(16, 8)});
    EXPECT_FALSE(P.checkFunction());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-element"});
  }
}

TEST(AbiCheck, ParamSpaceIsANote) {
  Pair P;
  P.A.func("f", Binding::Undefined, {}, {param(".b32", "x", StateSpace::Reg)});
  P.B.func("f", Binding::Global, {}, {param(".b32", "x", StateSpace::Param)});
  EXPECT_FALSE(P.checkFunction());
  EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-space"});
  EXPECT_NE(P.E.Text.find("ptxlink: note: "), std::string::npos);
}

TEST(AbiCheck, NoReturnAndAbiPreserve) {
  {
    Pair P;
    P.A.func("f", Binding::Undefined, {}, {}).NoReturn = true;
    P.B.func("f", Binding::Global, {}, {});
    EXPECT_TRUE(P.checkFunction());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-noreturn"});
    EXPECT_NE(P.E.Text.find(".noreturn: present in the declaration, absent in the definition"), std::string::npos);
    EXPECT_NE(P.E.Text.find(".extern .func f .noreturn"), std::string::npos);
  }
  {
    Pair P;
    P.A.func("f", Binding::Undefined, {}, {});
    P.B.func("f", Binding::Global, {}, {}).NoReturn = true;
    EXPECT_FALSE(P.checkFunction());
    ASSERT_EQ(P.E.Diags.recorded().size(), 1u);
    EXPECT_EQ(P.E.Diags.recorded()[0].Level, Severity::Warning);
  }
  {
    Pair P;
    P.A.M.editTuning(P.A.func("f", Binding::Undefined, {}, {})).AbiPreserve = 8;
    FunctionAbi &Def = P.B.func("f", Binding::Global, {}, {});
    P.B.M.editTuning(Def).AbiPreserve = 16;
    P.B.M.editTuning(Def).AbiPreserveControl = 2;
    EXPECT_TRUE(P.checkFunction());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-preserve"});
    EXPECT_NE(P.E.Text.find(">>> .abi_preserve: 8 in the declaration, 16 in the definition\n"), std::string::npos);
    EXPECT_NE(P.E.Text.find(">>> .abi_preserve_control: absent in the declaration, 2 in the definition\n"),
              std::string::npos);
  }
}

TEST(AbiCheck, LowerSeverityLinesAreTagged) {
  Pair P;
  P.A.func("f", Binding::Undefined, {}, {param(".u32"), param(".b32")});
  P.B.func("f", Binding::Global, {}, {param(".s32"), param(".b64")});
  EXPECT_TRUE(P.checkFunction());
  EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-param-size"});
  EXPECT_NE(P.E.Text.find(">>> param 1: .u32 in the declaration, .s32 in the definition [note]\n"), std::string::npos);
}

TEST(AbiCheck, MangledNamesAreShownDemangled) {
  Pair P;
  P.A.func("_Z1f1S", Binding::Undefined, {}, {bytes(8, 4)});
  P.B.func("_Z1f1S", Binding::Global, {}, {bytes(12, 4)});
  EXPECT_TRUE(P.checkFunction("_Z1f1S"));
  EXPECT_NE(P.E.Text.find("declaration of 'f(S)' (_Z1f1S) does not match"), std::string::npos);
  EXPECT_NE(P.E.Text.find(">>> C++: f(S) on both sides: a type it names has a different layout"), std::string::npos);
}

TEST(AbiCheck, AliasWithOtherCxxParametersIsFoundThroughTheMangledNames) {
  Module M("m.ptx");
  M.func("_Z5aliasi", Binding::Global, {}, {param(".b32")}, 9);
  M.func("_Z6targetf", Binding::Global, {}, {param(".b32")}, 3);
  Engine E;
  AbiCheckOptions O;
  O.Relation = AbiRelation::AliasVsAliasee;
  EXPECT_FALSE(checkFunctionAgreement(M.site("_Z6targetf", "m.o"), M.site("_Z5aliasi", "m.o"), E.Diags, O));
  EXPECT_EQ(E.codes(), std::vector<std::string>{"abi-cxx-signature"});
  EXPECT_NE(E.Text.find("alias 'alias(int)' (_Z5aliasi) does not match its aliasee 'target(float)' (_Z6targetf)"),
            std::string::npos);
  EXPECT_NE(E.Text.find(": C++ parameters: (int) in the alias, (float) in the aliasee\n"), std::string::npos);
  EXPECT_NE(E.Text.find(">>> alias declared at m.ptx:9:1 (m.o): "), std::string::npos);
}

TEST(AbiCheck, RelationIsRefinedFromTheSites) {
  // The linker passes the default relation; an .alias and a second definition are still named rightly.
  Module M("m.ptx");
  M.func("target", Binding::Global, {}, {param(".b32")}, 3);
  M.func("alias", Binding::Global, {}, {param(".b64")}, 9).HasBody = false;
  M.M.setAliasOf(M.M.findSymbol("alias"), M.M.findSymbol("target"));
  Engine E;
  EXPECT_TRUE(checkFunctionAgreement(M.site("target", "m.o"), M.site("alias", "m.o"), E.Diags));
  EXPECT_NE(E.Text.find("ptxlink: error: alias 'alias' does not match its aliasee 'target': param 1: .b64 (8 bytes) "
                        "in the alias, .b32 (4 bytes) in the aliasee\n"),
            std::string::npos)
      << E.Text;

  Pair P;
  P.A.func("f", Binding::Weak, {}, {param(".b32")});
  P.B.func("f", Binding::Global, {}, {param(".b64")}, 3);
  EXPECT_TRUE(P.checkFunction());
  EXPECT_NE(P.E.Text.find("ptxlink: error: definitions of 'f' disagree: param 1: .b32 (4 bytes) in this definition, "
                          ".b64 (8 bytes) in the chosen definition\n>>> also defined at a.ptx:4:1 (a.o): .weak .func "
                          "f (.param .b32 p)\n>>> chosen definition at b.ptx:3:1 (b.o): "),
            std::string::npos)
      << P.E.Text;

  Pair V;
  V.A.var("v", Binding::Weak, ".b32", {4}, 4);
  V.B.var("v", Binding::Global, ".b32", {8}, 4);
  EXPECT_TRUE(V.checkVariable());
  EXPECT_NE(V.E.Text.find("ptxlink: error: definitions of variable 'v' disagree: size: .b32[4] (16 bytes) in this "
                          "definition, .b32[8] (32 bytes) in the chosen definition\n"),
            std::string::npos)
      << V.E.Text;
}

TEST(AbiCheck, CallTableMembersAndPrototypes) {
  Module M("m.ptx");
  M.func("g", Binding::Global, {param(".b32")}, {param(".b32")}, 3);
  M.func("h", Binding::Global, {param(".b32")}, {param(".b64")}, 8);
  PrototypeAbi Proto;
  Proto.Label = "Fproto";
  Proto.Function = M.M.findSymbol("g");
  Proto.Returns = {param(".b32", "_")};
  Proto.Params = {param(".b32", "_")};
  Proto.Where = {12, 1};
  M.M.rare().Prototypes.push_back(Proto);
  Engine E;
  AbiCheckOptions O;
  O.Relation = AbiRelation::CallTableMembers;
  EXPECT_TRUE(checkFunctionAgreement(M.site("g", "m.o"), M.site("h", "m.o"), E.Diags, O));
  EXPECT_NE(E.Text.find("call-table members 'h' and 'g' have different prototypes: param 1: .b64 (8 bytes) in this "
                        "member, .b32 (4 bytes) in the first member"),
            std::string::npos);
  EXPECT_FALSE(checkPrototypeAgreement(M.site("g", "m.o"), {&M.M, "m.o", 0}, E.Diags));
  EXPECT_TRUE(checkPrototypeAgreement(M.site("h", "m.o"), {&M.M, "m.o", 0}, E.Diags));
  EXPECT_NE(E.Text.find("call target 'h' does not match prototype 'Fproto': param 1: .b32 (4 bytes) in the "
                        "prototype, .b64 (8 bytes) in the call target"),
            std::string::npos);
  EXPECT_NE(E.Text.find(">>> prototype at m.ptx:12:1 (m.o): Fproto: .callprototype (.param .b32 _) _ (.param .b32 "
                        "_) in g\n"),
            std::string::npos);
}

TEST(AbiCheck, UncheckableNotesOnlyWhenAsked) {
  for (bool Ask : {false, true}) {
    Pair P;
    P.A.func("f", Binding::Undefined, {}, {param(".b32")});
    P.B.func("f", Binding::Global, {}, {param(".b32")});
    AbiCheckOptions O;
    O.ReportUncheckable = Ask;
    EXPECT_FALSE(P.checkFunction("f", O));
    EXPECT_EQ(P.E.codes(), Ask ? std::vector<std::string>{"abi-uncheckable"} : std::vector<std::string>{});
  }
  // The same mangled name on both sides settles the C++ types: nothing to say.
  Pair P;
  P.A.func("_Z1fi", Binding::Undefined, {}, {param(".b32")});
  P.B.func("_Z1fi", Binding::Global, {}, {param(".b32")});
  AbiCheckOptions O;
  O.ReportUncheckable = true;
  EXPECT_FALSE(P.checkFunction("_Z1fi", O));
  EXPECT_TRUE(P.E.codes().empty());
}

TEST(AbiCheck, MissingSignatureAndKindMismatch) {
  Pair P;
  P.A.addSymbol("f", SymbolKind::Function, Binding::Undefined, 2);
  P.B.func("f", Binding::Global, {}, {});
  AbiCheckOptions O;
  O.ReportUncheckable = true;
  EXPECT_FALSE(P.checkFunction("f", O));
  EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-no-signature"});

  Pair Q;
  Q.A.var("f", Binding::Undefined, ".b32", {});
  Q.B.func("f", Binding::Global, {}, {});
  EXPECT_TRUE(Q.checkFunction("f"));
  EXPECT_EQ(Q.E.codes(), std::vector<std::string>{"abi-kind"});

  Pair K;
  K.A.func("k", Binding::Undefined, {}, {}).IsKernel = true;
  K.B.func("k", Binding::Global, {}, {});
  EXPECT_TRUE(K.checkFunction("k"));
  EXPECT_EQ(K.E.codes(), std::vector<std::string>{"abi-kind"});
}

TEST(AbiCheck, ExternArrayWithTheWrongSize) {
  Pair P;
  P.A.var("v", Binding::Undefined, ".b32", {10}, 4);
  P.B.var("v", Binding::Global, ".b32", {20}, 4, 5);
  EXPECT_TRUE(P.checkVariable());
  EXPECT_EQ(P.E.Text, "ptxlink: error: declaration of variable 'v' does not match its definition: size: .b32[10] (40 "
                      "bytes) in the declaration, .b32[20] (80 bytes) in the definition\n"
                      ">>> declared at a.ptx:3:1 (a.o): .extern .global .align 4 .b32 v[10]\n"
                      ">>> defined at b.ptx:5:1 (b.o): .visible .global .align 4 .b32 v[20]\n");
  EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-var-size"});
}

TEST(AbiCheck, VariableRules) {
  {
    Pair P; // extern int v[]; promises no size
    P.A.var("v", Binding::Undefined, ".b32", {}, 4).UnsizedArray = true;
    P.B.var("v", Binding::Global, ".b32", {20}, 4);
    EXPECT_FALSE(P.checkVariable());
    EXPECT_TRUE(P.E.codes().empty());
  }
  {
    Pair P;
    P.A.var("v", Binding::Undefined, ".b32", {4}).Space = StateSpace::Const;
    P.B.var("v", Binding::Global, ".b32", {4});
    EXPECT_TRUE(P.checkVariable());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-var-space"});
  }
  {
    Pair P; // the declaration promises 16-byte alignment the definition does not give
    P.A.var("v", Binding::Undefined, ".b8", {16}, 16);
    P.B.var("v", Binding::Global, ".b8", {16}, 4);
    EXPECT_TRUE(P.checkVariable());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-var-align"});
    Pair Q; // the other way round is harmless
    Q.A.var("v", Binding::Undefined, ".b8", {16}, 4);
    Q.B.var("v", Binding::Global, ".b8", {16}, 16);
    EXPECT_FALSE(Q.checkVariable());
    EXPECT_TRUE(Q.E.codes().empty());
  }
  {
    Pair P;
    P.A.var("v", Binding::Undefined, ".f32", {4}, 4);
    P.B.var("v", Binding::Global, ".u32", {4}, 4);
    EXPECT_FALSE(P.checkVariable());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-var-type"});
    Pair Q;
    Q.A.var("v", Binding::Undefined, ".u16", {8}, 4);
    Q.B.var("v", Binding::Global, ".u32", {4}, 4);
    EXPECT_FALSE(Q.checkVariable());
    EXPECT_EQ(Q.E.codes(), std::vector<std::string>{"abi-var-element"});
    // A byte view of the same bytes (nvcc's extern declaration of a struct array) is no disagreement,
    // whichever side it is on.
    for (bool ByteViewDeclared : {true, false}) {
      Pair S;
      S.A.var("v", Binding::Undefined, ByteViewDeclared ? ".b8" : ".u64", {ByteViewDeclared ? 32u : 4u}, 8);
      S.B.var("v", Binding::Global, ByteViewDeclared ? ".u64" : ".b8", {ByteViewDeclared ? 4u : 32u}, 8);
      EXPECT_FALSE(S.checkVariable());
      EXPECT_TRUE(S.E.codes().empty());
    }
    Pair R;
    R.A.var("v", Binding::Undefined, ".s32", {4}, 4);
    R.B.var("v", Binding::Global, ".u32", {4}, 4);
    EXPECT_FALSE(R.checkVariable());
    EXPECT_EQ(R.E.codes(), std::vector<std::string>{"abi-var-signedness"});
  }
  {
    Pair P;
    P.A.var("v", Binding::Undefined, ".b32", {}).Attributes.push_back(".managed");
    P.B.var("v", Binding::Global, ".b32", {});
    EXPECT_TRUE(P.checkVariable());
    EXPECT_EQ(P.E.codes(), std::vector<std::string>{"abi-var-attribute"});
  }
}

TEST(AbiCheck, JsonDiagnosticsCarryTheCode) {
  Pair P;
  P.E.Diags.setJson(true);
  P.A.var("v", Binding::Undefined, ".b32", {10}, 4);
  P.B.var("v", Binding::Global, ".b32", {20}, 4);
  EXPECT_TRUE(P.checkVariable());
  EXPECT_NE(P.E.Text.find("\"code\":\"abi-var-size\""), std::string::npos);
  EXPECT_NE(P.E.Text.find("\"severity\":\"error\""), std::string::npos);
  // Sites are objects with the place in parts, not pre-rendered lines.
  auto Line = llvm::json::parse(llvm::StringRef(P.E.Text).split('\n').first);
  ASSERT_TRUE(bool(Line)) << llvm::toString(Line.takeError());
  const llvm::json::Array *Sites = Line->getAsObject()->getArray("sites");
  ASSERT_TRUE(Sites && Sites->size() >= 2) << P.E.Text;
  const llvm::json::Object &Declared = *(*Sites)[0].getAsObject();
  EXPECT_EQ(Declared.getString("message"), "declared at");
  EXPECT_EQ(Declared.getString("file"), "a.ptx");
  EXPECT_EQ(Declared.getInteger("line"), 3);
  EXPECT_EQ(Declared.getInteger("column"), 1);
  EXPECT_EQ(Declared.getString("object"), "a.o");
  EXPECT_EQ(Declared.getString("detail"), ".extern .global .align 4 .b32 v[10]");
  EXPECT_EQ(Declared.size(), 6u);
}

TargetInfo target(uint32_t Major, uint32_t Minor, llvm::StringRef Arch) {
  TargetInfo T;
  T.VersionMajor = Major;
  T.VersionMinor = Minor;
  T.Arch = Arch;
  return T;
}

TEST(AbiCheck, KernelParameterSpace) {
  EXPECT_EQ(kernelParamLimit(target(8, 0, "sm_80")), 4352u);
  EXPECT_EQ(kernelParamLimit(target(8, 1, "sm_80")), 32764u);
  EXPECT_EQ(kernelParamLimit(target(8, 1, "sm_60")), 4096u);
  EXPECT_EQ(kernelParamLimit(target(1, 4, "sm_10")), 256u);
  EXPECT_EQ(kernelParamLimit(target(9, 0, "sm_100a")), 32764u);

  Module M("k.ptx");
  FunctionAbi &K = M.func("k", Binding::Global, {}, {param(".u64", "a"), bytes(5000, 4, "b")}, 7);
  K.IsKernel = true;
  Engine E;
  EXPECT_TRUE(checkKernels(M.M, "k.o", E.Diags));
  EXPECT_EQ(E.Text, "ptxlink: error: kernel k needs 5008 bytes of parameter space, more than the 4352 bytes allowed "
                    "for .version 8.0 on sm_80\n"
                    ">>> at k.ptx:7:1 (k.o)\n"
                    ">>> param 1: .param .u64 a at offset 0, 8 bytes\n"
                    ">>> param 2: .param .align 4 .b8 b[5000] at offset 8, 5000 bytes\n");
  M.M.Target.VersionMinor = 1;
  Engine E2;
  EXPECT_FALSE(checkKernels(M.M, "k.o", E2.Diags));
}

TEST(AbiCheck, NarrowRegParamsAndBadAlignment) {
  Module M("n.ptx");
  M.func("g", Binding::Global, {param(".u16", "r", StateSpace::Reg)}, {param(".b32", "a", StateSpace::Reg),
                                                                       param(".pred", "q", StateSpace::Reg),
                                                                       bytes(6, 3, "s")});
  Engine E;
  EXPECT_TRUE(checkKernels(M.M, "n.o", E.Diags));
  EXPECT_EQ(E.codes(), (std::vector<std::string>{"abi-reg-param-narrow", "abi-reg-param-narrow",
                                                 "abi-param-align-invalid"}));
  EXPECT_NE(E.Text.find("ptxlink: error: function g: return value 1 'r' is .reg .u16 r: under the ABI, .reg parameters "
                        "must be at least 32 bits"),
            std::string::npos);
  EXPECT_NE(E.Text.find("function g: param 3 's' is .param .align 3 .b8 s[6]: .param alignment must be a power "
                        "of two up to 128"),
            std::string::npos);
}

std::vector<std::string> moduleCodes(std::vector<Module *> Mods, bool Verbose = false) {
  std::vector<ModuleSite> Sites;
  for (Module *M : Mods)
    Sites.push_back({&M->M, M->M.SourceName});
  Engine E;
  AbiCheckOptions O;
  O.ReportUncheckable = Verbose;
  checkModuleCompatibility(Sites, E.Diags, O);
  return E.codes();
}

TEST(AbiCheck, ModuleCompatibility) {
  using V = std::vector<std::string>;
  Module A("a.ptx", "sm_80"), B("b.ptx", "sm_90"), C("c.ptx", "sm_90a"), D("d.ptx", "sm_100"),
      F("f.ptx", "sm_100f"), G("g.ptx", "sm_103a"), H("h.ptx", "sm_120"), I("i.ptx", "sm_100a");
  EXPECT_EQ(moduleCodes({&A, &B}), V{});
  EXPECT_EQ(moduleCodes({&A, &C}), V{});  // sm_80 code runs on sm_90
  EXPECT_EQ(moduleCodes({&C, &D}), V{"abi-target-incompatible"});
  EXPECT_EQ(moduleCodes({&C, &I}), V{"abi-target-incompatible"});
  EXPECT_EQ(moduleCodes({&F, &G}), V{}); // sm_103a is in the sm_10x family
  EXPECT_EQ(moduleCodes({&F, &D}), V{});
  EXPECT_EQ(moduleCodes({&F, &H}), V{"abi-target-incompatible"});
  EXPECT_EQ(moduleCodes({&B, &F}), V{});

  Module P("p.ptx"), Q("q.ptx");
  Q.M.Target.AddressSize = 32;
  EXPECT_EQ(moduleCodes({&P, &Q}), V{"abi-address-size"});
  Q.M.Target.AddressSize = 64;
  Q.M.Target.MapF64ToF32 = true;
  EXPECT_EQ(moduleCodes({&P, &Q}), V{"abi-map-f64-to-f32"});
  Q.M.Target.MapF64ToF32 = false;
  Q.M.Target.Texmode = "texmode_independent";
  EXPECT_EQ(moduleCodes({&P, &Q}), V{"abi-texmode"});
  Q.M.Target.Texmode = "";
  Q.M.Target.VersionMinor = 5;
  EXPECT_EQ(moduleCodes({&P, &Q}), V{});
  EXPECT_EQ(moduleCodes({&P, &Q}, true), V{"abi-ptx-version"});
}

TEST(AbiCheck, ModuleDisagreementText) {
  Module P("p.ptx"), Q("q.ptx");
  Q.M.Target.AddressSize = 32;
  Q.M.Target.AddressSizeGiven = false;
  ModuleSite Sites[] = {{&P.M, "p.o"}, {&Q.M, "q.o"}};
  Engine E;
  EXPECT_TRUE(checkModuleCompatibility(Sites, E.Diags));
  EXPECT_EQ(E.Text, "ptxlink: error: modules disagree on the address size: pointers would have two widths "
                    "(.address_size 32 (default) in 1 module, .address_size 64 in 1 module)\n"
                    ">>> q.ptx (q.o): .address_size 32 (default)\n"
                    ">>> p.ptx (p.o): .address_size 64\n");
}

} // namespace
