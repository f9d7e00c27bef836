// ptxlink-dump: describe GPU binaries (our objects and archives, NVIDIA cubins and fatbinaries, host
// files embedding them, PTX text). The work is done by runDumpTool (Dump.h beside this file).
#include "Dump.h"
#include "ptxlink/CommandLine.h"
#include "ptxlink/InputFaults.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  ptxlink::reportTruncatedInputs("ptxlink-dump");
  std::vector<std::string> Args(argv + 1, argv + argc);
  return ptxlink::finishStandardOutput("ptxlink-dump", ptxlink::runDumpTool(Args, llvm::outs(), llvm::errs()));
}
