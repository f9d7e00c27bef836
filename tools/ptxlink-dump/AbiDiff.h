// `ptxlink-dump --abi-diff old new`: the ABI difference between two versions of a device library.
//
// The problem: a library author wants to know, before shipping, whether the new build is a drop-in
// replacement for the old one: which external functions, kernels and variables disappeared, appeared, or
// changed their prototype or layout, and how seriously. Inputs are archives, ptxlink objects or PTX
// files (in any combination). The exit status mirrors libabigail's abidiff bits (docs/abi-checks.md):
//   0 no ABI change; 1 error (bit 0); 3 usage error (bits 0|1); 4 ABI changed, still compatible (bit 2);
//   12 incompatible change: the new version is not a drop-in replacement (bits 2|3).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ptxlink {

/// Bits of the exit status, as libabigail's abidiff defines them.
enum AbiDiffStatus : int {
  AbiDiffOk = 0,
  AbiDiffError = 1,
  AbiDiffUsageError = 2,
  AbiDiffChange = 4,
  AbiDiffIncompatibleChange = 8,
};

/// Args: old path, new path, optional `--json`. Writes the report to Out, errors to Err; returns the
/// exit status above.
int runAbiDiff(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace ptxlink
