// Unit tests of the cubin reader on a cubin built at test time by ptxas (skipped when ptxas is absent):
// the arch from e_flags, kernel parameters from .nv.info, R_CUDA names, call graph; and robustness
// against every truncation and a corrupted section table.
#include "ptxlink/Cubin.h"
#include "ptxlink/Fatbin.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

using namespace ptxlink;
using namespace llvm;

namespace {

const char *Source = R"(.version 8.0
.target sm_90
.address_size 64
.visible .func (.param .b32 r) add1(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry kern(.param .u64 p, .param .align 16 .b8 blob[20], .param .u8 c)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u8 %r1, [c];
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call.uni (b), add1, (a); ld.param.b32 %r2, [b]; }
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

std::optional<std::string> buildCubin() {
  auto Ptxas = sys::findProgramByName("ptxas");
  if (!Ptxas) {
    auto Cuda = sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
    if (!Cuda)
      return std::nullopt;
    Ptxas = Cuda;
  }
  SmallString<128> Dir;
  if (sys::fs::createUniqueDirectory("ptxlink-cubin-test", Dir))
    return std::nullopt;
  std::string In = (Dir + "/k.ptx").str(), Out = (Dir + "/k.cubin").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(In, EC);
    OS << Source;
  }
  int RC = sys::ExecuteAndWait(*Ptxas, {*Ptxas, "-arch=sm_90", "-c", In, "-o", Out});
  auto Buf = MemoryBuffer::getFile(Out);
  sys::fs::remove(In);
  sys::fs::remove(Out);
  sys::fs::remove(Dir);
  if (RC != 0 || !Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

class CubinTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { Cubin = new std::optional<std::string>(buildCubin()); }
  static void TearDownTestSuite() { delete Cubin; }
  void SetUp() override {
    if (!*Cubin)
      GTEST_SKIP() << "ptxas not available";
  }
  static std::optional<std::string> *Cubin;
};
std::optional<std::string> *CubinTest::Cubin = nullptr;

TEST_F(CubinTest, DecodesArchKernelsAndParams) {
  std::vector<std::string> Warnings;
  auto Info = readCubin(**Cubin, [&](uint64_t, const Twine &M) { Warnings.push_back(M.str()); });
  ASSERT_TRUE(Info.has_value());
  EXPECT_TRUE(Warnings.empty());
  EXPECT_TRUE(isCubin(**Cubin));
  EXPECT_EQ(Info->Arch.Sm, 90u);
  EXPECT_EQ(Info->Type, 1); // ET_REL from ptxas -c
  EXPECT_EQ(Info->archName(), "sm_90");
  const CubinFunction *K = nullptr, *F = nullptr;
  for (const CubinFunction &Fn : Info->Functions) {
    if (Fn.Name == "kern")
      K = &Fn;
    if (Fn.Name == "add1")
      F = &Fn;
  }
  ASSERT_TRUE(K && F);
  EXPECT_TRUE(K->IsKernel);
  EXPECT_FALSE(F->IsKernel);
  ASSERT_EQ(K->Params.size(), 3u);
  EXPECT_EQ(K->Params[0].Offset, 0u);
  EXPECT_EQ(K->Params[0].Size, 8u);
  EXPECT_EQ(K->Params[1].Offset, 16u); // .align 16
  EXPECT_EQ(K->Params[1].Size, 20u);
  EXPECT_EQ(K->Params[2].Offset, 36u);
  EXPECT_EQ(K->Params[2].Size, 1u);
  ASSERT_TRUE(K->ParamSize.has_value());
  EXPECT_EQ(*K->ParamSize, 37u);
  EXPECT_TRUE(K->Registers.has_value());
  bool CallEdge = false;
  for (const CubinCallEdge &E : Info->CallGraph)
    CallEdge |= E.Caller == "kern" && E.Callee == "add1";
  EXPECT_TRUE(CallEdge);
  bool NamedReloc = false;
  for (const CubinReloc &R : Info->Relocs)
    NamedReloc |= cudaRelocName(R.Type) == "R_CUDA_ABS55_16_34"; // the call
  EXPECT_TRUE(NamedReloc);
  auto Image = makeCubinImage(**Cubin);
  ASSERT_TRUE(bool(Image));
  EXPECT_EQ(Image->Arch.Sm, 90u);
  EXPECT_EQ(Image->VersionMinor, 8);
}

TEST_F(CubinTest, EveryTruncationIsSurvived) {
  const std::string &C = **Cubin;
  for (size_t N = 0; N < C.size(); N += (N < 128 ? 1 : 7)) {
    unsigned Count = 0;
    auto Info = readCubin(StringRef(C).take_front(N), [&](uint64_t Off, const Twine &) {
      EXPECT_LE(Off, C.size());
      ++Count;
    });
    if (N < C.size()) {
      EXPECT_GT(Count, 0u) << "cut at " << N;
    }
    (void)Info;
  }
}

TEST_F(CubinTest, CorruptSectionTableIsReported) {
  std::string C = **Cubin;
  // Point the section header table past the end of the file.
  uint64_t Far = uint64_t(1) << 60;
  memcpy(&C[0x28], &Far, 8);
  unsigned Count = 0;
  auto Info = readCubin(C, [&](uint64_t, const Twine &) { ++Count; });
  ASSERT_TRUE(Info.has_value());
  EXPECT_GT(Count, 0u);
  EXPECT_TRUE(Info->Sections.empty());
  // Scribble over the .nv.info records: warnings, no crash.
  std::string D = **Cubin;
  for (const CubinSection &S : readElfSections(D, [](uint64_t, const Twine &) {}))
    if (S.Type == nvelf::SHT_CUDA_INFO)
      for (uint64_t I = 0; I < S.Size; I += 4)
        D[S.Offset + I] = char(0x04), D[S.Offset + I + 2] = char(0xff), D[S.Offset + I + 3] = char(0xff);
  Count = 0;
  auto Info2 = readCubin(D, [&](uint64_t, const Twine &) { ++Count; });
  EXPECT_TRUE(Info2.has_value());
  EXPECT_GT(Count, 0u);
}

// Finding 1 of issue 15: a call-graph or attribute record naming symbol 0xffffffff or 0xfffffffe (the
// empty and tombstone keys of a DenseMap<uint32_t>) tripped an assertion in an asserts build and read an
// uninitialised bucket in a release one. Every call edge's caller is rewritten to each key in turn.
TEST_F(CubinTest, CallGraphWithReservedHashKeysIsNamedAsUnknown) {
  for (uint32_t Key : {0xffffffffu, 0xfffffffeu, 0x01000000u}) {
    std::string D = **Cubin;
    bool Patched = false;
    for (const CubinSection &S : readElfSections(D, [](uint64_t, const Twine &) {})) {
      if (S.Type == nvelf::SHT_CUDA_CALLGRAPH)
        for (uint64_t P = 0; P + 8 <= S.Size; P += 8) {
          uint32_t Callee;
          memcpy(&Callee, &D[S.Offset + P + 4], 4);
          if (Callee < 0xfffffffc)
            memcpy(&D[S.Offset + P], &Key, 4), Patched = true;
        }
      if (S.Type == nvelf::SHT_CUDA_INFO) // .nv.info: point every symbol-valued attribute at the key too
        for (uint64_t P = 0; P + 12 <= S.Size;) {
          uint8_t Format = D[S.Offset + P];
          uint16_t Size;
          memcpy(&Size, &D[S.Offset + P + 2], 2);
          if (Format != 4)
            P += 4;
          else {
            if (Size >= 8)
              memcpy(&D[S.Offset + P + 4], &Key, 4);
            P += 4 + Size;
          }
        }
    }
    ASSERT_TRUE(Patched);
    auto Info = readCubin(D, [](uint64_t, const Twine &) {});
    ASSERT_TRUE(Info.has_value());
    bool Found = false;
    for (const CubinCallEdge &E : Info->CallGraph) {
      EXPECT_EQ(E.Caller, ("<symbol " + Twine(Key) + ">").str());
      Found = true;
    }
    EXPECT_TRUE(Found);
  }
}

} // namespace
