// --time: each pass's duration, as rows "pass,arch,milliseconds" (PassTimes, LinkContext.h; the driver
// writes them, writePassTimes in LinkDriver.cpp).
#include "LinkContext.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace ptxlink {

void PassTimes::add(StringRef Pass, StringRef Arch, std::chrono::steady_clock::time_point Start) {
  double Ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  Entries.push_back({Pass.str(), Arch.str(), Ms});
}

void PassTimes::printCsv(raw_ostream &OS, bool Headings) const {
  double Total = 0;
  if (Headings)
    OS << "pass,arch,milliseconds\n";
  for (const Entry &E : Entries) {
    Total += E.Millis;
    OS << E.Pass << ',' << E.Arch << ',' << format("%.3f", E.Millis) << '\n';
  }
  OS << "total,," << format("%.3f", Total) << '\n';
}

} // namespace ptxlink
