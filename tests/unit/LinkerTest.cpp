// Unit tests of the linker's passes, in-process: variant selection rules, resolution by rank on
// hand-built modules (no assembler involved), and whole links through runLinkerTool with the fatbinary
// read back.
#include "ptxlink/Assembler.h"
#include "ptxlink/Fatbin.h"
#include "LinkPasses.h"
#include "ptxlink/Linker.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <sys/mman.h>

using namespace ptxlink;
using namespace llvm;

namespace {

Target arch(StringRef Name) {
  auto A = parseArch(Name);
  EXPECT_TRUE(A.has_value()) << Name.str();
  return A.value_or(Target{});
}

TEST(LinkerArch, ParsesTargetNames) {
  EXPECT_EQ(arch("sm_90").name(), "sm_90");
  EXPECT_EQ(arch("compute_90a").name(), "sm_90a");
  EXPECT_EQ(arch("sm_101f").name(), "sm_110f"); // renamed in PTX ISA 9.0
  EXPECT_FALSE(parseArch("sm_91"));
  EXPECT_FALSE(parseArch("sm_80a")); // no arch-specific sm_80
  EXPECT_FALSE(parseArch("sm_90f")); // families start at sm_100
  EXPECT_FALSE(parseArch("gfx90a"));
}

TEST(LinkerArch, MinimumPtxVersions) {
  using V = std::pair<unsigned, unsigned>;
  EXPECT_EQ(minPtxVersion(arch("sm_90")), V(7, 8));
  EXPECT_EQ(minPtxVersion(arch("sm_90a")), V(8, 0));
  EXPECT_EQ(minPtxVersion(arch("sm_100f")), V(8, 8));
  EXPECT_EQ(minPtxVersion(arch("sm_88")), V(9, 0));
  EXPECT_EQ(minPtxVersion(arch("sm_120a")), V(8, 7));
}

std::unique_ptr<ObjectFile> objectWithTargets(std::initializer_list<const char *> Targets) {
  auto Obj = std::make_unique<ObjectFile>();
  for (const char *T : Targets) {
    ModuleVariant V;
    V.Target.Arch = Obj->save(T);
    Obj->Variants.push_back(std::move(V));
  }
  return Obj;
}

TEST(LinkerArch, SelectsTheBestVariant) {
  auto Obj = objectWithTargets({"sm_80", "sm_90a", "sm_100f", "sm_86"});
  EXPECT_EQ(selectVariant(*Obj, arch("sm_90a")), 1);  // exact
  EXPECT_EQ(selectVariant(*Obj, arch("sm_90")), 3);   // highest plain not above: sm_86
  EXPECT_EQ(selectVariant(*Obj, arch("sm_103")), 2);  // family beats plain
  EXPECT_EQ(selectVariant(*Obj, arch("sm_120")), 3);  // other family: plain
  EXPECT_EQ(selectVariant(*Obj, arch("sm_75")), -1);
  auto Same = objectWithTargets({"sm_80", "sm_80"});
  EXPECT_EQ(selectVariant(*Same, arch("sm_90")), 0); // ties: the first
}

/// A hand-built module: one variable `Name` with the given binding and size, in its own section.
void addVariable(ObjectFile &Obj, ModuleVariant &V, StringRef Name, Binding B, uint64_t Size, bool Init = false) {
  Symbol S;
  S.setName(Obj.save(Name));
  S.Kind = SymbolKind::Variable;
  S.Bind = B;
  S.Space = StateSpace::Global;
  S.setSize(Size);
  S.Initialized = Init;
  S.Where = {3, 1};
  if (B != Binding::Undefined) {
    Section Sec;
    Sec.Kind = SectionKind::Variable;
    Sec.Symbol = V.Symbols.size(); // S is pushed below: the section's name and place are S's
    Sec.setContents(Obj.save((".global .b8 " + Name + "[" + std::to_string(Size) + "];").str()));
    S.Section = V.Sections.size();
    V.Sections.push_back(Sec);
  }
  V.Symbols.push_back(S);
}

struct HandLink {
  std::vector<InputFile> Inputs;
  LinkOptions Options;
  std::string Text;
  raw_string_ostream OS{Text};
  DiagnosticEngine Diags{OS};
  LinkNames Names;

