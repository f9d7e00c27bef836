// Command-line conventions shared by the four tools.
//
// The problem: four tools, yet users expect the same things from all of them: `@file` response files
// with GNU quoting (as gcc, ld and lld read them) and, for a mistyped option, a suggestion of the
// closest real one ("unknown option '--sas'; did you mean '--sass'?"). These helpers give every tool the
// same behaviour and the same wording.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// A command line with its response files expanded. Every argument's text lives in one arena and the
/// list is of pointers into it: about 11 bytes per argument of a response file ("-w" and its newline
/// take 3 in the file), where a std::string each took 32 more and every tool then copied the list again.
class ExpandedArguments {
public:
  ExpandedArguments();
  ~ExpandedArguments();
  ExpandedArguments(ExpandedArguments &&);
  ExpandedArguments &operator=(ExpandedArguments &&);

  /// The arguments, NUL-terminated; they live as long as this object.
  llvm::ArrayRef<const char *> argv() const { return Argv; }
  size_t size() const { return Argv.size(); }
  llvm::StringRef operator[](size_t I) const { return Argv[I]; }
  /// Replaces the list (by a shorter one of the same strings: collapseRepeatedFlags' result).
  void assign(llvm::ArrayRef<const char *> NewArgv) { Argv.assign(NewArgv.begin(), NewArgv.end()); }

private:
  friend llvm::Expected<ExpandedArguments> expandResponseFiles(llvm::ArrayRef<std::string> Args);
  std::unique_ptr<llvm::BumpPtrAllocator> Arena; // owns the texts; moved with the list
  llvm::SmallVector<const char *, 0> Argv;
};

/// Replaces every `@file` argument by the arguments the file holds (GNU quoting; files may name more
/// `@file`s). An unreadable or self-including file is an Error naming it.
llvm::Expected<ExpandedArguments> expandResponseFiles(llvm::ArrayRef<std::string> Args);

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

/// Argv with each flag (an option that takes no value) kept only where it last occurs in a run of flags
/// (arguments with no input or option value between them): `-w -v -w -v` is `-w -v`. Within such a run a
/// flag given again changes nothing - each tool reads a flag as set, or its last spelling among its
/// negations (kept in the same order), or as positional (--whole-archive governs the inputs after the
/// run), and none counts them - but each occurrence would cost an llvm::opt::Arg (about 120 bytes with
/// the parser's lists): a response file of 3 million `-w` took 450 MB in every tool. Arguments are read as
/// Table parses them, so a repeat that is another option's value (`-o -w -w`: the first names the output)
/// is kept; empty arguments (the parser skips them) are dropped, and everything from a `--` on is kept as
/// given. Returns the arguments to parse.
std::vector<const char *> collapseRepeatedFlags(const llvm::opt::OptTable &Table,
                                                llvm::ArrayRef<const char *> Argv);

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
