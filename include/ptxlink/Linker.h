// The linker's public entry points: the options of a link, `link()` as a library call, and `ptxlink` as a
// library call (so tests run the whole tool in-process).
//
// The problem: a CUDA program compiled with `nvcc -rdc=true -ptx` is many PTX modules; the driver wants one
// module (or one fatbinary with one module per GPU architecture). Linking them means resolving every
// symbol by the PTX linkage rules, picking one variant of each fat input per architecture, dropping dead
// code, merging DWARF, and printing the result. docs/linker.md describes the rules and passes.
#pragma once

#include "ptxlink/Diagnostics.h"
#include "ptxlink/Fatbin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

class Executor;

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
  bool WholeProgram = false;             // --whole-program: one ptxas run over the linked module
  bool RecompileSass = false;            // --recompile-sass: never use the SASS the inputs carry
  std::string RemoteCache;               // --remote-cache URL (else $PTXLINK_REMOTE_CACHE; RemoteCache.h)
  std::string WriteSassUnits;            // --write-sass-units DIR: write the units ptxas would compile, stop
  std::string UseSassUnits;              // --use-sass-units DIR: compiled units as DIR/<key>.cubin
  bool NoCache = false;                  // --no-cache
  std::string CacheDir;                  // --cache-dir (default: $XDG_CACHE_HOME/ptxlink, ~/.cache/ptxlink)
  uint64_t CacheLimit = 0;               // --cache-limit (0 = CompileCache::DefaultLimitBytes)
  std::optional<uint64_t> MaxDecompressed; // --max-decompressed (default: DecompressionBudget's 100 MB + 2x input)
  /// --release-input-text-after: the objects read before their text is given back until printing
  /// (InputTextPages.h in the linker).
  uint64_t ReleaseInputTextAfter = uint64_t(64) << 20;
  bool SaveTemps = false;                // --save-temps: keep what ptxas and nvlink were given
  bool DeviceRuntime = false;            // -lcudadevrt: link the CUDA device runtime (with --sass)
  bool Dlto = false;                     // -dlto: SASS from libnvJitLink's link-time optimisation
  bool LtoPtx = false;                   // --lto-ptx: with -dlto, also the optimised PTX
  std::string NvJitLinkPath;             // --nvjitlink: the library to load (default: found like ptxas)
  FatbinCompression Compression = FatbinCompression::None; // --compress, for the fatbinary's images
  int CompressionLevel = 0;              // --compress zstd:N (0 = the scheme's default)
  bool CompressionGiven = false;
  uint64_t BatchBelow = 16 * 1024;       // --sass-batch-below: inputs with less code are batched (0 = never)
  bool Progress = true;                  // --no-progress turns the terminal progress line off
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
  unsigned Threads = 0;                  // --threads, -j (0 = hardware concurrency)
  /// The process's pool of threads (Executor.h), which every parallel step of the link and every ptxas
  /// and nvlink run goes through; the caller's, so that one --threads bounds all its links. Null: the
  /// link makes one of Threads threads for itself.
  Executor *Exec = nullptr;
  bool WarningsAsErrors = false;         // -Werror
  bool NoWarnings = false;               // -w
  bool Json = false;                     // --json
  bool Verbose = false;                  // -v
  unsigned ErrorLimit = 20;              // --error-limit
  /// The caller exits right after link() returns: leave the inputs and the linked module allocated
  /// instead of freeing them piece by piece (the ptxlink tool; never a library user or a test).
  bool ExitWithoutFreeing = false;

  // nvcc -dlink's command line (LinkOptions.td, "NVCC -DLINK COMPATIBILITY").
  /// -arch=all / all-major: link for every architecture (every major one) the inputs carry PTX for.
  enum ArchSet : uint8_t { ListedArches, AllArches, AllMajorArches } ArchesFromInputs = ListedArches;
  std::vector<std::string> NvlinkOptions;       // -Xnvlink: more options for nvlink (--sass)
  /// The architectures -gencode/-code asked SASS for (code=sm_XX); empty: every linked one (--sass).
  std::vector<std::string> SassArches;
  /// With -gencode/-code (CodesGiven), the architectures whose PTX image code= asked for (compute_XX):
  /// the fatbinary holds a PTX image for these alone, as nvcc's. Without, every linked arch has one.
  std::vector<std::string> PtxArches;
  bool CodesGiven = false;
  std::string KeepDir;                          // -keep-dir: where --save-temps keeps its folder
  bool ResourceUsage = false;                   // --resource-usage: ptxas -v, shown
  bool DryRun = false;                          // --dryrun: checks and the commands that would run, no output
  std::vector<std::string> IgnoredNvccOptions;  // nvcc's compile-only options, named under -v
};

/// Parses the command line (argv without the program name; @response files expanded by the caller or
/// here). Reports problems to Diags; returns std::nullopt on error. `Informational` is set to "help" or
/// "version" when the tool should only print that.
std::optional<LinkOptions> parseLinkOptions(llvm::ArrayRef<std::string> Args, DiagnosticEngine &Diags,
                                            std::string &Informational);

/// A module-local kernel or variable that the link renamed (`name$N`) because an earlier module, or a
/// visible symbol, already has its name. nvcc writes file-`static` and anonymous-namespace kernels and
/// `static __device__` variables as such locals (`__nv_static_<id>_...`), and the host code of the module
/// that defines one registers it by its original name: whoever writes that registration (the device-link
/// host object) must use `Linked` for that module, or refuse. docs/linker.md, "Renamed module-local
/// kernels and variables".
struct LocalRename {
  std::string Arch;      // the arch whose linked module has the new name ("sm_90")
  uint32_t Input = 0;    // index of the input in link order: command-line inputs, then extracted members
  std::string InputName; // its display name: "b.ptx", "libm.a(x.o)"
  bool IsKernel = false; // else a variable (.global or .const, the ones a host can register)
  std::string Original;  // the name in the input module
  std::string Linked;    // the name in the linked module
};

/// What a successful link tells its caller beyond the output file.
struct LinkResult {
  /// Every renamed module-local kernel and variable, per arch in -arch order, then in input order.
  std::vector<LocalRename> Renamed;
};

/// Runs a link. Diagnostics go to Diags; reports (--print-gc, --dump-callgraph, --trace-symbol, --time -)
/// go to Out. Returns true on success (the output was written atomically); on failure no output exists.
/// With Result, what the link renamed is recorded there (complete only when the link succeeds).
bool link(const LinkOptions &Options, DiagnosticEngine &Diags, llvm::raw_ostream &Out, LinkResult *Result = nullptr);
/// The same with the options moved in: no copy of the input list.
bool link(LinkOptions &&Options, DiagnosticEngine &Diags, llvm::raw_ostream &Out, LinkResult *Result = nullptr);

/// `ptxlink` as a library call: argv without the program name. Returns the exit status.
/// ProcessExitsAfter: the caller is main() and exits with the result (see LinkOptions::ExitWithoutFreeing).
int runLinkerTool(llvm::ArrayRef<std::string> Args, llvm::raw_ostream &Out, llvm::raw_ostream &Err,
                  bool ProcessExitsAfter = false);

/// The help text of `ptxlink --help`.
void printLinkerHelp(llvm::raw_ostream &OS);

} // namespace ptxlink
