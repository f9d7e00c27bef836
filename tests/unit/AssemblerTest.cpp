// Unit tests of the assembler's lowering to the object model: relocation offsets really spell the names
// (defining occurrences, calls, operands, call tables, .calltargets), scoping, labels and data
// relocations of debug sections with exact bytes, .loc file indices, bindings, aliases, split
// declarations, prototypes, fat objects, and the public corpus (every file assembles; renaming every
// local symbol through the relocations still gives PTX that ptxas accepts).
#include "ptxlink/Assembler.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

using namespace ptxlink;

namespace {

struct Assembled {
  std::string Text;
  std::string Errors;
  std::unique_ptr<ObjectFile> Obj;
  bool Ok = false;
  const ModuleVariant &V() const { return Obj->Variants[0]; }
  uint32_t sym(llvm::StringRef Name) const { return V().findSymbol(Name); }
  const Section &section(llvm::StringRef Name) const {
    for (const Section &S : V().Sections)
      if (V().sectionName(S) == Name)
        return S;
    throw std::runtime_error("no section " + Name.str());
  }
  /// NameRef relocations of section Sec against symbol Name.
  unsigned refs(const Section &Sec, llvm::StringRef Name) const {
    unsigned N = 0;
    for (const Relocation &R : V().relocs(Sec))
      if (R.Kind == RelocKind::NameRef && V().Symbols[R.Symbol].name() == Name)
        ++N;
    return N;
  }
};

std::unique_ptr<Assembled> assemble(const std::string &Text, bool Zero = false) {
  auto A = std::make_unique<Assembled>();
  A->Text = Text;
  A->Obj = std::make_unique<ObjectFile>();
  llvm::raw_string_ostream OS(A->Errors);
  DiagnosticEngine Engine(OS, "ptxlink-as");
  Engine.setErrorLimit(0);
  A->Ok = assembleInto(*A->Obj, A->Text, "t.ptx", Engine, Zero);
  OS.flush();
  return A;
}

/// Every text relocation must cover exactly the spelling of its symbol (or of a .file index).
void checkRelocationsSpellNames(const ModuleVariant &V) {
  for (const Section &S : V.Sections) {
    uint64_t Prev = 0;
    for (const Relocation &R : V.relocs(S)) {
      EXPECT_GE(R.Offset, Prev) << "relocations not sorted in " << V.sectionName(S).str();
      Prev = R.Offset;
      if (R.Kind == RelocKind::NameRef) {
        ASSERT_LT(R.Symbol, V.Symbols.size());
        ASSERT_LE(R.Offset + R.Length, S.contents().size());
        EXPECT_EQ(S.contents().substr(R.Offset, R.Length), V.Symbols[R.Symbol].name())
            << V.SourceName.str() << " section " << V.sectionName(S).str() << " offset " << R.Offset;
        // Whole identifiers only.
        if (R.Offset > 0) {
          char C = S.contents()[R.Offset - 1];
          EXPECT_FALSE(isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$')
              << V.SourceName.str() << " " << V.sectionName(S).str() << " offset " << R.Offset;
        }
        if (R.Offset + R.Length < S.contents().size()) {
          char C = S.contents()[R.Offset + R.Length];
          EXPECT_FALSE(isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$')
              << V.SourceName.str() << " " << V.sectionName(S).str() << " offset " << R.Offset;
        }
      } else if (R.Kind == RelocKind::FileIndex) {
        ASSERT_LE(R.Offset + R.Length, S.contents().size());
        EXPECT_EQ(S.contents().substr(R.Offset, R.Length), std::to_string(R.Symbol));
      } else {
        ASSERT_EQ(S.Kind, SectionKind::Debug);
        ASSERT_LE(R.Offset + (R.Kind == RelocKind::Data64 ? 8 : 4), S.contents().size());
      }
    }
  }
}

const char *Header = ".version 8.0\n.target sm_90\n.address_size 64\n";

TEST(AssemblerTest, ReferencesEverywhere) {
  auto A = assemble(std::string(Header) +
                    ".func (.param .b32 r) add3(.param .b32 a);\n"
                    ".global .u32 g;\n"
                    ".visible .func (.param .b32 r) add3(.param .b32 a)\n{\n .reg .b32 %r1; ld.global.u32 %r1, [g+4];\n ret;\n}\n"
                    ".func sub1(.param .b32 a) { ret; }\n"
                    ".global .u64 table[2] = {add3, sub1};\n"
                    ".global .u64 gp = generic(g)+4;\n"
                    ".visible .entry k(.param .u64 p)\n{\n"
                    "  .reg .b64 %rd<3>;\n"
                    "  .param .b32 param0;\n"
                    "  call.uni (param0), add3, (param0);\n"
                    "  call.uni\n  sub1,\n  (\n  param0\n  );\n"
                    "  mov.u64 %rd1, add3;\n"
                    "  ld.global.u64 %rd2, [table];\n"
                    "  st.global.u32 [g], 1;\n"
                    "  Ftgt: .calltargets add3, sub1;\n"
                    "  Fproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                    "  call (param0), %rd1, (param0), Fproto;\n"
                    "  ret;\n}\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  checkRelocationsSpellNames(A->V());
  const Section &Add3 = A->section("add3");
  EXPECT_EQ(A->refs(Add3, "add3"), 1u); // the defining occurrence
  EXPECT_EQ(A->refs(Add3, "g"), 1u);
  EXPECT_EQ(Add3.contents().substr(0, 5), ".func"); // without the linkage directive
  EXPECT_EQ((Add3.contents().take_front(Add3.HeaderLength) + ";").str(),
            ".func (.param .b32 r) add3(.param .b32 a);");
  const Section &K = A->section("k");
  EXPECT_EQ(A->refs(K, "add3"), 3u);
  EXPECT_EQ(A->refs(K, "sub1"), 2u);
  EXPECT_EQ(A->refs(K, "table"), 1u);
  EXPECT_EQ(A->refs(K, "g"), 1u);
  EXPECT_EQ(A->refs(K, "k"), 1u);
  EXPECT_EQ(A->refs(A->section("table"), "add3"), 1u);
  EXPECT_EQ(A->refs(A->section("table"), "sub1"), 1u);
  EXPECT_EQ(A->refs(A->section("gp"), "g"), 1u);
  ASSERT_EQ(A->V().prototypes().size(), 1u);
  const PrototypeAbi &P = A->V().prototypes()[0];
  EXPECT_EQ(P.Label, "Fproto");
  EXPECT_EQ(P.Function, A->sym("k"));
  EXPECT_EQ(P.Returns.size(), 1u);
  EXPECT_EQ(P.Params.size(), 1u);
  ASSERT_EQ(P.CallTargets.size(), 2u);
  std::set<uint32_t> Targets(P.CallTargets.begin(), P.CallTargets.end());
  EXPECT_TRUE(Targets.count(A->sym("add3")) && Targets.count(A->sym("sub1")));
  // One FunctionAbi per function (declaration merged into its definition).
  EXPECT_EQ(A->V().Functions.size(), 3u);
  // Section order is source order.
  std::vector<std::string> Names;
  for (const Section &S : A->V().Sections)
    Names.push_back(A->V().sectionName(S).str());
  EXPECT_EQ(Names, (std::vector<std::string>{"g", "add3", "sub1", "table", "gp", "k"}));
}

TEST(AssemblerTest, LocalNamesShadowModuleNames) {
  auto A = assemble(std::string(Header) + ".global .u32 x;\n.global .u32 y;\n"
                                          ".func f(.param .u32 x)\n{\n .reg .b32 %r<3>; ld.param.u32 %r1, [x];\n"
                                          " { .reg .b32 y; mov.b32 y, 1; }\n"
                                          " ld.global.u32 %r2, [y];\n"
                                          " { .local .u32 z, y; st.local.u32 [y], 2; }\n"
                                          " st.global.u32 [y], %r2;\n ret;\n}\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  checkRelocationsSpellNames(A->V());
  const Section &F = A->section("f");
  EXPECT_EQ(A->refs(F, "x"), 0u);
  EXPECT_EQ(A->refs(F, "y"), 2u);
}

TEST(AssemblerTest, VectorBracesAndGuardsAreNotScopes) {
  auto A = assemble(std::string(Header) + ".global .u32 t;\n"
                                          ".entry k\n{\n .reg .b32 %r<3>;\n .reg .pred %p; .reg .b64 %rd<2>; .reg .f32 %f<4>;\n"
                                          " mov.b64 {t2, %r2}, %rd1;\n"
                                          " @%p bra $L1;\n @!%p ld.global.u32 %r1, [t];\n"
                                          "$L1 :\n ld.global.v4.f32 {%f1,%f2,%f3,_}, [t+64];\n ret;\n}\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  EXPECT_EQ(A->refs(A->section("k"), "t"), 2u);
}

TEST(AssemblerTest, BindingsAndVariableLayout) {
  auto A = assemble(std::string(Header) +
                    ".func l() { ret; }\n.visible .func v() { ret; }\n.weak .func w() { ret; }\n"
                    ".extern .func e();\n.entry k0 { ret; }\n.visible .entry k1 { ret; }\n"
                    ".weak .entry k2 { ret; }\n"
                    ".global .align 16 .b8 buf[40];\n.common .global .u64 c = 7;\n.extern .global .u32 x;\n"
                    ".shared .v4 .f32 s[3];\n.visible .const .u32 arr[] = {1, 2, 3};\n"
                    ".extern .shared .align 16 .b8 smem[];\n.weak .global .u16 h;\n.local .u32 %L1;\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  auto Bind = [&](const char *N) { return A->V().Symbols[A->sym(N)].Bind; };
  EXPECT_EQ(Bind("l"), Binding::Local);
  EXPECT_EQ(Bind("v"), Binding::Global);
  EXPECT_EQ(Bind("w"), Binding::Weak);
  EXPECT_EQ(Bind("e"), Binding::Undefined);
  // A kernel without `.visible` is module-local, as ptxas -c and nvlink treat nvcc's static kernels.
  EXPECT_EQ(Bind("k0"), Binding::Local);
  EXPECT_EQ(Bind("k1"), Binding::Global);
  EXPECT_EQ(Bind("k2"), Binding::Weak);
  EXPECT_EQ(Bind("buf"), Binding::Local);
  EXPECT_EQ(Bind("c"), Binding::Common);
  EXPECT_EQ(Bind("x"), Binding::Undefined);
  EXPECT_EQ(Bind("h"), Binding::Weak);
  EXPECT_EQ(Bind("%L1"), Binding::Local);
  const auto &Sy = A->V().Symbols;
  EXPECT_EQ(Sy[A->sym("k0")].Kind, SymbolKind::Kernel);
  EXPECT_EQ(Sy[A->sym("buf")].size(), 40u);
  EXPECT_EQ(Sy[A->sym("buf")].align(), 16u);
  EXPECT_EQ(Sy[A->sym("c")].size(), 8u);
  EXPECT_TRUE(Sy[A->sym("c")].Initialized);
  EXPECT_EQ(Sy[A->sym("c")].Space, StateSpace::Global);
  EXPECT_NE(Sy[A->sym("c")].Section, NoSection);
  EXPECT_EQ(Sy[A->sym("x")].Section, NoSection);
  EXPECT_EQ(Sy[A->sym("s")].size(), 48u);
  EXPECT_EQ(Sy[A->sym("s")].align(), 16u);
  EXPECT_EQ(Sy[A->sym("s")].Space, StateSpace::Shared);
  EXPECT_EQ(Sy[A->sym("arr")].size(), 12u);
  EXPECT_EQ(Sy[A->sym("smem")].size(), 0u);
  EXPECT_EQ(Sy[A->sym("smem")].Bind, Binding::Undefined);
  // ABI records for every function (definitions and declarations) and every variable.
  EXPECT_EQ(A->V().Functions.size(), 7u);
  EXPECT_EQ(A->V().Variables.size(), 8u);
  // Bodiless declarations are not sections.
  for (const Section &S : A->V().Sections)
    EXPECT_TRUE(A->V().sectionName(S) != "e" && A->V().sectionName(S) != "x" && A->V().sectionName(S) != "smem");
}

// The assembler's variable layout and the parameter sizes of the ABI model come from the same rule: a
// narrow-float vector or a predicate has one size whether it is a variable or a parameter.
TEST(AssemblerTest, VariableAndParameterSizesAgree) {
  auto A = assemble(".version 8.7\n.target sm_100a\n.address_size 64\n"
                    ".global .e4m3x4 g4[3];\n.global .e2m3x2 g6;\n.global .pred gp;\n"
                    ".visible .func (.reg .pred r) f(.reg .pred p, .param .e4m3x4 q, .param .ue8m0x2 u) { ret; }\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  EXPECT_EQ(A->V().Symbols[A->sym("g4")].size(), 12u);
  EXPECT_EQ(A->V().Symbols[A->sym("g4")].align(), 4u);
  EXPECT_EQ(A->V().Symbols[A->sym("g6")].size(), 2u);
  EXPECT_EQ(A->V().Symbols[A->sym("gp")].size(), 1u);
  ASSERT_EQ(A->V().Functions.size(), 1u);
  const FunctionAbi &F = A->V().Functions[0];
  llvm::ArrayRef<ParamInfo> Params = A->V().params(F), Returns = A->V().returns(F);
  ASSERT_EQ(Params.size(), 3u);
  ASSERT_EQ(Returns.size(), 1u);
  EXPECT_EQ(Returns[0].sizeBytes(), A->V().Symbols[A->sym("gp")].size());
  EXPECT_EQ(Params[0].sizeBytes(), 1u);
  EXPECT_EQ(Params[1].sizeBytes(), 4u);
  EXPECT_EQ(Params[1].effectiveAlign(), 4u);
  EXPECT_EQ(Params[2].sizeBytes(), 2u);
}

TEST(AssemblerTest, SplitDeclarators) {
  auto A = assemble(std::string(Header) + ".func f() { ret; }\n"
                                          ".visible .global .align 4 .u32 a, b = 5, c[2] = {1, 2};\n"
                                          ".global .u64 p = f, q;\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  checkRelocationsSpellNames(A->V());
  EXPECT_EQ(A->section("a").contents(), ".global .align 4 .u32 a;");
  EXPECT_EQ(A->section("b").contents(), ".global .align 4 .u32 b = 5;");
  EXPECT_EQ(A->section("c").contents(), ".global .align 4 .u32 c[2] = {1, 2};");
  EXPECT_EQ(A->section("p").contents(), ".global .u64 p = f;");
  EXPECT_EQ(A->refs(A->section("p"), "f"), 1u);
  EXPECT_EQ(A->V().Symbols[A->sym("c")].Bind, Binding::Global);
  EXPECT_EQ(A->V().Symbols[A->sym("c")].size(), 8u);
}

TEST(AssemblerTest, ParameterizedNames) {
  // `v<N>` at module scope: one section and symbol per expanded name, the text being the prefix and the
  // name alone. The names are not in the input, so even when the input outlives the object (Zero) they
  // must be copied into the object: the parsed module holding them is gone once assembleInto returns.
  for (bool Zero : {false, true}) {
    auto A = assemble(std::string(Header) + ".visible .global .align 4 .u32 gv<4>;\n"
                                            ".global .u32 x<2>, y = 3;\n"
                                            ".extern .global .u32 e<2>;\n"
                                            ".entry k { st.global.u32 [gv2], 1; st.global.u32 [e1], 1; ret; }\n",
                      Zero);
    ASSERT_TRUE(A->Ok) << A->Errors;
    checkRelocationsSpellNames(A->V());
    EXPECT_EQ(A->section("gv0").contents(), ".global .align 4 .u32 gv0;");
    EXPECT_EQ(A->section("gv3").contents(), ".global .align 4 .u32 gv3;");
    EXPECT_EQ(A->section("x1").contents(), ".global .u32 x1;");
    EXPECT_EQ(A->section("y").contents(), ".global .u32 y = 3;");
    EXPECT_EQ(A->refs(A->section("k"), "gv2"), 1u);
    EXPECT_EQ(A->refs(A->section("k"), "e1"), 1u);
    for (llvm::StringRef Name : {"gv0", "gv1", "gv2", "gv3", "x0", "x1", "e0", "e1"}) {
      uint32_t S = A->sym(Name);
      ASSERT_NE(S, NoSymbol) << Name.str();
      const Symbol &Sym = A->V().Symbols[S];
      EXPECT_EQ(Sym.size(), 4u) << Name.str();
      EXPECT_TRUE(A->Obj->arena().identifyObject(Sym.name().data()).has_value()) << Name.str();
    }
    EXPECT_EQ(A->V().Symbols[A->sym("gv3")].Bind, Binding::Global);
    EXPECT_EQ(A->V().Symbols[A->sym("x0")].Bind, Binding::Local);
    EXPECT_EQ(A->V().Symbols[A->sym("e0")].Bind, Binding::Undefined);
    EXPECT_EQ(A->V().findSymbol("gv4"), NoSymbol);
    EXPECT_EQ(A->V().findSymbol("gv"), NoSymbol);
  }
}

TEST(AssemblerTest, DebugSectionsLabelsAndFileIndices) {
  std::string T = std::string(".version 8.0\n.target sm_80, debug\n.address_size 64\n") +
                  ".file 1 \"a.cu\"\n.file 2 \"b.h\", 1339013327, 64118\n"
                  ".visible .entry k(.param .u64 k_param_0)\n{\n"
                  "$L__func_begin0:\n"
                  "  .loc 1 13 10\n"
                  "  .reg .b64 %rd<2>; ld.param.u64 %rd1, [k_param_0];\n"
                  "  .loc 2 13 10, function_name $L__info_string0, inlined_at 1 38 17\n"
                  "  bra $L__func_end0;\n"
                  "$L__func_end0:\n"
                  "  ret;\n}\n"
                  ".section .debug_str\n{\n.b8 0\n$L__info_string0:\n.b8 107, 0\n}\n"
                  ".section .debug_info\n{\n.b32 $L__end - $L__start\n$L__start:\n"
                  ".b32 .debug_abbrev\n.b32 .debug_line\n.b64 $L__func_begin0\n.b64 $L__func_end0+4\n"
                  ".b64 k_param_0\n.b32 $L__info_string0\n$L__end:\n}\n"
                  ".section .debug_abbrev { .b8 1, 17, 0 }\n";
  auto A = assemble(T);
  ASSERT_TRUE(A->Ok) << A->Errors;
  checkRelocationsSpellNames(A->V());
  const ModuleVariant &V = A->V();
  ASSERT_EQ(V.files().size(), 2u);
  EXPECT_EQ(*V.files()[1].Size, 64118u);
  const Section &K = A->section("k");
  // FileIndex relocations on `1`, `2` and the inlined_at `1`.
  std::vector<uint32_t> Files;
  for (const Relocation &R : V.relocs(K))
    if (R.Kind == RelocKind::FileIndex)
      Files.push_back(R.Symbol);
  EXPECT_EQ(Files, (std::vector<uint32_t>{1, 2, 1}));
  // Labels that debug data refers to: symbols in the function section, renamable everywhere in the body.
  uint32_t Begin = A->sym("$L__func_begin0"), End = A->sym("$L__func_end0"), Param = A->sym("k_param_0");
  ASSERT_NE(Begin, NoSymbol);
  const uint32_t KSec = V.Symbols[A->sym("k")].Section;
  EXPECT_EQ(V.Symbols[Begin].Kind, SymbolKind::Label);
  EXPECT_EQ(V.Symbols[Begin].Section, KSec);
  EXPECT_TRUE(K.contents().substr(V.Symbols[Begin].value()).starts_with("$L__func_begin0:"));
  EXPECT_EQ(A->refs(K, "$L__func_begin0"), 1u);
  EXPECT_EQ(A->refs(K, "$L__func_end0"), 2u);
  EXPECT_EQ(V.Symbols[End].Section, KSec);
  // A parameter that DWARF points at is renamable too (header and body).
  EXPECT_EQ(V.Symbols[Param].Section, KSec);
  EXPECT_EQ(A->refs(K, "k_param_0"), 2u);
  // `.loc ... function_name` names a .debug_str label.
  EXPECT_EQ(A->refs(K, "$L__info_string0"), 1u);
  uint32_t Str = A->sym("$L__info_string0");
  EXPECT_EQ(V.sectionName(V.Symbols[Str].Section), ".debug_str");
  EXPECT_EQ(V.Symbols[Str].value(), 1u);
  // Debug bytes and data relocations.
  const Section &Info = A->section(".debug_info");
  EXPECT_EQ(Info.Kind, SectionKind::Debug);
  ASSERT_EQ(Info.contents().size(), 4u + 4 + 4 + 8 + 8 + 8 + 4);
  EXPECT_EQ(Info.contents().substr(0, 4), llvm::StringRef("\x24\0\0\0", 4));
  ASSERT_EQ(V.relocs(Info).size(), 6u);
  auto Rel = [&](size_t I) { return V.relocs(Info)[I]; };
  EXPECT_EQ(Rel(0).Offset, 4u);
  EXPECT_EQ(Rel(0).Kind, RelocKind::Data32);
  EXPECT_EQ(V.Symbols[Rel(0).Symbol].Kind, SymbolKind::Section);
  EXPECT_EQ(V.Symbols[Rel(0).Symbol].name(), ".debug_abbrev");
  EXPECT_EQ(V.sectionName(V.Symbols[Rel(0).Symbol].Section), ".debug_abbrev");
  EXPECT_EQ(V.Symbols[Rel(1).Symbol].name(), ".debug_line");
  EXPECT_EQ(V.Symbols[Rel(1).Symbol].Section, NoSection); // ptxas makes .debug_line
  EXPECT_EQ(Rel(2).Kind, RelocKind::Data64);
  EXPECT_EQ(Rel(2).Symbol, Begin);
  EXPECT_EQ(Rel(3).Symbol, End);
  EXPECT_EQ(Rel(3).Addend, 4);
  EXPECT_EQ(Rel(4).Symbol, Param);
  EXPECT_EQ(Rel(5).Symbol, Str);
  EXPECT_EQ(Rel(5).Kind, RelocKind::Data32);
  EXPECT_EQ(A->section(".debug_abbrev").contents(), llvm::StringRef("\x01\x11\x00", 3));
  EXPECT_TRUE(V.Target.Debug);
}

TEST(AssemblerTest, FunctionRecordsIndexTheModulesParameterTable) {
  // g declared twice and then defined, h only declared, k a kernel with tuning: one record each, the
  // definition's lists (its parameter names) in place of the declaration's, and no list of a dropped
  // record left in the table.
  auto A = assemble(std::string(Header) + ".func (.reg .b32 dr) g (.reg .b32 da, .reg .b64 db);\n"
                                          ".extern .func h (.param .b32 x);\n"
                                          ".func (.reg .b32 dr) g (.reg .b32 da, .reg .b64 db);\n"
                                          ".entry k (.param .u64 p) .maxntid 64 { ret; }\n"
                                          ".func (.reg .b32 r) g (.reg .b32 a, .reg .b64 b) { mov.b32 r, a; ret; }\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  const ModuleVariant &V = A->V();
  ASSERT_EQ(V.Functions.size(), 3u);
  EXPECT_EQ(V.Params.size(), 5u); // g's three, h's one, k's one
  const FunctionAbi &G = V.Functions[0], &H = V.Functions[1], &K = V.Functions[2];
  EXPECT_EQ(G.Symbol, A->sym("g"));
  EXPECT_TRUE(G.HasBody);
  ASSERT_EQ(V.returns(G).size(), 1u);
  EXPECT_EQ(V.returns(G)[0].name(), "r");
  ASSERT_EQ(V.params(G).size(), 2u);
  EXPECT_EQ(V.params(G)[0].name(), "a");
  EXPECT_EQ(V.params(G)[1].type(), ".b64");
  ASSERT_EQ(V.params(H).size(), 1u);
  EXPECT_EQ(V.params(H)[0].name(), "x");
  EXPECT_TRUE(V.returns(H).empty());
  EXPECT_EQ(G.Extra, NoExtra);
  EXPECT_EQ(V.tuning(G).MaxNTid, std::nullopt);
  ASSERT_EQ(V.functionExtras().size(), 1u);
  EXPECT_EQ(V.tuning(K).MaxNTid, (std::array<uint32_t, 3>{64, 1, 1}));
  // A record's place is its symbol's: the definition's for g, the declaration's for h.
  EXPECT_EQ(V.functionWhere(G).Line, 8u);
  EXPECT_EQ(V.functionWhere(H).Line, 5u);
  EXPECT_FALSE(V.functionExtras()[0].Where.has_value());

  // A definition whose lists are not as long as its declaration's is an error, and the records that
  // follow keep their own lists.
  auto B = assemble(std::string(Header) + ".func g (.reg .b32 a);\n.func f (.reg .b32 x);\n"
                                          ".func g (.reg .b32 a, .reg .b32 b) { ret; }\n"
                                          ".func f (.reg .b32 x) { ret; }\n");
  EXPECT_FALSE(B->Ok);
  EXPECT_NE(B->Errors.find("t.ptx:6:7: error: definition of 'g' does not match its declaration at line 4"),
            std::string::npos)
      << B->Errors;
}

TEST(AssemblerTest, Alias) {
  auto A = assemble(std::string(Header) + ".visible .func foo(.param .u32 p) { ret; }\n"
                                          ".visible .func bar(.param .u32 p);\n.alias bar, foo;\n"
                                          ".entry k { .param .u32 p; call bar, (p); }\n");
  ASSERT_TRUE(A->Ok) << A->Errors;
  const Symbol &Bar = A->V().Symbols[A->sym("bar")];
  EXPECT_EQ(A->V().aliasOf(A->sym("bar")), A->sym("foo"));
  EXPECT_EQ(Bar.Bind, Binding::Global);
  EXPECT_EQ(Bar.Section, A->V().Symbols[A->sym("foo")].Section);
  EXPECT_EQ(A->refs(A->section("k"), "bar"), 1u);
  // The alias's symbol is placed at `.alias`; its ABI record keeps its declaration's place.
  EXPECT_EQ(Bar.Where.Line, 6u);
  const FunctionAbi *BarAbi = nullptr;
  for (const FunctionAbi &F : A->V().Functions)
    if (F.Symbol == A->sym("bar"))
      BarAbi = &F;
  ASSERT_NE(BarAbi, nullptr);
  EXPECT_EQ(A->V().functionWhere(*BarAbi).Line, 5u);
  EXPECT_EQ(A->V().functionWhere(*BarAbi).Column, 10u);

  auto W = assemble(std::string(Header) + ".weak .func foo() { ret; }\n.visible .func bar();\n.alias bar, foo;\n"
                                          ".visible .func baz();\n.alias baz, nothing;\n.alias nope, foo;\n");
  EXPECT_FALSE(W->Ok);
  EXPECT_NE(W->Errors.find("t.ptx:6:13: error: aliasee 'foo' cannot have .weak linkage"), std::string::npos)
      << W->Errors;
  EXPECT_NE(W->Errors.find("t.ptx:8:13: error: aliasee 'nothing' is not a function declared in this module"),
            std::string::npos)
      << W->Errors;
  EXPECT_NE(W->Errors.find("t.ptx:9:8: error: alias 'nope' must be declared"), std::string::npos) << W->Errors;
}

TEST(AssemblerTest, SemanticErrors) {
  auto A = assemble(std::string(Header) + ".func f() { ret; }\n.func f() { ret; }\n"
                                          ".global .u32 t[2] = {f, missing};\n"
                                          ".section .debug_info { .b64 $L__nowhere }\n"
                                          ".global .u32 f;\n");
  EXPECT_FALSE(A->Ok);
  EXPECT_NE(A->Errors.find("t.ptx:5:7: error: redefinition of 'f' (first defined at line 4)"), std::string::npos)
      << A->Errors;
  EXPECT_NE(A->Errors.find("t.ptx:6:25: error: use of undeclared symbol 'missing' in initializer"),
            std::string::npos)
      << A->Errors;
  EXPECT_NE(A->Errors.find("t.ptx:7:29: error: debug data refers to '$L__nowhere'"), std::string::npos)
      << A->Errors;
  EXPECT_NE(A->Errors.find("t.ptx:8:14: error: 'f' redeclared as a variable"), std::string::npos) << A->Errors;
  EXPECT_TRUE(A->Obj->Variants.empty());
}

TEST(AssemblerTest, BodyErrors) {
  auto A = assemble(std::string(Header) + ".entry k\n{\n .loc 1 x 3\n .pragma \"open;\n ret;\n}\n");
  EXPECT_FALSE(A->Ok);
  EXPECT_NE(A->Errors.find("t.ptx:6:9: error: malformed .loc directive"), std::string::npos) << A->Errors;
  EXPECT_NE(A->Errors.find("t.ptx:7:10: error: unterminated string"), std::string::npos) << A->Errors;
}

TEST(AssemblerTest, TextOutlivesObjectPointsIntoInput) {
  auto A = assemble(std::string(Header) + ".entry k { ret; }\n", /*Zero=*/true);
  ASSERT_TRUE(A->Ok) << A->Errors;
  llvm::StringRef C = A->section("k").contents();
  EXPECT_GE(C.data(), A->Text.data());
  EXPECT_LT(C.data(), A->Text.data() + A->Text.size());
  auto B = assemble(std::string(Header) + ".entry k { ret; }\n", /*Zero=*/false);
  llvm::StringRef D = B->section("k").contents();
  EXPECT_TRUE(D.data() < B->Text.data() || D.data() >= B->Text.data() + B->Text.size());
}

std::string writeTemp(const std::string &Name, const std::string &Text) {
  llvm::SmallString<128> Dir;
  llvm::sys::path::system_temp_directory(true, Dir);
  llvm::sys::path::append(Dir, "ptxlink-asm-test-" + std::to_string(::getpid()) + "-" + Name);
  std::ofstream(Dir.c_str()) << Text;
  return Dir.str().str();
}

TEST(AssemblerTest, FatObjects) {
  std::string A = writeTemp("a_sm80.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n"
                                          ".visible .func f() { ret; }\n.visible .entry k { ret; }\n");
  std::string B = writeTemp("a_sm90a.ptx", ".version 8.0\n.target sm_90a\n.address_size 64\n"
                                           ".visible .func f() { ret; }\n.visible .entry k { ret; }\n"
                                           ".func local() { ret; }\n");
  std::string C = writeTemp("c_sm90.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n"
                                          ".visible .entry k { ret; }\n.visible .func g() { ret; }\n");
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  DiagnosticEngine Diags(OS, "ptxlink-as");
  auto Obj = assembleFiles({A, B}, Diags);
  ASSERT_TRUE(Obj) << Errors;
  ASSERT_EQ(Obj->Variants.size(), 2u);
  EXPECT_EQ(Obj->Variants[0].Target.Arch, "sm_80");
  EXPECT_EQ(Obj->Variants[1].Target.Arch, "sm_90a");
  auto Bad = assembleFiles({A, C}, Diags);
  EXPECT_FALSE(Bad);
  OS.flush();
  EXPECT_NE(Errors.find("fat object variants differ: 'f' is defined in " + A + " but not in " + C), std::string::npos)
      << Errors;
  EXPECT_NE(Errors.find("'g' is defined in " + C + " but not in " + A), std::string::npos) << Errors;
  for (const std::string &P : {A, B, C})
    llvm::sys::fs::remove(P);
}

TEST(AssemblerTest, ToolInProcess) {
  std::string In = writeTemp("tool.ptx", std::string(Header) + ".visible .entry k { ret; }\n");
  std::string Bad = writeTemp("bad.ptx", std::string(Header) + ".entry k { ret; \n");
  std::string OutPath = In + ".o";
  std::string Out, Err;
  llvm::raw_string_ostream O(Out), E(Err);
  EXPECT_EQ(runAssemblerTool({"--version"}, O, E), 0);
  EXPECT_NE(O.str().find("ptxlink-as"), std::string::npos);
  EXPECT_EQ(runAssemblerTool({In, "--print-ptx"}, O, E), 0) << E.str();
  EXPECT_NE(O.str().find(".visible .entry k"), std::string::npos) << O.str();
  EXPECT_EQ(runAssemblerTool({In, "-o", OutPath}, O, E), 0) << E.str();
  EXPECT_TRUE(llvm::sys::fs::exists(OutPath));
  llvm::sys::fs::remove(OutPath);
  EXPECT_EQ(runAssemblerTool({Bad, "-o", OutPath}, O, E), 1);
  EXPECT_FALSE(llvm::sys::fs::exists(OutPath));
  EXPECT_NE(E.str().find("error: unterminated function body"), std::string::npos) << E.str();
  // Without -o the output is named after the input; an input named like an object has no such name.
  EXPECT_EQ(runAssemblerTool({OutPath}, O, E), 1);
  EXPECT_NE(E.str().find("no output file for '" + OutPath + "'"), std::string::npos) << E.str();
  for (const std::string &P : {In, Bad})
    llvm::sys::fs::remove(P);
}

// Batch mode writes each object through a temporary named <object>.tmp<pid>-<n>: a stale file of that
// name (left by a crashed process with the same id) is neither used nor touched, the object still
// replaces an existing one, and no temporary is left behind.
TEST(AssemblerTest, BatchModeTemporaries) {
  std::string In = writeTemp("batch.ptx", std::string(Header) + ".visible .entry k { ret; }\n");
  llvm::SmallString<128> Dir;
  llvm::sys::path::system_temp_directory(true, Dir);
  llvm::sys::path::append(Dir, "ptxlink-asm-test-" + std::to_string(::getpid()) + "-batchdir");
  llvm::sys::fs::remove_directories(Dir);
  ASSERT_FALSE(llvm::sys::fs::create_directories(Dir));
  std::string Obj = (Dir + "/" + llvm::sys::path::stem(In) + ".o").str();
  std::string Stale = Obj + ".tmp" + std::to_string(::getpid()) + "-0";
  std::ofstream(Obj) << "old object";
  std::ofstream(Stale) << "stale";
  std::string Out, Err;
  llvm::raw_string_ostream O(Out), E(Err);
  ASSERT_EQ(runAssemblerTool({In, "--output-dir", std::string(Dir)}, O, E), 0) << E.str();
  auto Contents = [](const std::string &P) {
    std::ifstream F(P, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(F), {});
  };
  EXPECT_EQ(Contents(Stale), "stale");
  std::string Written = Contents(Obj);
  EXPECT_TRUE(isPtxlinkObject(Written)) << Written.substr(0, 16);
  // Exactly the object and the stale file remain.
  std::set<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    Names.insert(llvm::sys::path::filename(It->path()).str());
  EXPECT_EQ(Names, (std::set<std::string>{llvm::sys::path::filename(Obj).str(),
                                          llvm::sys::path::filename(Stale).str()}));
  llvm::sys::fs::remove_directories(Dir);
  llvm::sys::fs::remove(In);
}

// The public corpus: every file follows the grammar and must assemble; relocations must spell names.
std::vector<std::string> corpusFiles() {
  std::vector<std::string> R;
  std::string Dir = std::string(PTXLINK_SOURCE_DIR) + "/../shared/corpus/public";
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".ptx"))
      R.push_back(It->path());
  std::sort(R.begin(), R.end());
  return R;
}

TEST(AssemblerTest, PublicCorpusAssembles) {
  std::vector<std::string> Files = corpusFiles();
  if (Files.empty())
    GTEST_SKIP() << "shared corpus not present";
  unsigned Ok = 0;
  for (const std::string &F : Files) {
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diags(OS, "ptxlink-as");
    auto Obj = assembleFiles({F}, Diags);
    EXPECT_TRUE(Obj) << F << "\n" << OS.str();
    if (!Obj)
      continue;
    ++Ok;
    checkRelocationsSpellNames(Obj->Variants[0]);
  }
  EXPECT_EQ(Ok, Files.size());
}

// Renaming every module-local symbol and debug label through the model must give PTX that ptxas still
// accepts: this proves no reference was missed (a missed one would name a symbol that no longer exists).
TEST(AssemblerTest, RenamedCorpusStillAcceptedByPtxas) {
  if (std::system("command -v ptxas >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "ptxas not available";
  std::vector<std::string> Files = corpusFiles();
  if (Files.empty())
    GTEST_SKIP() << "shared corpus not present";
  unsigned Checked = 0;
  for (const std::string &F : Files) {
    uint64_t Size = 0;
    if (llvm::sys::fs::file_size(F, Size) || Size > 150000)
      continue; // keep the test quick
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diags(OS, "ptxlink-as");
    auto Obj = assembleFiles({F}, Diags);
    if (!Obj)
      continue;
    ModuleVariant &V = Obj->Variants[0];
    if (V.Target.AddressSize != 64 || V.Target.Arch.empty())
      continue;
    std::string Arch = V.Target.Arch.str();
    unsigned Num = 0;
    llvm::StringRef(Arch).drop_front(3).take_while([](char C) { return isdigit(C); }).getAsInteger(10, Num);
    std::string ArchFlag = Num < 50 ? "sm_50" : Arch;
    std::string Cmd = "ptxas -c -arch=" + ArchFlag + " '" + F + "' -o /dev/null >/dev/null 2>&1";
    if (std::system(Cmd.c_str()) != 0)
      continue; // only files ptxas accepts as they are
    std::vector<std::string> NewNames;
    NewNames.reserve(V.Symbols.size());
    for (Symbol &S : V.Symbols) {
      bool Renamable = (S.Bind == Binding::Local && (S.Kind == SymbolKind::Function || S.Kind == SymbolKind::Variable) &&
                        !S.name().starts_with("%")) ||
                       (S.Kind == SymbolKind::Label && S.Section != NoSection &&
                        V.Sections[S.Section].Kind == SectionKind::Function);
      NewNames.push_back(Renamable ? S.name().str() + "_rn" : S.name().str());
    }
    for (size_t I = 0; I < V.Symbols.size(); ++I)
      V.Symbols[I].setName(NewNames[I]);
    std::string Printed;
    llvm::raw_string_ostream PS(Printed);
    printModule(V, PS);
    std::string Path = writeTemp("renamed.ptx", PS.str());
    Cmd = "ptxas -c -arch=" + ArchFlag + " '" + Path + "' -o /dev/null 2>&1";
    EXPECT_EQ(std::system(Cmd.c_str()), 0) << F;
    llvm::sys::fs::remove(Path);
    ++Checked;
  }
  EXPECT_GT(Checked, 5u);
}


// Relocation is 16 bytes (ObjectModel.h): a 24-bit length and a 32-bit addend. Longer names and larger
// addends are refused where they arise, with their place; names of 10 MB keep working.
TEST(AssemblerTest, TenMegabyteNamesAreRelocated) {
  const std::string Name = "f" + std::string(10 << 20, 'a');
  auto A = assemble(std::string(".version 8.0\n.target sm_90\n.address_size 64\n") + ".visible .func " + Name +
                    "()\n{\n  ret;\n}\n.visible .entry k()\n{\n  call.uni " + Name + ", ();\n  ret;\n}\n");
  ASSERT_TRUE(A->Ok) << A->Errors.substr(0, 2000);
  EXPECT_EQ(A->refs(A->section("k"), Name), 1u);
  // Through the object format and back: the lengths are the name's.
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  ASSERT_FALSE(bool(writeObject(*A->Obj, OS)));
  OS.flush();
  auto Read = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "big.o"));
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  const ModuleVariant &V = (*Read)->Variants[0];
  unsigned Long = 0;
  for (const Relocation &R : V.Relocs)
    if (R.Kind == RelocKind::NameRef && V.Symbols[R.Symbol].name() == Name) {
      EXPECT_EQ(R.Length, Name.size());
      ++Long;
    }
  EXPECT_EQ(Long, 2u); // the definition's name and the call
}

TEST(AssemblerTest, NamesOf16MiBAreRefusedWhereDeclared) {
  const std::string Fn = std::string(1 << 24, 'f'), Var = std::string(1 << 24, 'v');
  auto A = assemble(std::string(".version 8.0\n.target sm_90\n.address_size 64\n") + ".visible .func " + Fn +
                    "()\n{\n  ret;\n}\n.visible .global .u32 " + Var + ";\n");
  EXPECT_FALSE(A->Ok);
  EXPECT_NE(A->Errors.find("t.ptx:4:16: error: name 'ffffffffffffffffffffffffffffffff...' is 16777216 bytes "
                           "long: names of at most 16777215 bytes (16 MiB - 1) can be relocated"),
            std::string::npos)
      << A->Errors.substr(0, 2000);
  EXPECT_NE(A->Errors.find("t.ptx:8:"), std::string::npos) << A->Errors.substr(0, 2000);
  EXPECT_NE(A->Errors.find("error: name 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv...' is 16777216 bytes long"), std::string::npos)
      << A->Errors.substr(0, 2000);
}

TEST(AssemblerTest, DebugSectionNamesOf16MiBAreRefused) {
  // Debug data naming a section (`.b32 .debug_x...`) makes a Section symbol, which holds its name in 24
  // bits: such a name is refused like any other name a relocation spells.
  const std::string Name = "." + std::string((1 << 24) - 1, 'd');
  auto A = assemble(".version 8.0\n.target sm_90, debug\n.address_size 64\n.section .debug_info {\n  .b32 " +
                    Name + "\n}\n");
  EXPECT_FALSE(A->Ok);
  EXPECT_NE(A->Errors.find("t.ptx:5:8: error: name '.ddddddddddddddddddddddddddddddd...' is 16777216 bytes long"),
            std::string::npos)
      << A->Errors.substr(0, 2000);
}

TEST(AssemblerTest, VariablesOf2To48BytesOrMoreAreRefused) {
  // A Symbol keeps a variable's size in 48 bits (MaxSymbolValue): the largest fits, one byte more and a
  // product of dimensions that would wrap 64 bits are refused at the name.
  const std::string Head = ".version 8.0\n.target sm_90\n.address_size 64\n";
  auto Fits = assemble(Head + ".global .b8 most[281474976710655];\n.global .b64 arr[4][8];\n");
  ASSERT_TRUE(Fits->Ok) << Fits->Errors;
  EXPECT_EQ(Fits->V().Symbols[Fits->V().findSymbol("most")].size(), MaxSymbolValue);
  EXPECT_EQ(Fits->V().Symbols[Fits->V().findSymbol("arr")].size(), 256u);
  auto Big = assemble(Head + ".global .b8 over[281474976710656];\n"
                             ".global .b64 wraps[4000000000][4000000000][4000000000];\n"
                             ".global .b32 bytes[70368744177664];\n");
  EXPECT_FALSE(Big->Ok);
  for (const char *Expected : {"t.ptx:4:13: error: variable 'over' is too large (at most 281474976710655 bytes are supported)",
                               "t.ptx:5:14: error: variable 'wraps' is too large",
                               "t.ptx:6:14: error: variable 'bytes' is too large"})
    EXPECT_NE(Big->Errors.find(Expected), std::string::npos) << Expected << "\n" << Big->Errors;
}

TEST(AssemblerTest, DebugAddendsBeyond32BitsAreRefused) {
  const std::string Head = ".version 8.0\n.target sm_90, debug\n.address_size 64\n";
  auto Fits = assemble(Head + ".section .debug_info {\n"
                              "  .b32 .debug_abbrev+2147483647\n"
                              "}\n"
                              ".section .debug_abbrev { .b8 0 }\n");
  ASSERT_TRUE(Fits->Ok) << Fits->Errors;
  EXPECT_EQ(Fits->V().relocs(Fits->section(".debug_info"))[0].Addend, INT32_MAX);

  auto Big = assemble(Head + ".section .debug_info {\n"
                             "  .b32 .debug_abbrev+2147483648\n"
                             "}\n"
                             ".section .debug_abbrev { .b8 0 }\n");
  EXPECT_FALSE(Big->Ok);
  EXPECT_NE(Big->Errors.find("t.ptx:5:8: error: debug data refers to '.debug_abbrev' with addend 2147483648 in "
                             ".debug_info: addends must lie in [-2^31, 2^31)"),
            std::string::npos)
      << Big->Errors;

  // `.loc ... function_name .debug_str+N`: N is the addend of a SectionOffset relocation.
  auto Loc = [&](const std::string &Ref) {
    return assemble(Head + ".file 1 \"a.cu\"\n.visible .func f()\n{\n"
                           "  .loc 1 2 3, function_name " + Ref + ", inlined_at 1 4 5\n  ret;\n}\n"
                           ".section .debug_str { .b8 0 }\n");
  };
  auto LocFits = Loc(".debug_str+2147483647");
  ASSERT_TRUE(LocFits->Ok) << LocFits->Errors;
  bool Found = false;
  for (const Relocation &R : LocFits->V().relocs(LocFits->section("f")))
    if (R.Kind == RelocKind::SectionOffset) {
      EXPECT_EQ(R.Addend, INT32_MAX);
      EXPECT_EQ(R.Length, std::string(".debug_str+2147483647").size());
      Found = true;
    }
  EXPECT_TRUE(Found);
  auto LocBig = Loc(".debug_str+2147483648");
  EXPECT_FALSE(LocBig->Ok);
  EXPECT_NE(LocBig->Errors.find("t.ptx:7:40: error: offset 2147483648 after '.debug_str' is too large (at most "
                                "2^31 - 1)"),
            std::string::npos)
      << LocBig->Errors;
}

TEST(AssemblerTest, ReferencesSpelledPast16MiBAreRefused) {
  // A `.file` index's relocation replaces its digits: 2^24 of them (leading zeros) are too many.
  auto A = assemble(".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"a.cu\"\n.visible .func f()\n{\n"
                    "  .loc " + std::string(1 << 24, '0') + "1 2 3\n  ret;\n}\n");
  EXPECT_FALSE(A->Ok);
  EXPECT_NE(A->Errors.find("t.ptx:7:8: error: file index spelled in 16777217 digits: a relocation replaces at "
                           "most 16777215 bytes"),
            std::string::npos)
      << A->Errors.substr(0, 2000);
  // Likewise `function_name .debug_str+N`, whose relocation replaces the name and the offset.
  auto B = assemble(".version 8.0\n.target sm_90, debug\n.address_size 64\n.file 1 \"a.cu\"\n"
                    ".visible .func f()\n{\n  .loc 1 2 3, function_name .debug_str+" + std::string(1 << 24, '0') +
                    "1, inlined_at 1 4 5\n  ret;\n}\n.section .debug_str { .b8 0 }\n");
  EXPECT_FALSE(B->Ok);
  EXPECT_NE(B->Errors.find("t.ptx:7:29: error: a debug section reference spelled in 16777228 bytes: a relocation "
                           "replaces at most 16777215"),
            std::string::npos)
      << B->Errors.substr(0, 2000);
}

} // namespace