  ModuleVariant &module(StringRef Name) {
    auto Obj = std::make_unique<ObjectFile>();
    Obj->Variants.emplace_back();
    Obj->Variants.back().Target.Arch = Obj->save("sm_90");
    Obj->Variants.back().SourceName = Obj->save((Name + ".ptx").str());
    Inputs.push_back({(Name + ".o").str(), std::move(Obj)});
    return Inputs.back().Object->Variants.back();
  }
  ObjectFile &object() { return *Inputs.back().Object; }
  /// The hand-built modules selected for sm_90 and resolved.
  std::unique_ptr<SymbolTable> resolve() {
    auto L = std::make_unique<SymbolTable>();
    EXPECT_TRUE(selectVariants(Options, Inputs, arch("sm_90"), Diags, *L));
    for (uint32_t I = 0; I < Inputs.size(); ++I)
      Names.addObject(*Inputs[I].Object, I);
    resolveSymbols(*L, Names, Inputs, Diags);
    return L;
  }
};

TEST(LinkerResolve, AbiRecordsAreFoundWithOrWithoutAPerSymbolTable) {
  // Records in increasing symbol order (the assembler's and our writer's) are found by binary search,
  // others through a per-symbol table; either way a symbol's function record wins over a variable record
  // (only a malformed object has both) and a symbol without a record has none.
  for (bool Ordered : {true, false}) {
    SCOPED_TRACE(Ordered);
    HandLink H;
    ModuleVariant &M = H.module("a");
    for (StringRef N : {"v0", "f1", "v2", "none3"})
      addVariable(H.object(), M, N, Binding::Global, 4);
    auto variable = [](uint32_t S) {
      VariableAbi V;
      V.Symbol = S;
      return V;
    };
    FunctionAbi F;
    F.Symbol = 1;
    M.Functions.push_back(F);
    for (uint32_t S : {0u, 1u, 2u})
      M.Variables.push_back(variable(S));
    if (!Ordered)
      std::reverse(M.Variables.begin(), M.Variables.end());
    auto L = H.resolve();
    EXPECT_EQ(L->Modules[0].AbiOf.empty(), Ordered);
    EXPECT_EQ(L->functionAbi({0, 1}), &M.Functions[0]);
    EXPECT_EQ(L->variableAbi({0, 1}), nullptr);
    ASSERT_NE(L->variableAbi({0, 0}), nullptr);
    EXPECT_EQ(L->variableAbi({0, 0})->Symbol, 0u);
    ASSERT_NE(L->variableAbi({0, 2}), nullptr);
    EXPECT_EQ(L->variableAbi({0, 2})->Symbol, 2u);
    EXPECT_EQ(L->functionAbi({0, 0}), nullptr);
    EXPECT_EQ(L->functionAbi({0, 3}), nullptr);
    EXPECT_EQ(L->variableAbi({0, 3}), nullptr);
  }
}

TEST(LinkerResolve, LargestCommonWins) {
  HandLink H;
  addVariable(H.object(), H.module("a"), "cv", Binding::Common, 16);
  addVariable(H.object(), H.module("b"), "cv", Binding::Common, 64);
  addVariable(H.object(), H.module("c"), "cv", Binding::Common, 32);
  auto L = H.resolve();
  ASSERT_EQ(L->Globals.size(), 1u);
  const GlobalSymbol &G = L->Globals[0];
  EXPECT_EQ(G.Bind, Binding::Common);
  EXPECT_EQ(L->resolvedSize(G), 64u);
  EXPECT_EQ(L->def(G).Module, 1u);
  EXPECT_FALSE(H.Diags.hasErrors()) << H.Text;
}

TEST(LinkerEmit, AMergedDebugSectionOf4GiBOrMoreIsRefused) {
  // Section keeps a 32-bit size: two modules' .debug_loc of 2 GiB + 8 each would merge into one past
  // 4 GiB, which the link refuses (output-too-large) before copying anything rather than truncate. Their
  // contents are one reserved, never-touched mapping: nothing reads them.
  const size_t Part = (size_t(1) << 31) + 8;
  void *Zeros = ::mmap(nullptr, Part, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(Zeros, MAP_FAILED);
  HandLink H;
  H.Diags.setRecord(true);
  for (const char *Name : {"a", "b"}) {
    ModuleVariant &V = H.module(Name);
    Section S;
    S.Kind = SectionKind::Debug;
    S.setContents(StringRef(static_cast<const char *>(Zeros), Part));
    ASSERT_TRUE(V.labelSection(S, ".debug_loc", {2, 1}));
    V.startRelocs(S);
    V.endRelocs(S);
    V.Sections.push_back(S);
  }
  auto L = H.resolve();
  markLive(*L, H.Options, H.Inputs);
  ModuleVariant Out;
  ObjectFile Storage;
  emitModule(*L, H.Options, H.Inputs, TargetChoice{arch("sm_90")}, H.Diags, Out, Storage);
  ::munmap(Zeros, Part);
  EXPECT_TRUE(H.Diags.hasErrors());
  EXPECT_NE(H.Text.find("the linked .debug_loc would be 4294967312 bytes: a section must be below 4 GiB (sm_90)"),
            std::string::npos)
      << H.Text;
  ASSERT_EQ(H.Diags.recorded().size(), 1u) << H.Text;
  EXPECT_EQ(H.Diags.recorded()[0].Code, "output-too-large");
  ASSERT_EQ(Out.Sections.size(), 1u);
  EXPECT_EQ(Out.Sections[0].contents().size(), 0u); // nothing copied, nothing truncated
}

TEST(LinkerResolve, InitializedCommonMustBeLargest) {
  HandLink H;
  addVariable(H.object(), H.module("a"), "cv", Binding::Common, 16, /*Init=*/true);
  addVariable(H.object(), H.module("b"), "cv", Binding::Common, 64);
  auto L = H.resolve();
  // The initialized one wins, with the largest size (kept beside the GlobalSymbol: SymbolTable::resolvedSize).
  EXPECT_EQ(L->def(L->Globals[0]), (SymRef{0, 0}));
  EXPECT_EQ(L->resolvedSize(L->Globals[0]), 64u);
  EXPECT_EQ(H.Diags.errorCount(), 1u);
  EXPECT_NE(H.Text.find("is larger than its initialized definition"), std::string::npos) << H.Text;
  EXPECT_NE(H.Text.find(">>> initialized at a.ptx:3:1 (a.o)"), std::string::npos) << H.Text;
}

TEST(LinkerResolve, StrongBeatsWeakBeatsCommonWhateverTheOrder) {
  HandLink H;
  addVariable(H.object(), H.module("a"), "v", Binding::Common, 8);
  addVariable(H.object(), H.module("b"), "v", Binding::Weak, 8);
  addVariable(H.object(), H.module("c"), "v", Binding::Global, 8);
  addVariable(H.object(), H.module("d"), "v", Binding::Weak, 8);
  addVariable(H.object(), H.module("e"), "v", Binding::Undefined, 8);
  auto L = H.resolve();
  const GlobalSymbol &G = L->Globals[0];
  EXPECT_EQ(L->def(G).Module, 2u);
  EXPECT_EQ(G.Bind, Binding::Global);
  // The winner first (def reads it there), the other definitions in input order.
  auto Defs = L->defs(G);
  ASSERT_EQ(Defs.size(), 4u);
  EXPECT_EQ(Defs[0], (SymRef{2, 0}));
  EXPECT_EQ(Defs[1], (SymRef{0, 0}));
  EXPECT_EQ(Defs[2], (SymRef{1, 0}));
  EXPECT_EQ(Defs[3], (SymRef{3, 0}));
  EXPECT_EQ(L->decls(G).size(), 1u);
  EXPECT_FALSE(H.Diags.hasErrors()) << H.Text;
}

TEST(LinkerResolve, SitesAreGroupedByNameDefinitionsFirstInInputOrder) {
  // Two names whose definitions and declarations interleave across modules (and within one): each
  // GlobalSymbol's sites are its definitions (the winner first, where def() reads it, then the others
  // in input order), then its declarations in input order, and its name is read through them.
  HandLink H;
  ModuleVariant &A = H.module("a");
  addVariable(H.object(), A, "x", Binding::Undefined, 4);
  addVariable(H.object(), A, "y", Binding::Weak, 8);
  ModuleVariant &B = H.module("b");
  addVariable(H.object(), B, "y", Binding::Undefined, 8);
  addVariable(H.object(), B, "x", Binding::Common, 4);
  ModuleVariant &C = H.module("c");
  addVariable(H.object(), C, "x", Binding::Undefined, 4);
  addVariable(H.object(), C, "y", Binding::Weak, 8);
  addVariable(H.object(), C, "x", Binding::Common, 16);
  auto L = H.resolve();
  ASSERT_EQ(L->Globals.size(), 2u);
  const GlobalSymbol &X = L->Globals[0], &Y = L->Globals[1];
  EXPECT_EQ(L->name(X), "x");
  EXPECT_EQ(L->name(Y), "y");
  auto refs = [](ArrayRef<SymRef> Sites) {
    std::vector<std::pair<uint32_t, uint32_t>> Out;
    for (SymRef R : Sites)
      Out.push_back({R.Module, R.Symbol});
    return Out;
  };
  using Refs = std::vector<std::pair<uint32_t, uint32_t>>;
  EXPECT_EQ(refs(L->defs(X)), (Refs{{2, 2}, {1, 1}})); // the winner (the largest .common) first
  EXPECT_EQ(refs(L->decls(X)), (Refs{{0, 0}, {2, 0}}));
  EXPECT_EQ(refs(L->defs(Y)), (Refs{{0, 1}, {2, 1}}));
  EXPECT_EQ(refs(L->decls(Y)), (Refs{{1, 0}}));
  EXPECT_EQ(L->findGlobal("y"), 1u);
  EXPECT_EQ(L->findGlobal("z"), NoGlobal);
  // The largest .common wins; the resolved size is the winner's.
  EXPECT_EQ(L->def(X), (SymRef{2, 2}));
  EXPECT_EQ(L->resolvedSize(X), 16u);
  EXPECT_EQ(L->def(Y), (SymRef{0, 1}));
  EXPECT_FALSE(H.Diags.hasErrors()) << H.Text;
}

TEST(LinkerResolve, TwoStrongDefinitionsAreADuplicate) {
  HandLink H;
  addVariable(H.object(), H.module("a"), "_Z1gv", Binding::Global, 4);
  addVariable(H.object(), H.module("b"), "_Z1gv", Binding::Global, 4);
  H.resolve();
  EXPECT_NE(H.Text.find("ptxlink: error: duplicate symbol: g() (_Z1gv)\n>>> defined at a.ptx:3:1 (a.o)\n"
                        ">>> defined at b.ptx:3:1 (b.o)\n"),
            std::string::npos)
      << H.Text;
}

TEST(LinkerResolve, LocalsNeverMeetGlobals) {
  HandLink H;
  addVariable(H.object(), H.module("a"), "x", Binding::Local, 4);
  addVariable(H.object(), H.module("b"), "x", Binding::Local, 8);
  auto L = H.resolve();
  EXPECT_TRUE(L->Globals.empty());
  EXPECT_FALSE(H.Diags.hasErrors());
}

// ---- whole links through the tool entry point ----

class LinkerTool : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("ptxlink-linker-test", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }
  std::string write(StringRef Name, StringRef Text) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    OS << Text;
    return std::string(P);
  }
  int run(std::vector<std::string> Args) {
    Out.clear();
    Err.clear();
    raw_string_ostream O(Out), E(Err);
    return runLinkerTool(Args, O, E);
  }
  SmallString<128> Dir;
  std::string Out, Err;
};

