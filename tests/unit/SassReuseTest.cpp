// The cubin's half of the rule that lets `ptxlink --sass` hand an input's own cubin to nvlink
// (SassReuse.h): the ptxas options compared in ptxas's own spelling, and a real relocatable cubin
// (ptxas 13.0, -arch sm_90 -c) accepted or refused by what its .note.nv.tkinfo says.
#include "SassReuse.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace ptxlink;
using namespace llvm;

namespace {

std::vector<std::string> canon(std::vector<StringRef> Tokens) { return canonicalPtxasOptions(Tokens); }

TEST(SassReuse, OptionsInPtxasSpelling) {
  // What ptxas records for `-O2 --maxrregcount=32 --generate-line-info -arch=sm_80 -c -m64`.
  EXPECT_EQ(canon({"-maxrregcount", "32", "-O", "2", "-lineinfo", "-arch", "sm_80", "-m", "64", "-c"}),
            canon({"-O2", "--maxrregcount=32", "--generate-line-info", "-arch=sm_80", "-c", "-m64"}));
  EXPECT_EQ(canon({"-O2", "--maxrregcount=32"}), (std::vector<std::string>{"-O 2", "-maxrregcount 32"}));
  // What does not change the code here: files, -c, -arch, -m 64, the default -O 3.
  EXPECT_TRUE(canon({"tmpxft_1_b.ptx", "-o", "b.cubin", "-arch", "sm_80", "-m", "64", "-c", "-O", "3"}).empty());
  EXPECT_NE(canon({"-O", "2"}), canon({"-O", "1"}));
  EXPECT_NE(canon({"-g"}), canon({}));
  // An option ptxlink does not know is kept with its value, so it can only make two lists differ.
  EXPECT_NE(canon({"--def-load-cache", "ca"}), canon({"--def-load-cache", "cg"}));
}

FatbinImage elfImage(StringRef Cubin, Target Arch) {
  FatbinImage I;
  I.Kind = FatbinKind::Elf;
  I.Arch = Arch;
  I.Payload = Cubin.str();
  return I;
}

TEST(SassReuse, RealCubinAcceptedOrRefused) {
  auto B = MemoryBuffer::getFile(PTXLINK_SOURCE_DIR "/tests/lit/dump/Inputs/sorted-symtab.cubin");
  ASSERT_TRUE(bool(B));
  StringRef Cubin = (*B)->getBuffer();
  Expected<ToolkitNote> Note = readToolkitNote(Cubin);
  ASSERT_TRUE(bool(Note)) << toString(Note.takeError());
  EXPECT_EQ(Note->Tool, "ptxas");
  EXPECT_EQ(Note->Version, "Cuda compilation tools, release 13.0, V13.0.88");
  EXPECT_EQ(Note->Build, "Build cuda_13.0.r13.0/compiler.36424714_0");
  std::string Version = "ptxas: NVIDIA (R) Ptx optimizing assembler\n" + Note->Version + "\n" + Note->Build;
  std::vector<FatbinImage> Images{elfImage(Cubin, {90, 0})};
  auto why = [&](Expected<std::string> R) { return R ? std::string() : toString(R.takeError()); };

  Expected<std::string> Used = usableInputCubin(Images, "sm_90", "sm_90", false, {}, Version);
  ASSERT_TRUE(bool(Used)) << toString(Used.takeError());
  EXPECT_EQ(*Used, Cubin);
  EXPECT_NE(why(usableInputCubin(Images, "sm_90", "sm_80", false, {}, Version)).find("no SASS for sm_80"), std::string::npos);
  EXPECT_NE(why(usableInputCubin(Images, "sm_80", "sm_90", false, {}, Version)).find("not compiled from the PTX"),
            std::string::npos);
  EXPECT_NE(why(usableInputCubin(Images, "sm_90", "sm_90", true, {}, Version)).find("compiled without debug information"),
            std::string::npos);
  EXPECT_NE(why(usableInputCubin(Images, "sm_90", "sm_90", false, {"-lineinfo"}, Version)).find("'-lineinfo'"),
            std::string::npos);
  EXPECT_NE(why(usableInputCubin(Images, "sm_90", "sm_90", false, {}, "Cuda compilation tools, release 12.8, V12.8.93"))
                .find("another ptxas"),
            std::string::npos);
  // Not a cubin, or one cut short: refused, never read past its end.
  std::vector<FatbinImage> Junk{elfImage("not an ELF at all", {90, 0})};
  EXPECT_NE(why(usableInputCubin(Junk, "sm_90", "sm_90", false, {}, Version)).find("not a cubin"), std::string::npos);
  for (size_t Cut : {size_t(64), Cubin.size() / 2, Cubin.size() - 1}) {
    std::vector<FatbinImage> Short{elfImage(Cubin.take_front(Cut), {90, 0})};
    EXPECT_FALSE(why(usableInputCubin(Short, "sm_90", "sm_90", false, {}, Version)).empty()) << Cut;
  }
}

} // namespace
