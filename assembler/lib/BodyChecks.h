// Cheap checks of function bodies that catch, at assembly time, what ptxas (and so the driver, at load
// time on the user's machine) would reject, without an instruction grammar.
//
// The problem: ptxlink-as reads instruction bodies only for the names the linker must rewrite
// (BodyScanner), so a body with `bra $L_missing` or `mov.u32 %r9, 1` under `.reg .b32 %r<5>` assembled and
// linked cleanly and failed only when the driver JIT-compiled it. Three things can be decided from the
// statement structure alone: a branch target that is no label of the function, a register used but
// declared nowhere in the function (nor a parameter, special register or module-scope name), and a
// register past the range of its parameterized declaration. Anything less certain is left to ptxas
// (`ptxlink --verify`): these checks must never reject what ptxas accepts.
#pragma once

#include "PtxParser.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace ptxlink {

/// Checks F's body (F must have one) in Text; reports each problem once per name, at its first use.
/// Abi: F's signature (its parameters are names the body may use). IsModuleName(N): N is a module-scope
/// symbol (which a body may name like a register: `%g`).
void checkFunctionBody(llvm::StringRef Text, const PtxFunction &F, const FunctionSignature &Abi,
                       llvm::function_ref<bool(llvm::StringRef)> IsModuleName, SourceDiags &Diags);

} // namespace ptxlink
