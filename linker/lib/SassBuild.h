// Building the SASS (cubin) image of each architecture for `ptxlink --sass`.
//
// The problem: the linked program must also carry machine code, which only NVIDIA's ptxas can generate.
// Generating it for the whole program on every link costs the whole program's compile time each time, so
// by default each input's share of the linked module (a CodegenUnit, see LinkContext.h) is compiled on its
// own with `ptxas -c`, in parallel, through a content-addressed cache (CompileCache.h), and the
// relocatable cubins are joined by nvlink from the same toolkit. `--whole-program` keeps the single
// ptxas run over the linked module, which lets ptxas optimise across the former module boundaries.
// ptxas reports problems in the temporary file it was given; they are mapped back to the input's
// file:line:col through where the printer put each section (PtxasMessages.h).
#pragma once

#include "ptxlink/Diagnostics.h"
#include "LinkContext.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/Executor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxlink {

/// NVIDIA's tools found for --sass: ptxas (findPtxas: PATH, else $CUDA_HOME/bin), nvlink beside it (the same
/// toolkit: nvlink rejects cubins from a newer ptxas), the folder of libcudadevrt.a (the -L folders first,
/// then the toolkit's library folder, found from ptxas, $CUDA_HOME, $CUDA_PATH or /usr/local/cuda).
struct SassToolchain {
  std::string Ptxas, Nvlink, LibDir;
  std::string Version; // `ptxas --version` output: part of every cache key
  // `nvlink --version` output (empty without nvlink): part of the key of nvlink's cached result. The path
  // alone does not say which nvlink runs: a wrapper script (`exec /usr/local/cuda-13.0/bin/nvlink "$@"`)
  // or an nvlink replaced in place keeps it.
  std::string NvlinkVersion;
};
llvm::Expected<SassToolchain> findSassToolchain(llvm::ArrayRef<std::string> LibraryPaths);

/// True for the names that the CUDA device runtime (libcudadevrt.a) defines: dynamic parallelism
/// (`__cudaCDP2*`, `cudaGetParameterBuffer*`, `cudaLaunchDevice*`, ...). With --sass they are linked from
/// the toolkit's library by nvlink.
bool isDeviceRuntimeName(llvm::StringRef Name);
/// The runtime API name a user wrote for a device-runtime symbol (`__cudaCDP2Malloc` -> `cudaMalloc`).
std::string deviceRuntimeApiName(llvm::StringRef Name);
/// The device-runtime functions the inputs call, as their users write them ("cudaMalloc, cudaFree"), or
/// empty if none: nvcc's PTX names device-side cudaMalloc `__cudaCDP2Malloc`.
std::string deviceRuntimeCalled(llvm::ArrayRef<InputFile> Inputs);
/// The folder holding libcudadevrt.a, looked for where nvcc and nvlink would: the -L folders first, then the
/// toolkit whose ToolkitDir (ptxas's bin/, libnvJitLink's lib64/) is given, $CUDA_HOME, $CUDA_PATH and
/// /usr/local/cuda; empty if none holds it.
std::string findDeviceRuntimeDir(llvm::ArrayRef<std::string> LibraryPaths, llvm::StringRef ToolkitDir);
/// True for the device-runtime functions that launch kernels from a kernel (dynamic parallelism proper),
/// as opposed to the rest of the device-side runtime API (cudaMalloc, cudaFree, cudaGetDevice...).
bool isDeviceRuntimeLaunch(llvm::StringRef Name);

/// One architecture's cubin to build: either from per-module units, or from the whole linked module.
struct SassRequest {
  std::string Arch;                            // "sm_90a"
  TargetInfo Target;                           // the header every printed module gets
  const std::vector<CodegenUnit> *Units = nullptr; // per-module; null = whole program
  const ModuleVariant *Whole = nullptr;        // the linked module (always set)
  /// Whole program: the printed module and where the printer put its sections.
  llvm::StringRef WholeText;
  const PrintedLayout *WholeLayout = nullptr;
  bool DeviceRuntime = false; // link libcudadevrt.a
  /// Where the cubin goes into a device-link object: receives the module ids of the library members nvlink
  /// linked besides the request's own cubins (libcudadevrt's `cuda_device_runtime.cu`), which the object
  /// must register as nvcc -dlink's does (their host code calls `__cudaRegisterLinkedBinary<id>`). Null:
  /// not asked.
  std::vector<std::string> *LibraryModuleIds = nullptr;
};

struct SassSettings {
  std::string CacheDir;        // empty: no cache
  uint64_t CacheLimit = 0;
  bool SaveTemps = false;
  bool Progress = false;       // one-line progress display on stderr
  bool Verbose = false;
  std::vector<std::string> PtxasOptions; // -Xptxas: given to every ptxas run, part of every cache key
  std::string RemoteUrl;       // --remote-cache / $PTXLINK_REMOTE_CACHE: empty for none (RemoteCache.h)
  std::string RemoteHeader;    // $PTXLINK_REMOTE_CACHE_HEADER: one header line, never printed
  std::string WriteUnits;      // --write-sass-units: write the units to compile there and compile nothing
  std::string UseUnits;        // --use-sass-units: take <key>.cubin from there where it is
  std::vector<std::string> NvlinkOptions; // -Xnvlink: given to every nvlink run, part of its cache key
  std::string KeepDir;         // -keep-dir: the folder the temporary folder is made in (default $TMPDIR)
  bool ResourceUsage = false;  // --resource-usage: ptxas -v, its per-kernel lines shown
  Executor *Exec = nullptr;    // the process's pool: every ptxas and nvlink run goes through it (required)
};

/// What buildSass leaves to do once the cubins are known, none of which changes the output (storing
/// nvlink's results in the cache, pruning it, removing the temporary files): it runs beside the caller's
/// writing of the output, as a task of the pool (with --threads 1, when finish() waits for it). finish()
/// waits for it and writes its notes (-v) to Log, and those said always to Err; the destructor waits too.
class SassBackground {
public:
  SassBackground(Executor &Exec, llvm::raw_ostream &Err) : Exec(Exec), Err(Err) {}
  SassBackground(const SassBackground &) = delete;
  SassBackground &operator=(const SassBackground &) = delete;
  ~SassBackground() { finish(nullptr); }
  void start(std::function<void(std::vector<std::string> &Notes)> Work);
  void finish(llvm::raw_ostream *Log);
  /// From the work: a note written on standard error even without -v (a remote cache that stopped
  /// answering while entries were written back).
  void sayAlways(std::string Note) { Always.push_back(std::move(Note)); }

private:
  Executor &Exec;
  llvm::raw_ostream &Err;
  Executor::Task Worker;
  std::vector<std::string> Notes, Always;
};

/// Builds one cubin per request, in order (std::nullopt where it failed; the reasons are reported to
/// Diags). Notes (cache statistics with -v, kept temporaries) go to Log.
std::vector<std::optional<std::string>> buildSass(llvm::ArrayRef<SassRequest> Requests, const SassSettings &Settings,
                                                  const SassToolchain &Tools, DiagnosticEngine &Diags,
                                                  PassTimes &Times, llvm::raw_ostream &Log, SassBackground &Background);

} // namespace ptxlink
