// Unit tests of `ptxlink-dump --abi-diff` (runAbiDiff): PTX versions of a library in, report and exit
// status (abidiff's bits) out.
#include "AbiDiff.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace ptxlink;

namespace {

class AbiDiffTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("abidiff", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string write(llvm::StringRef Name, llvm::StringRef Body) {
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    EXPECT_FALSE(EC);
    OS << ".version 8.0\n.target sm_80\n.address_size 64\n\n" << Body;
    return std::string(Path);
  }

  int run(std::vector<std::string> Args) {
    Out.clear();
    Err.clear();
    llvm::raw_string_ostream O(Out), E(Err);
    return runAbiDiff(Args, O, E);
  }

  llvm::SmallString<128> Dir;
  std::string Out, Err;
};

const char *FuncF = ".visible .func (.param .b32 r) f(.param .b32 a)\n{\n  st.param.b32 [r], 0;\n  ret;\n}\n";
const char *FuncG = ".visible .func g()\n{\n  ret;\n}\n";

TEST_F(AbiDiffTest, IdenticalIsZero) {
  std::string A = write("a.ptx", std::string(FuncF) + ".visible .global .align 4 .b32 tbl[8];\n");
  std::string B = write("b.ptx", std::string(FuncF) + ".visible .global .align 4 .b32 tbl[8];\n");
  EXPECT_EQ(run({A, B}), 0) << Out << Err;
  EXPECT_NE(Out.find("0 removed, 0 added, 0 changed"), std::string::npos) << Out;
  EXPECT_NE(Out.find("verdict: no ABI change (exit status 0)"), std::string::npos) << Out;
}

TEST_F(AbiDiffTest, AddedIsCompatible) {
  std::string A = write("a.ptx", FuncF);
  std::string B = write("b.ptx", std::string(FuncF) + FuncG);
  EXPECT_EQ(run({A, B}), AbiDiffChange) << Out << Err;
  EXPECT_NE(Out.find("added function 'g'"), std::string::npos) << Out;
  EXPECT_NE(Out.find("a drop-in replacement (exit status 4)"), std::string::npos) << Out;
}

TEST_F(AbiDiffTest, RemovedAndChangedAreIncompatible) {
  std::string A = write("a.ptx", std::string(FuncF) + FuncG + ".visible .global .align 4 .b32 tbl[8];\n");
  std::string B = write("b.ptx", ".visible .func (.param .b64 r) f(.param .b32 a)\n{\n  st.param.b64 [r], 0;\n  "
                                 "ret;\n}\n.visible .global .align 4 .b32 tbl[16];\n");
  EXPECT_EQ(run({A, B}), AbiDiffChange | AbiDiffIncompatibleChange) << Out << Err;
  EXPECT_NE(Out.find("removed function 'g' [incompatible]"), std::string::npos) << Out;
  EXPECT_NE(Out.find("changed function 'f' [incompatible]"), std::string::npos) << Out;
  EXPECT_NE(Out.find("  return value: .b32 (4 bytes) in old, .b64 (8 bytes) in new [error: abi-param-size]"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("  size: .b32[8] (32 bytes) in old, .b32[16] (64 bytes) in new [error: abi-var-size]"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("NOT a drop-in replacement: 3 incompatible changes (exit status 12)"), std::string::npos) << Out;
}

TEST_F(AbiDiffTest, JsonAndUsage) {
  std::string A = write("a.ptx", FuncF);
  std::string B = write("b.ptx", FuncG);
  EXPECT_EQ(run({A, B, "--json"}), AbiDiffChange | AbiDiffIncompatibleChange);
  EXPECT_NE(Out.find("\"exitStatus\": 12"), std::string::npos) << Out;
  EXPECT_NE(Out.find("\"compatible\": false"), std::string::npos) << Out;
  EXPECT_EQ(run({A}), AbiDiffError | AbiDiffUsageError);
  EXPECT_EQ(run({A, B, "--bogus"}), AbiDiffError | AbiDiffUsageError);
  EXPECT_EQ(run({A, Dir.str().str() + "/missing.a"}), AbiDiffError);
  EXPECT_NE(Err.find("cannot open"), std::string::npos) << Err;
}

} // namespace
