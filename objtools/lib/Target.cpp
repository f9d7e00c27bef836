// Target names, families and the e_flags of CUDA ELF files: the one place these rules are written (see
// include/ptxlink/Target.h).
#include "ptxlink/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

namespace ptxlink {

std::optional<Target> Target::parse(llvm::StringRef Name) {
  llvm::StringRef Rest = Name;
  if (!Rest.consume_front("sm_") && !Rest.consume_front("compute_"))
    return std::nullopt;
  Target T;
  if (Rest.ends_with("a") || Rest.ends_with("f")) {
    T.Suffix = Rest.back();
    Rest = Rest.drop_back();
  }
  // Digits only: getAsInteger alone would take "0x5a" for a number.
  if (Rest.empty() || !llvm::all_of(Rest, llvm::isDigit) || Rest.getAsInteger(10, T.Sm))
    return std::nullopt;
  if (T.Sm == 101) // renamed to sm_110 in PTX ISA 9.0
    T.Sm = 110;
  return T;
}

std::string Target::name(bool Virtual) const {
  std::string S = (Virtual ? "compute_" : "sm_") + std::to_string(Sm);
  if (Suffix)
    S += Suffix;
  return S;
}

bool Target::ptxUsableFor(const Target &Requested) const {
  if (*this == Requested)
    return true;
  if (isArchSpecific())
    return false; // architecture-specific code runs on exactly that arch
  if (isFamilySpecific())
    return family() != 0 && family() == Requested.family() && Requested.Sm >= Sm;
  // Plain PTX is forward compatible (the onion-layer model).
  return Requested.Sm >= Sm;
}

Target targetFromCudaElfFlags(uint32_t Flags, uint8_t AbiVersion) {
  Target T;
  if (AbiVersion >= 8) {
    T.Sm = (Flags >> 8) & 0xff;
  } else {
    T.Sm = Flags & llvm::ELF::EF_CUDA_SM;
    if (Flags & llvm::ELF::EF_CUDA_ACCELERATORS)
      T.Suffix = 'a';
  }
  return T;
}

uint32_t cudaElfFlagsForPtx(const Target &T, bool Address64) {
  if (T.Sm > 0xff)
    return 0;
  uint32_t Flags = T.Sm | (T.Sm << 16);
  if (Address64)
    Flags |= llvm::ELF::EF_CUDA_64BIT_ADDRESS;
  if (T.isArchSpecific())
    Flags |= llvm::ELF::EF_CUDA_ACCELERATORS;
  return Flags;
}

bool nvCompatSaysArchSpecific(llvm::StringRef C) {
  for (size_t P = 0; P + 4 <= C.size();) {
    uint8_t Format = C[P], Attr = C[P + 1];
    uint16_t Value = llvm::support::endian::read16le(C.data() + P + 2);
    if (Format == 2 && Attr == 9 && Value == 1)
      return true;
    P += 4 + (Format == 4 ? Value : 0);
  }
  return false;
}

} // namespace ptxlink
