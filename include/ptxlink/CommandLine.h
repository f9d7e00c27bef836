// Command-line conventions shared by the four tools.
//
// The problem: four tools, yet users expect the same things from all of them: `@file` response files
// with GNU quoting (as gcc, ld and lld read them) and, for a mistyped option, a suggestion of the
// closest real one ("unknown option '--sas'; did you mean '--sass'?"). These helpers give every tool the
// same behaviour and the same wording.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// Replaces every `@file` argument by the arguments the file holds (GNU quoting; files may name more
/// `@file`s). An unreadable or self-including file is an Error naming it.
llvm::Expected<std::vector<std::string>> expandResponseFiles(llvm::ArrayRef<std::string> Args);

/// The end of a tool's main(): flushes standard output and, if it could not be written (a full disk, a
/// closed pipe with SIGPIPE ignored), says so as `TOOL: error: cannot write to standard output: REASON`
/// on standard error and returns 1; else returns Status. Without it LLVM ends the process with "LLVM
/// ERROR: IO failure on output stream", which names no tool.
int finishStandardOutput(llvm::StringRef Tool, int Status);

/// Parses a size such as "500M", "2G", "1048576" (K, M, G: binary multiples), as the tools' size
/// options take it (--max-decompressed, --cache-size); std::nullopt if malformed.
std::optional<uint64_t> parseByteSize(llvm::StringRef Text);

/// Splits the text of an options file (nvlink's -optf) into arguments, with the same GNU quoting.
std::vector<std::string> tokenizeOptionsText(llvm::StringRef Text);

/// The known option closest to Unknown by edit distance (dashes and any `=value` ignored), or "" when
/// none is near enough to be a plausible typo. Known spellings are given with their dashes.
std::string closestOption(llvm::StringRef Unknown, llvm::ArrayRef<llvm::StringRef> Known);

/// "unknown option '--sas'; did you mean '--sass'?" (or without the suggestion when none is close).
std::string unknownOptionMessage(llvm::StringRef Unknown, llvm::ArrayRef<llvm::StringRef> Known);

} // namespace ptxlink

// ---- One option parser for every tool ------------------------------------------------------------------
//
// Each tool describes its options once, in a TableGen file (tools/<tool>/Options.td, turned into an
// llvm::opt::OptTable at build time, as lld and the llvm-* tools do). The same table parses the command
// line, prints --help and prints the man page (--help-man, which the build runs to make share/man/man1),
// so a documented option cannot be missing from either.

namespace llvm::opt {
class OptTable;
class InputArgList;
class OptSpecifier;
} // namespace llvm::opt

namespace ptxlink {

/// What a tool says about itself beyond its options; --help and the man page print the same words.
struct ToolDescription {
  llvm::StringRef Name;     ///< "ptxlink-ar"
  llvm::StringRef Overview; ///< one line: what the tool is for
  llvm::StringRef Usage;    ///< the synopsis, without the tool's name
  llvm::StringRef Details;  ///< preformatted text printed after the options (operations, notes); may be ""
};

/// Every spelling of every option the table accepts, with its dashes (for closestOption).
std::vector<std::string> optionSpellings(const llvm::opt::OptTable &Table);

/// Parses Argv (response files already expanded; the strings must outlive the result) against Table.
/// An unknown option is an Error "unknown option 'X'; did you mean 'Y'? (see TOOL --help)"; an option
/// whose value is missing is an Error "option 'X' needs a value".
llvm::Expected<llvm::opt::InputArgList> parseToolArguments(const llvm::opt::OptTable &Table,
                                                           const ToolDescription &Tool,
                                                           llvm::ArrayRef<const char *> Argv);

/// "unknown option 'X'[; did you mean 'Y'?] (see TOOL --help)", the suggestion taken from Table.
std::string unknownOptionMessage(const llvm::opt::OptTable &Table, const ToolDescription &Tool,
                                 llvm::StringRef Unknown);

/// --help: OVERVIEW, USAGE, the options by group, then the tool's Details.
void printToolHelp(const llvm::opt::OptTable &Table, const ToolDescription &Tool, llvm::raw_ostream &OS);

/// The man page (roff, section 1) from the same table and description: NAME, SYNOPSIS, DESCRIPTION
/// (the Details), OPTIONS (each option with its aliases and value), SEE ALSO.
void printManPage(const llvm::opt::OptTable &Table, const ToolDescription &Tool, llvm::raw_ostream &OS);

/// The options every tool answers and then exits: --help (HelpID), --help-man (HelpManID) and --version
/// (VersionID, which prints VersionLine). Returns the exit status when one of them was given, so that
/// a tool writes `if (auto RC = answerInformationalOptions(...)) return *RC;`.
std::optional<int> answerInformationalOptions(const llvm::opt::OptTable &Table, const ToolDescription &Tool,
                                              const llvm::opt::InputArgList &Args, llvm::opt::OptSpecifier HelpID,
                                              llvm::opt::OptSpecifier HelpManID, llvm::opt::OptSpecifier VersionID,
                                              const llvm::Twine &VersionLine, llvm::raw_ostream &OS);

} // namespace ptxlink
