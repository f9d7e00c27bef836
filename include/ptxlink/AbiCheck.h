// Link-time ABI agreement checks between modules (see docs/abi-checks.md for the table of checks).
//
// The problem: two translation units that disagree about a function or variable link silently (or, with
// nvlink, with "Prototype doesn't match" and no detail). These checks compare the structured signatures
// the assembler recorded (ObjectModel.h: FunctionAbi, VariableAbi, PrototypeAbi) and report exactly
// what differs, where, and how serious it is.
#pragma once

#include "ptxlink/Diagnostics.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace ptxlink {

/// One symbol in one module of one input file.
struct SymbolSite {
  const ModuleVariant *Module = nullptr;
  llvm::StringRef ObjectName; // the input file (or "lib.a(member.o)")
  uint32_t Symbol = NoSymbol;
};

/// Compares two sites naming the same function (definition vs declaration, alias vs aliasee,
/// call-table member vs prototype). Reports findings; returns true if any was an error.
bool checkFunctionAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags);

/// Same for variables (extern declaration vs definition).
bool checkVariableAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags);

/// Per-module checks of kernels: parameter space limits, narrow .reg params, bad .param alignment.
bool checkKernels(const ModuleVariant &Module, llvm::StringRef ObjectName, DiagnosticEngine &Diags);

/// Cross-module checks: address size, a/f targets that cannot meet, versions, map_f64_to_f32, texmode.
struct ModuleSite {
  const ModuleVariant *Module = nullptr;
  llvm::StringRef ObjectName;
};
bool checkModuleCompatibility(llvm::ArrayRef<ModuleSite> Modules, DiagnosticEngine &Diags);

/// "did you mean" sites for an undefined name, from the defined names (demangled comparison for C++
/// names, edit distance for others). Appends at most a few DiagSite lines to Out.
void suggestNearMisses(llvm::StringRef Undefined, llvm::ArrayRef<llvm::StringRef> DefinedNames,
                       std::vector<DiagSite> &Out);

} // namespace ptxlink