const char *Kernel = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) f(.param .b32 x);
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	{
	.param .b32 a;
	.param .b32 b;
	st.param.b32 [a], 1;
	call.uni (b), f, (a);
	}
	ret;
}
)";
const char *Func = R"(.version 8.0
.target sm_80
.address_size 64
.visible .func (.param .b32 r) f(.param .b32 x)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [x];
	st.param.b32 [r], %r1;
	ret;
}
)";

TEST_F(LinkerTool, FatbinHasOnePtxImagePerArch) {
  std::string A = write("k.ptx", Kernel), B = write("f.ptx", Func), O = (Dir + "/out.fatbin").str();
  ASSERT_EQ(run({"-arch", "sm_80,sm_90", A, B, "-o", O}), 0) << Err;
  auto Buf = MemoryBuffer::getFile(O);
  ASSERT_TRUE(bool(Buf));
  std::vector<std::string> Warnings;
  auto Images = readFatbin((*Buf)->getBuffer(), [&](uint64_t, const Twine &T) { Warnings.push_back(T.str()); });
  EXPECT_TRUE(Warnings.empty());
  ASSERT_EQ(Images.size(), 2u);
  EXPECT_EQ(Images[0].Kind, FatbinKind::Ptx);
  EXPECT_EQ(Images[0].Arch.Sm, 80u);
  EXPECT_EQ(Images[1].Arch.Sm, 90u);
  EXPECT_NE(Images[0].Payload.find(".target sm_80"), std::string::npos);
  EXPECT_NE(Images[1].Payload.find(".target sm_90"), std::string::npos);
  // sm_90 needs PTX ISA 7.8: the inputs say 8.0, so the version stays 8.0.
  EXPECT_EQ(Images[1].VersionMajor, 8u);
  EXPECT_NE(Images[0].Payload.find(".visible .func (.param .b32 r) f(.param .b32 x)\n{"), std::string::npos);
}

