// reportTruncatedInputs (InputFaults.h): a mapped input truncated under the tool ends it with a message
// and status 1, and the atomic writer's temporary is removed. Each case runs in a death-test child, the
// way the tools run it: the handler installed once, then a page of a read-only mapping touched past the
// file's new end.
#include "ptxlink/InputFaults.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <csignal>
#include <unistd.h>

using namespace llvm;

namespace {

class InputFaults : public ::testing::Test {
protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    ASSERT_FALSE(sys::fs::createUniqueDirectory("ptxlink-input-faults", Dir));
    Input = (Dir + "/input.ptx").str();
    Temporary = (Dir + "/out.o.tmp1-1").str();
    std::error_code EC;
    raw_fd_ostream OS(Input, EC);
    ASSERT_FALSE(EC);
    OS << std::string(1 << 20, 'x'); // 1 MiB: mapped, not read into the heap
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  /// Maps Input, truncates it to nothing, and reads a byte of its last page: SIGBUS (BUS_ADRERR).
  static int readPastTheNewEnd(const std::string &Path) {
    auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer || (*Buffer)->getBufferKind() != MemoryBuffer::MemoryBuffer_MMap)
      return 2; // the test needs a mapping
    if (::truncate(Path.c_str(), 0) != 0)
      return 3;
    const volatile char *Last = (*Buffer)->getBufferEnd() - 1;
    return *Last;
  }

  SmallString<128> Dir;
  std::string Input, Temporary;
};

TEST_F(InputFaults, ATruncatedMappingIsAnErrorNotACrash) {
  EXPECT_EXIT(
      {
        ptxlink::reportTruncatedInputs("ptxlink-test");
        std::exit(readPastTheNewEnd(Input));
      },
      ::testing::ExitedWithCode(1),
      "^ptxlink-test: error: an input file was truncated or replaced while ptxlink-test was reading it; stopped "
      "\\(no output written\\)\n$");
}

TEST_F(InputFaults, TheWritersTemporaryIsRemoved) {
  // Registered after the handler, as the atomic writer registers it during a run: LLVM's handlers were
  // installed first, so this does not put them back in front.
  EXPECT_EXIT(
      {
        ptxlink::reportTruncatedInputs("ptxlink-test");
        std::error_code EC;
        raw_fd_ostream OS(Temporary, EC);
        OS << "partial";
        OS.close();
        sys::RemoveFileOnSignal(Temporary);
        std::exit(readPastTheNewEnd(Input));
      },
      ::testing::ExitedWithCode(1), "truncated or replaced");
  EXPECT_FALSE(sys::fs::exists(Temporary));
  EXPECT_TRUE(sys::fs::exists(Input)); // an input is never removed
}

TEST_F(InputFaults, WithoutTheHandlerItIsABusError) {
  // What the tools did before (and what an in-process caller that installs nothing still gets).
  EXPECT_EXIT(std::exit(readPastTheNewEnd(Input)), ::testing::KilledBySignal(SIGBUS), "");
}

} // namespace
