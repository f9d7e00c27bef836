// The one model of a GPU architecture (Target): names, the sm_101 -> sm_110 renaming, the a/f family
// rules, and the conversions from and to the e_flags of CUDA ELF files and fatbinary image names.
#include "ptxlink/Fatbin.h"
#include "PtxParser.h"
#include "ptxlink/Target.h"

#include "llvm/BinaryFormat/ELF.h"

#include <gtest/gtest.h>

using namespace ptxlink;

namespace {

Target t(const char *Name) {
  std::optional<Target> T = Target::parse(Name);
  EXPECT_TRUE(T) << Name;
  return T.value_or(Target{});
}

TEST(Target, ParsesEverySpelling) {
  EXPECT_EQ(t("sm_90a"), (Target{90, 'a'}));
  EXPECT_EQ(t("compute_90a"), (Target{90, 'a'}));
  EXPECT_EQ(t("sm_100f"), (Target{100, 'f'}));
  EXPECT_EQ(t("sm_80"), (Target{80, 0}));
  EXPECT_EQ(t("sm_080"), (Target{80, 0}));
  for (const char *Bad : {"", "sm_", "sm_a", "sm_9x", "sm_0x5a", "sm_+90", "gfx90a", "debug", "sm_90b", "SM_90"})
    EXPECT_FALSE(Target::parse(Bad)) << Bad;
}

TEST(Target, Sm101IsSm110) {
  EXPECT_EQ(t("sm_101"), (Target{110, 0}));
  EXPECT_EQ(t("sm_101a"), (Target{110, 'a'}));
  EXPECT_EQ(t("compute_101f"), (Target{110, 'f'}));
  // Every reader of a target name applies it: the assembler's canonical name and fatbinary PTX headers.
  EXPECT_EQ(canonicalArch("sm_101a"), "sm_110a");
  auto Image = makePtxImage(".version 9.0\n.target sm_101f\n.address_size 64\n");
  ASSERT_TRUE(bool(Image)) << llvm::toString(Image.takeError());
  EXPECT_EQ(Image->Arch, (Target{110, 'f'}));
}

TEST(Target, Names) {
  EXPECT_EQ((Target{90, 'a'}).name(), "sm_90a");
  EXPECT_EQ((Target{100, 'f'}).name(/*Virtual=*/true), "compute_100f");
  EXPECT_EQ((Target{75, 0}).name(), "sm_75");
  FatbinImage Ptx;
  Ptx.Arch = Target{120, 'a'};
  EXPECT_EQ(fatbinArchName(Ptx), "compute_120a");
  Ptx.Kind = FatbinKind::Elf;
  EXPECT_EQ(fatbinArchName(Ptx), "sm_120a");
}

TEST(Target, Families) {
  EXPECT_EQ(t("sm_90").family(), 0u); // no families before sm_100
  EXPECT_EQ(t("sm_100").family(), 10u);
  EXPECT_EQ(t("sm_103f").family(), 10u);
  EXPECT_EQ(t("sm_110").family(), 11u);
  EXPECT_EQ(t("sm_121").family(), 12u);
}

TEST(Target, WherePtxMayBeLinked) {
  // Plain PTX is forward compatible.
  EXPECT_TRUE(t("sm_80").ptxUsableFor(t("sm_90")));
  EXPECT_TRUE(t("sm_80").ptxUsableFor(t("sm_90a")));
  EXPECT_FALSE(t("sm_90").ptxUsableFor(t("sm_80")));
  // `a` only for exactly itself, not for the plain target of the same number.
  EXPECT_TRUE(t("sm_90a").ptxUsableFor(t("sm_90a")));
  EXPECT_FALSE(t("sm_90a").ptxUsableFor(t("sm_90")));
  EXPECT_FALSE(t("sm_100a").ptxUsableFor(t("sm_103a")));
  // `f` for itself and the later members of its family.
  EXPECT_TRUE(t("sm_100f").ptxUsableFor(t("sm_103")));
  EXPECT_TRUE(t("sm_100f").ptxUsableFor(t("sm_100a")));
  EXPECT_FALSE(t("sm_103f").ptxUsableFor(t("sm_100")));
  EXPECT_FALSE(t("sm_100f").ptxUsableFor(t("sm_110")));
  EXPECT_FALSE(t("sm_100f").ptxUsableFor(t("sm_120")));
  EXPECT_TRUE(t("sm_110f").ptxUsableFor(t("sm_110")));
  EXPECT_TRUE(t("sm_101f").ptxUsableFor(t("sm_110"))); // the renamed target is the same family
}

TEST(Target, CudaElfFlags) {
  // ptxlink objects: SM in EF_CUDA_SM and EF_CUDA_VIRTUAL_SM, 64-bit, the accelerator bit for `a`.
  uint32_t F = cudaElfFlagsForPtx(t("sm_90a"), true);
  EXPECT_EQ(F, 0x5a | (0x5a << 16) | llvm::ELF::EF_CUDA_64BIT_ADDRESS | llvm::ELF::EF_CUDA_ACCELERATORS);
  EXPECT_EQ(targetFromCudaElfFlags(F, 7), t("sm_90a"));
  EXPECT_EQ(cudaElfFlagsForPtx(t("sm_100f"), false), 100u | (100u << 16));
  EXPECT_EQ(cudaElfFlagsForPtx(Target{300, 0}, true), 0u); // does not fit the field
  // ELF ABI 8 (CUDA 12.8+ cubins): the SM number in bits 8-15, `a` only in .nv.compat.
  EXPECT_EQ(targetFromCudaElfFlags(120u << 8, 8), t("sm_120"));
  const char Compat[] = {2, 9, 1, 0};
  EXPECT_TRUE(nvCompatSaysArchSpecific(llvm::StringRef(Compat, 4)));
  const char Other[] = {2, 8, 1, 0, 4, 1, 2, 0, 9, 9};
  EXPECT_FALSE(nvCompatSaysArchSpecific(llvm::StringRef(Other, sizeof Other)));
}

} // namespace