TEST_F(LinkerTool, OutputIsIdenticalWhateverTheThreadCount) {
  std::string A = write("k.ptx", Kernel), B = write("f.ptx", Func);
  std::string O1 = (Dir + "/1.fatbin").str(), O2 = (Dir + "/2.fatbin").str();
  ASSERT_EQ(run({"-arch=sm_80,sm_90", "--threads", "1", A, B, "-o", O1}), 0) << Err;
  ASSERT_EQ(run({"-arch=sm_80,sm_90", "--threads", "2", A, B, "-o", O2}), 0) << Err;
  auto B1 = MemoryBuffer::getFile(O1), B2 = MemoryBuffer::getFile(O2);
  ASSERT_TRUE(B1 && B2);
  EXPECT_EQ((*B1)->getBuffer(), (*B2)->getBuffer());
}

TEST_F(LinkerTool, FailedLinkWritesNothing) {
  std::string A = write("k.ptx", Kernel), O = (Dir + "/out.fatbin").str();
  EXPECT_EQ(run({"-arch", "sm_80", A, "-o", O}), 1);
  EXPECT_NE(Err.find("ptxlink: error: undefined symbol: f\n>>> referenced by "), std::string::npos) << Err;
  EXPECT_FALSE(sys::fs::exists(O));
}

