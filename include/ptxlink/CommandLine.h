// Command-line conventions shared by the four tools.
//
// The problem: each tool parses its own arguments (ptxlink and ptxlink-dump by hand, ptxlink-as with
// CLI11, ptxlink-ar in ar's style), yet users expect the same things from all of them: `@file` response
// files with GNU quoting (as gcc, ld and lld read them) and, for a mistyped option, a suggestion of the
// closest real one ("unknown option '--sas'; did you mean '--sass'?"). These helpers give every tool the
// same behaviour and the same wording.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ptxlink {

/// Replaces every `@file` argument by the arguments the file holds (GNU quoting; files may name more
/// `@file`s). An unreadable or self-including file is an Error naming it.
llvm::Expected<std::vector<std::string>> expandResponseFiles(llvm::ArrayRef<std::string> Args);

/// Splits the text of an options file (nvlink's -optf) into arguments, with the same GNU quoting.
std::vector<std::string> tokenizeOptionsText(llvm::StringRef Text);

/// The known option closest to Unknown by edit distance (dashes and any `=value` ignored), or "" when
/// none is near enough to be a plausible typo. Known spellings are given with their dashes.
std::string closestOption(llvm::StringRef Unknown, llvm::ArrayRef<llvm::StringRef> Known);

/// "unknown option '--sas'; did you mean '--sass'?" (or without the suggestion when none is close).
std::string unknownOptionMessage(llvm::StringRef Unknown, llvm::ArrayRef<llvm::StringRef> Known);

} // namespace ptxlink
