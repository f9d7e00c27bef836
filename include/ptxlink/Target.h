// The GPU architecture a piece of device code is for, in one model.
//
// The problem: the same fact (sm_90a, compute_100f) reaches ptxlink spelled five ways: a PTX `.target`
// entry, an -arch option, the flags of a fatbinary image, the e_flags (and .nv.compat) of a cubin, and the
// e_flags ptxlink writes into its own objects. Each used to be parsed where it was read, with its own
// idea of the sm_101 -> sm_110 renaming and of which `a`/`f` code runs where. Target is the one value
// they all convert to and from; the rules about it (names, families, where a variant may run) live here
// and nowhere else.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ptxlink {

/// A GPU architecture: a number and NVIDIA's suffix. sm_90a = {90, 'a'} (architecture-specific: only
/// that GPU), sm_100f = {100, 'f'} (family-specific: later GPUs of the sm_10x family too), sm_80 = {80, 0}.
/// compute_XX names the same target as sm_XX (PTX is virtual code for it).
struct Target {
  uint32_t Sm = 0;
  char Suffix = 0; // 0, 'a' or 'f'

  /// "sm_90a", "compute_90", "sm_101f" (PTX ISA 9.0 renamed sm_101 to sm_110, so it is read as sm_110f);
  /// std::nullopt for anything else ("debug", "sm_", "sm_9x"). Any number is accepted: whether the
  /// target exists is minPtxVersion's question.
  static std::optional<Target> parse(llvm::StringRef Name);

  bool isArchSpecific() const { return Suffix == 'a'; }
  bool isFamilySpecific() const { return Suffix == 'f'; }
  /// "sm_90a"; with Virtual, "compute_90a" (how fatbinaries and nvcc name PTX images).
  std::string name(bool Virtual = false) const;
  /// The family of an sm_1xx target: 10 for sm_100/sm_103, 11 for sm_110, 12 for sm_120/sm_121; 0 before
  /// sm_100, where there are no families.
  unsigned family() const { return Sm >= 100 ? Sm / 10 : 0; }
  /// Can PTX compiled for this target be linked into (JIT-compiled for) Requested? An `a` target only
  /// for exactly itself, an `f` target for itself and later members of its family, a plain one for any
  /// target not below it (PTX is forward compatible); and every target for exactly itself.
  bool ptxUsableFor(const Target &Requested) const;

  friend bool operator==(const Target &A, const Target &B) { return A.Sm == B.Sm && A.Suffix == B.Suffix; }
};

/// The target a CUDA ELF file (a cubin, or a ptxlink object) names in its header: e_flags holds the SM
/// number (bits 8-15 from ELF ABI version 8 on, bits 0-7 before) and, before ABI 8, the accelerator bit
/// of `a` targets. ABI 8 keeps `a` out of e_flags; the caller reads it from .nv.compat.
Target targetFromCudaElfFlags(uint32_t Flags, uint8_t AbiVersion);
/// NVIDIA's e_flags for PTX (virtual code) of T, the layout before ABI 8 that ptxlink objects use
/// (llvm/BinaryFormat/ELF.h): the SM number in EF_CUDA_SM and EF_CUDA_VIRTUAL_SM, 64-bit addressing,
/// the accelerator bit of `a` targets. 0 for an SM number that does not fit the field.
uint32_t cudaElfFlagsForPtx(const Target &T, bool Address64);
/// Whether a cubin's .nv.compat section (its contents) marks it architecture-specific (`a`): record 0x09
/// in format 2 with value 1. Where ELF ABI 8 keeps the `a` that earlier versions put in e_flags.
bool nvCompatSaysArchSpecific(llvm::StringRef NvCompat);

} // namespace ptxlink
