// The linker's public entry points: the options of a link, `link()` as a library call, and `ptxlink` as a
// library call (so tests run the whole tool in-process).
//
// The problem: a CUDA program compiled with `nvcc -rdc=true -ptx` is many PTX modules; the driver wants one
// module (or one fatbinary with one module per GPU architecture). Linking them means resolving every
// symbol by the PTX linkage rules, picking one variant of each fat input per architecture, dropping dead
// code, merging DWARF, and printing the result. docs/linker.md describes the rules and passes.
#pragma once

#include "ptxlink/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// Fatbin: an NVIDIA fatbinary; Ptx: the linked module; Object: a relocatable ptxlink object (-r);
/// HostObject: the device-link object of a CUDA program (nvcc -dlink's output, docs/host-link.md);
/// CSource: C source embedding the fatbinary (fatbinary --embedded-fatbin's shape).
enum class EmitKind : uint8_t { Fatbin, Ptx, Object, HostObject, CSource };

/// One input on the command line, in order. Library-related flags are positional (like ld's).
struct LinkInput {
  enum Kind : uint8_t { File, Library /* -l name */ } What = File;
  std::string Path;           // the file, or the library name for -l
  bool WholeArchive = false;  // --whole-archive was in effect
};

struct LinkOptions {
  std::vector<std::string> Arches; // canonical "sm_90", "sm_90a", ...; at least one
  std::vector<LinkInput> Inputs;
  std::vector<std::string> LibraryPaths; // -L
  std::string Output;                    // -o
  EmitKind Emit = EmitKind::Fatbin;      // --emit fatbin|ptx|host-object|c, -r = Object, -dlink = HostObject
  bool Relocatable = false;              // -r
  bool Sass = false;                     // --sass: also compile a cubin per arch with ptxas
  bool NoGc = false;                     // --no-gc
  bool PrintGc = false;                  // --print-gc
  bool DumpCallgraph = false;            // --dump-callgraph
  bool CheckAbiOnly = false;             // --check-abi: run every check, write nothing
  bool Verify = false;                   // --verify: ptxas checks each linked module, errors at the inputs' lines
  std::string CallgraphDotFile;          // --callgraph-dot: the call graph as Graphviz
  std::optional<std::vector<std::string>> KernelsUsed;   // --kernels-used (substrings)
  std::optional<std::vector<std::string>> VariablesUsed; // --variables-used (substrings)
  std::vector<std::string> TraceSymbols; // --trace-symbol
  std::string MapFile;                   // --map
  std::string WhyExtractFile;            // --why-extract
  std::string TimeFile;                  // --time FILE: pass times appended as CSV ("-" = Out), as nvlink's
  std::vector<std::string> PtxasOptions; // -Xptxas: more options for every ptxas run (--sass, --verify)
  unsigned Threads = 0;                  // --threads (0 = hardware concurrency)
  bool WarningsAsErrors = false;         // -Werror
  bool NoWarnings = false;               // -w
  bool Json = false;                     // --json
  bool Verbose = false;                  // -v
  unsigned ErrorLimit = 20;              // --error-limit
  /// The caller exits right after link() returns: leave the inputs and the linked module allocated
  /// instead of freeing them piece by piece (the ptxlink tool; never a library user or a test).
  bool ExitWithoutFreeing = false;
};

/// Parses the command line (argv without the program name; @response files expanded by the caller or
/// here). Reports problems to Diags; returns std::nullopt on error. `Informational` is set to "help" or
/// "version" when the tool should only print that.
std::optional<LinkOptions> parseLinkOptions(llvm::ArrayRef<std::string> Args, DiagnosticEngine &Diags,
                                            std::string &Informational);

/// Runs a link. Diagnostics go to Diags; reports (--print-gc, --dump-callgraph, --trace-symbol, --time -)
/// go to Out. Returns true on success (the output was written atomically); on failure no output exists.
bool link(const LinkOptions &Options, DiagnosticEngine &Diags, llvm::raw_ostream &Out);

/// `ptxlink` as a library call: argv without the program name. Returns the exit status.
/// ProcessExitsAfter: the caller is main() and exits with the result (see LinkOptions::ExitWithoutFreeing).
int runLinkerTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err,
                  bool ProcessExitsAfter = false);

/// The help text of `ptxlink --help`.
void printLinkerHelp(llvm::raw_ostream &OS);

} // namespace ptxlink
