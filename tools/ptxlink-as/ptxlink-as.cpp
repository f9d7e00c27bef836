// ptxlink-as: assembles PTX modules into ptxlink relocatable objects. A thin shell over
// ptxlink::runAssemblerTool so tests can run the same code in-process.
#include "ptxlink/Assembler.h"
#include "ptxlink/CommandLine.h"
#include "ptxlink/InputFaults.h"
#include "ptxlink/ProcessMemory.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  ptxlink::prepareToolHeap();
  ptxlink::reportTruncatedInputs("ptxlink-as");
  std::vector<std::string> Args(argv + 1, argv + argc);
  return ptxlink::finishStandardOutput("ptxlink-as", ptxlink::runAssemblerTool(Args, llvm::outs(), llvm::errs()));
}
