// ptxlink-ar: builds and inspects static device libraries with ar's command line. A thin shell over
// ptxlink::runArchiverTool so tests can run the same code in-process.
#include "Archiver.h"
#include "ptxlink/CommandLine.h"
#include "ptxlink/InputFaults.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  ptxlink::reportTruncatedInputs("ptxlink-ar");
  std::vector<std::string> Args(argv + 1, argv + argc);
  return ptxlink::finishStandardOutput("ptxlink-ar", ptxlink::runArchiverTool(Args, llvm::outs(), llvm::errs()));
}