TEST_F(LinkerTool, DiagnosticsAreReportedOncePerLinkNotPerArch) {
  std::string A = write("k.ptx", Kernel), O = (Dir + "/out.fatbin").str();
  EXPECT_EQ(run({"-arch", "sm_80,sm_86,sm_90", A, "-o", O}), 1);
  size_t First = Err.find("undefined symbol: f");
  ASSERT_NE(First, std::string::npos);
  EXPECT_EQ(Err.find("undefined symbol: f", First + 1), std::string::npos) << Err;
}

// nvcc's static kernels and `static __device__` variables are module-local: two modules may each define
// one with the same name (one .cu compiled twice with different -D). The link keeps both, renames the
// later one, and tells the caller (the device-link host object registers them by name).
const char *StaticKernel = R"(.version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 __nv_static_hits;
.const .align 4 .u32 __nv_static_limit = 3;
.shared .align 4 .u32 scratch;
.entry __nv_static_k(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	mov.u64 %rd1, __nv_static_hits;
	ld.const.u32 %r1, [__nv_static_limit];
	ret;
}
)";

TEST_F(LinkerTool, RenamedLocalKernelsAndVariablesAreReported) {
  std::string A = write("a.ptx", StaticKernel), B = write("b.ptx", StaticKernel), O = (Dir + "/out.fatbin").str();
  LinkOptions Options;
  Options.Arches = {"sm_80", "sm_90"};
  Options.Inputs = {{LinkInput::File, A, false}, {LinkInput::File, B, false}};
  Options.Output = O;
  std::string Errors;
  raw_string_ostream ErrOS(Errors), OutOS(Out);
  DiagnosticEngine Diags(ErrOS, "ptxlink");
  LinkResult Result;
  ASSERT_TRUE(link(Options, Diags, OutOS, &Result)) << Errors;
  EXPECT_TRUE(Errors.empty()) << Errors;
  // Per arch, the second module's kernel and its .global and .const variables; never the .shared one.
  std::vector<std::string> Got;
  for (const LocalRename &R : Result.Renamed)
    Got.push_back(R.Arch + " " + std::to_string(R.Input) + " " + (R.IsKernel ? "kernel " : "variable ") + R.Original +
                  " -> " + R.Linked);
  EXPECT_EQ(Got, (std::vector<std::string>{"sm_80 1 variable __nv_static_hits -> __nv_static_hits$2",
                                           "sm_80 1 variable __nv_static_limit -> __nv_static_limit$2",
                                           "sm_80 1 kernel __nv_static_k -> __nv_static_k$2",
                                           "sm_90 1 variable __nv_static_hits -> __nv_static_hits$2",
                                           "sm_90 1 variable __nv_static_limit -> __nv_static_limit$2",
                                           "sm_90 1 kernel __nv_static_k -> __nv_static_k$2"}));
  ASSERT_FALSE(Result.Renamed.empty());
  EXPECT_EQ(Result.Renamed.front().InputName, B);
}

