// Link-time ABI agreement checks between modules (see docs/abi-checks.md for the table of checks).
//
// The problem: two translation units that disagree about a function or variable link silently (or, with
// nvlink, with "Prototype doesn't match" and no detail). These checks compare the structured signatures
// the assembler recorded (ObjectModel.h: FunctionAbi, VariableAbi, PrototypeAbi) and report exactly
// what differs, where, and how serious it is.
#pragma once

#include "ptxlink/Diagnostics.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ptxlink {

/// One symbol in one module of one input file.
struct SymbolSite {
  const ModuleVariant *Module = nullptr;
  llvm::StringRef ObjectName; // the input file (or "lib.a(member.o)")
  uint32_t Symbol = NoSymbol;
};

/// How the two sites of a comparison relate; it names them in messages ("in the declaration, ... in the
/// definition") and decides which direction of a one-sided rule applies.
enum class AbiRelation : uint8_t {
  DeclarationVsDefinition, // Other = an .extern (or prototype-only) declaration, Definition = the body
  AliasVsAliasee,          // Other = the `.alias` name's declaration, Definition = the aliasee
  CallTableMembers,        // Other = a later member of a call table, Definition = its first member
  CallTargetVsPrototype,   // Other = the `.callprototype`/`.calltargets` use, Definition = the target
  DefinitionVsDefinition,  // Other = a definition that lost (weak, duplicate), Definition = the one chosen
};

/// Settings of the checks. The defaults are what every link uses; `ptxlink --check-abi` also asks for the
/// notes that say when a check was impossible (they would be noise on every ordinary link).
struct AbiCheckOptions {
  /// DeclarationVsDefinition (the default) is refined from the sites themselves: an Other that is an
  /// `.alias` of Definition is checked as AliasVsAliasee, an Other with a body as DefinitionVsDefinition.
  AbiRelation Relation = AbiRelation::DeclarationVsDefinition;
  bool ReportUncheckable = false; // notes: "cannot tell int from float here" and the like
};

/// Compares two sites naming the same function (definition vs declaration, alias vs aliasee,
/// call-table member vs prototype). Reports findings; returns true if any was an error.
bool checkFunctionAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags);
bool checkFunctionAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags,
                            const AbiCheckOptions &Options);

/// A `.callprototype` (ModuleVariant::Prototypes[Prototype]) used for indirect calls in one module.
struct PrototypeSite {
  const ModuleVariant *Module = nullptr;
  llvm::StringRef ObjectName;
  uint32_t Prototype = 0;
};
/// Compares a function that an indirect call may reach (a `.calltargets` member, or a function whose
/// address is called through Proto) against the prototype the call uses.
bool checkPrototypeAgreement(const SymbolSite &Target, const PrototypeSite &Proto, DiagnosticEngine &Diags,
                             const AbiCheckOptions &Options = {});

/// Same for variables (extern declaration vs definition).
bool checkVariableAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags);
bool checkVariableAgreement(const SymbolSite &Definition, const SymbolSite &Other, DiagnosticEngine &Diags,
                            const AbiCheckOptions &Options);

/// Per-module checks of kernels: parameter space limits, narrow .reg params, bad .param alignment.
bool checkKernels(const ModuleVariant &Module, llvm::StringRef ObjectName, DiagnosticEngine &Diags);

/// Cross-module checks: address size, a/f targets that cannot meet, versions, map_f64_to_f32, texmode.
struct ModuleSite {
  const ModuleVariant *Module = nullptr;
  llvm::StringRef ObjectName;
};
bool checkModuleCompatibility(llvm::ArrayRef<ModuleSite> Modules, DiagnosticEngine &Diags);
bool checkModuleCompatibility(llvm::ArrayRef<ModuleSite> Modules, DiagnosticEngine &Diags,
                              const AbiCheckOptions &Options);

/// The kernel parameter space limit (bytes) for a PTX ISA version and target: the smaller of the PTX
/// limit for the version and the CUDA driver limit for the target (seed: ptx-directives.md, .entry).
uint32_t kernelParamLimit(const TargetInfo &Target);

/// "did you mean" sites for an undefined name, from the defined names (demangled comparison for C++
/// names, edit distance for others). Appends at most a few DiagSite lines to Out.
void suggestNearMisses(llvm::StringRef Undefined, llvm::ArrayRef<llvm::StringRef> DefinedNames,
                       std::vector<DiagSite> &Out);

/// One difference between two signatures, as both the link checks and `ptxlink-dump --abi-diff` see it.
struct AbiFinding {
  Severity Level = Severity::Error;
  std::string Code;   // stable kind, e.g. "abi-param-size" (docs/abi-checks.md)
  std::string Detail; // "param 1: .b32 (4 bytes) in the declaration, .b64 (8 bytes) in the definition"
};

/// Compares two function signatures; A and B name the sides in Detail texts ("the declaration").
/// Returns the findings in a fixed order (counts, returns, params, attributes); empty if they agree. Each
/// side is read from its own variant: V.signature(F).
std::vector<AbiFinding> compareFunctionAbi(const FunctionSignature &A, const FunctionSignature &B, llvm::StringRef NameA,
                                           llvm::StringRef NameB, AbiRelation Relation);
/// Same for variable layouts.
std::vector<AbiFinding> compareVariableAbi(const VariableAbi &A, const VariableAbi &B, llvm::StringRef NameA,
                                           llvm::StringRef NameB);
/// Bytes a variable occupies (element x vector width x dimensions); 0 for an unsized `[]` declaration.
uint64_t variableSizeBytes(const VariableAbi &Variable);

/// PTX spelling of a signature, normalised (linkage from the symbol; no body): what diagnostics print.
std::string formatFunctionPtx(const ModuleVariant &Module, const FunctionAbi &Function);
std::string formatPrototypePtx(const PrototypeAbi &Prototype);
std::string formatVariablePtx(const ModuleVariant &Module, const VariableAbi &Variable);
// formatParamPtx (one parameter) is in ObjectFormat.h, shared with the printer and ptxlink-dump.

/// The signature records of a symbol, or null when the assembler recorded none.
const FunctionAbi *findFunctionAbi(const ModuleVariant &Module, uint32_t Symbol);
const VariableAbi *findVariableAbi(const ModuleVariant &Module, uint32_t Symbol);

/// Demangled form of an Itanium-mangled name, or "" when Name is not mangled (extern "C").
std::string demangleCxx(llvm::StringRef Name);

/// Where in Module a diagnostic points: its source file (else ObjectName), Where, and ObjectName as the
/// object it was read from. SiteLocation::str() spells it "a.ptx:4:1 (a.o)".
SiteLocation describeSite(const ModuleVariant &Module, llvm::StringRef ObjectName, SourceLoc Where);

} // namespace ptxlink
