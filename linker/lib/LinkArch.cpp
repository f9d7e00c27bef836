// Target names and per-architecture variant selection.
//
// The problem: a fat input holds one module compiled for several targets, and `-arch sm_90,sm_80` asks
// for one linked module per architecture. For each requested arch we must pick, per input, the variant
// the driver could legally run there, preferring the most specific one. The rules come from the PTX ISA
// (.target, table 56 "Architecture Families") and are spelled out in docs/linker.md.
#include "LinkContext.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ptxlink {

std::optional<Target> parseArch(StringRef Name) {
  std::optional<Target> A = Target::parse(Name.trim());
  if (!A || !minPtxVersion(*A))
    return std::nullopt;
  return A;
}

unsigned variantScore(const Target &V, const Target &R) {
  if (V == R)
    return 3000000;
  if (V.isFamilySpecific())
    return 2000000 + V.Sm;
  return 1000000 + V.Sm;
}

std::optional<std::pair<unsigned, unsigned>> minPtxVersion(const Target &A) {
  using V = std::pair<unsigned, unsigned>;
  auto Plain = [&]() -> std::optional<V> {
    switch (A.Sm) {
    case 10: case 11: return V{1, 0};
    case 12: case 13: return V{1, 2};
    case 20: return V{2, 0};
    case 30: return V{3, 0};
    case 35: return V{3, 1};
    case 32: case 50: return V{4, 0};
    case 37: case 52: return V{4, 1};
    case 53: return V{4, 2};
    case 60: case 61: case 62: return V{5, 0};
    case 70: return V{6, 0};
    case 72: return V{6, 1};
    case 75: return V{6, 3};
    case 80: return V{7, 0};
    case 86: return V{7, 1};
    case 87: return V{7, 4};
    case 88: return V{9, 0};
    case 89: case 90: return V{7, 8};
    case 100: return V{8, 6};
    case 103: return V{8, 8};
    case 110: return V{9, 0};
    case 120: return V{8, 7};
    case 121: return V{8, 8};
    default: return std::nullopt;
    }
  }();
  if (!Plain)
    return std::nullopt;
  if (A.isArchSpecific()) {
    if (A.Sm == 90)
      return V{8, 0};
    if (A.Sm < 90)
      return std::nullopt;
    return Plain;
  }
  if (A.isFamilySpecific()) {
    if (A.Sm < 100)
      return std::nullopt;
    return std::max(*Plain, V{8, 8});
  }
  return Plain;
}

int selectVariant(const ObjectFile &Object, const Target &Requested) {
  int Best = -1;
  unsigned BestScore = 0;
  for (size_t I = 0; I < Object.Variants.size(); ++I) {
    std::optional<Target> V = parseArch(Object.Variants[I].Target.Arch);
    if (!V || !V->ptxUsableFor(Requested))
      continue;
    unsigned Score = variantScore(*V, Requested);
    if (Score > BestScore) { // strict: among equals the first variant wins
      Best = static_cast<int>(I);
      BestScore = Score;
    }
  }
  return Best;
}

} // namespace ptxlink