TEST_F(LinkerTool, ALocalTooLongToRenameIsAnError) {
  // A Symbol keeps a 24-bit name length (MaxSymbolNameBytes): two modules' locals of the longest name the
  // assembler takes clash, and the second cannot be renamed (`name$2` would not fit). The link says so and
  // writes nothing, rather than keeping a length that wrapped.
  const std::string Name(MaxSymbolNameBytes, 'g');
  const std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n.global .u32 " + Name +
                           ";\n.visible .entry k_ID()\n{\n  st.global.u32 [" + Name + "], 1;\n  ret;\n}\n";
  std::string A = write("a.ptx", llvm::StringRef(Text).str()), O = (Dir + "/out.ptx").str();
  std::string TextB = Text;
  TextB.replace(TextB.find("k_ID"), 4, "k_B2");
  std::string B = write("b.ptx", TextB);
  std::string TextA = Text;
  TextA.replace(TextA.find("k_ID"), 4, "k_A1");
  A = write("a.ptx", TextA);
  EXPECT_EQ(run({"-arch", "sm_80", "--emit", "ptx", A, B, "-o", O}), 1);
  EXPECT_NE(Err.find("error: local symbol 'gggggggggggggggggggggggggggggggg...' of " + B +
                     " cannot be renamed apart from another of its name: 'gggggggggggggggggggggggggggggg$2' would be " +
                     std::to_string(MaxSymbolNameBytes + 2) + " bytes long (at most 16777215 are supported)"),
            std::string::npos)
      << Err.substr(0, 2000);
  EXPECT_FALSE(sys::fs::exists(O));
}

} // namespace

