// Internal to the ABI checks: what the DWARF in two modules says about one function's C signature.
#pragma once

#include "ptxlink/AbiCheck.h"

namespace ptxlink {

struct DwarfSignatureComparison {
  bool Compared = false;            // both modules describe the function; Findings is then meaningful
  std::vector<AbiFinding> Findings; // C-level differences the PTX types could not show
};

/// Looks the function up (by DW_AT_linkage_name or DW_AT_name) in the debug sections of both modules
/// and compares the C type names of its return value and parameters.
DwarfSignatureComparison compareDwarfSignatures(const ModuleVariant &A, llvm::StringRef NameA,
                                                const ModuleVariant &B, llvm::StringRef NameB,
                                                llvm::StringRef RoleA, llvm::StringRef RoleB);

} // namespace ptxlink
