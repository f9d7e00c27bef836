// ptxlink: the PTX-level device linker. A thin shell over runLinkerTool (linker/lib/LinkDriver.cpp).
#include "ptxlink/CommandLine.h"
#include "ptxlink/InputFaults.h"
#include "ptxlink/Linker.h"
#include "ptxlink/ProcessMemory.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  ptxlink::prepareToolHeap();
  llvm::InitLLVM X(argc, argv);
  ptxlink::reportTruncatedInputs("ptxlink"); // after InitLLVM, whose fault handlers it goes in front of
  std::vector<std::string> Args(argv + 1, argv + argc);
  int RC = ptxlink::runLinkerTool(Args, llvm::outs(), llvm::errs(), /*ProcessExitsAfter=*/true);
  return ptxlink::finishStandardOutput("ptxlink", RC);
}
