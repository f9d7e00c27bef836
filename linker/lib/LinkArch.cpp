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

std::string ArchSpec::name() const {
  std::string S = "sm_" + std::to_string(Number);
  if (Suffix)
    S += Suffix;
  return S;
}

std::optional<ArchSpec> parseArch(StringRef Name) {
  StringRef Rest = Name.trim();
  if (!Rest.consume_front("sm_") && !Rest.consume_front("compute_"))
    return std::nullopt;
  ArchSpec A;
  if (Rest.ends_with("a") || Rest.ends_with("f")) {
    A.Suffix = Rest.back();
    Rest = Rest.drop_back();
  }
  if (Rest.empty() || Rest.getAsInteger(10, A.Number))
    return std::nullopt;
  if (A.Number == 101) // renamed to sm_110 from PTX ISA 9.0
    A.Number = 110;
  if (!minPtxVersion(A))
    return std::nullopt;
  return A;
}

unsigned archFamily(unsigned Number) { return Number >= 100 ? Number / 10 : 0; }

bool variantUsable(const ArchSpec &V, const ArchSpec &R) {
  if (V.Number == R.Number && V.Suffix == R.Suffix)
    return true;
  if (V.Suffix == 'a')
    return false; // architecture-specific code runs on exactly that arch
  if (V.Suffix == 'f')
    return archFamily(V.Number) != 0 && archFamily(V.Number) == archFamily(R.Number) && R.Number >= V.Number;
  // Plain PTX is forward compatible (the onion-layer model).
  return R.Number >= V.Number;
}

unsigned variantScore(const ArchSpec &V, const ArchSpec &R) {
  if (V.Number == R.Number && V.Suffix == R.Suffix)
    return 3000000;
  if (V.Suffix == 'f')
    return 2000000 + V.Number;
  return 1000000 + V.Number;
}

std::optional<std::pair<unsigned, unsigned>> minPtxVersion(const ArchSpec &A) {
  using V = std::pair<unsigned, unsigned>;
  auto Plain = [&]() -> std::optional<V> {
    switch (A.Number) {
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
  if (A.Suffix == 'a') {
    if (A.Number == 90)
      return V{8, 0};
    if (A.Number < 90)
      return std::nullopt;
    return Plain;
  }
  if (A.Suffix == 'f') {
    if (A.Number < 100)
      return std::nullopt;
    return std::max(*Plain, V{8, 8});
  }
  return Plain;
}

int selectVariant(const ObjectFile &Object, const ArchSpec &Requested) {
  int Best = -1;
  unsigned BestScore = 0;
  for (size_t I = 0; I < Object.Variants.size(); ++I) {
    std::optional<ArchSpec> V = parseArch(Object.Variants[I].Target.Arch);
    if (!V || !variantUsable(*V, Requested))
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
