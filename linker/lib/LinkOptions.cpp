// The ptxlink command line.
//
// The problem: users come from nvlink (`-arch=sm_90`, `-kernels-used=a,b`, single-dash long options) and
// from binutils (`-o out`, `-L dir -lfoo`, `--whole-archive`, `@rsp`). Both spellings are accepted:
// every long option may be written with one or two dashes, with its value after `=` or as the next
// argument. Library flags are positional, like ld's. nvlink's spellings that Makefiles pass (-optf,
// -m64, -g, --warning-as-error, -Xptxas, --gpu-architecture, --time FILE) mean what they mean there.
// All of that is one option table (LinkOptions.td, an llvm::opt::OptTable), which also prints --help and
// the man page.
#include "ptxlink/CommandLine.h"
#include "CompileCache.h"
#include "LinkContext.h"
#include "ptxlink/Linker.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace ptxlink {

namespace {

// The option table: LinkOptions.td, turned into LinkOptions.inc by llvm-tblgen.
#define PTXLINK_OPTION_TABLE "LinkOptions.inc"
#include "ptxlink/OptionTableDefinitions.inc"

class LinkOptTable : public GenericOptTable {
public:
  LinkOptTable() : GenericOptTable(ToolOptionInfos) {}
};

constexpr ToolDescription LinkDescription = {
    "ptxlink", "link PTX-level device code", "-arch sm_XX[,sm_YY...] [options] inputs... -o output",
    R"(Links PTX-level device code (ptxlink objects, .ptx files, static libraries, nvcc -rdc=true -c / -dc
host objects, nvcc -lib archives) into one NVIDIA fatbinary (one PTX image per architecture, and a
cubin per architecture with --sass), one PTX module, one relocatable object or a CUDA program's
device-link object.

Every long option may be written with one or two dashes (nvlink's -arch, binutils' --arch), its value
after '=' or as the next argument; -o, -L, -l and -j also glue it (-ofile, -Ldir, -lname, -j4). Library
options are positional, as ld's: --whole-archive applies to the libraries after it.)"};

void splitList(StringRef Value, std::vector<std::string> &Out) {
  SmallVector<StringRef, 4> Parts;
  Value.split(Parts, ',', -1, false);
  for (StringRef P : Parts)
    Out.push_back(P.trim().str());
}

/// Adds one architecture (sm_XX, compute_XX...) to O.Arches, once.
bool addArch(LinkOptions &O, StringRef Name, DiagnosticEngine &Diags) {
  auto Spec = parseArch(Name);
  if (!Spec) {
    Diags.error("unknown architecture '" + Name + "' (expected sm_XX, sm_XXa, sm_XXXf or compute_XX)",
                std::vector<DiagSite>(), "bad-arch");
    return false;
  }
  std::string Canon = Spec->name();
  if (!is_contained(O.Arches, Canon))
    O.Arches.push_back(Canon);
  return true;
}

/// One image of nvcc's code= list (or -code): compute_XX links PTX for sm_XX; sm_XX also asks for SASS, as
/// nvcc -dlink makes it; lto_XX is LTO-IR for sm_XX.
bool addCode(LinkOptions &O, StringRef Code, StringRef Spelling, DiagnosticEngine &Diags) {
  Code = Code.trim();
  O.CodesGiven = true;
  if (Code.consume_front("sm_")) {
    O.Sass = true;
    if (!addArch(O, ("sm_" + Code).str(), Diags))
      return false;
    if (auto Spec = parseArch(("sm_" + Code).str()); Spec && !is_contained(O.SassArches, Spec->name()))
      O.SassArches.push_back(Spec->name());
    return true;
  }
  if (Code.consume_front("compute_")) {
    if (!addArch(O, ("sm_" + Code).str(), Diags))
      return false;
    if (auto Spec = parseArch(("sm_" + Code).str()); Spec && !is_contained(O.PtxArches, Spec->name()))
      O.PtxArches.push_back(Spec->name());
    return true;
  }
  if (Code.consume_front("lto_")) { // nvcc -dlink with an lto_XX code: a link-time optimised link
    O.Dlto = true;
    return addArch(O, ("sm_" + Code).str(), Diags);
  }
  Diags.error("unknown code '" + Code + "' in " + Spelling + " (expected sm_XX, compute_XX or lto_XX)",
              std::vector<DiagSite>(), "bad-arch");
  return false;
}

/// nvcc's -gencode arch=compute_XX,code=[sm_XX,compute_XX] (also code=sm_XX, code="sm_XX,compute_XX").
bool addGencode(LinkOptions &O, StringRef Spec, DiagnosticEngine &Diags) {
  std::string Clean = Spec.str();
  llvm::erase_if(Clean, [](char C) { return C == '"' || C == '\'' || C == '[' || C == ']'; });
  StringRef Rest(Clean);
  size_t CodeAt = Rest.find("code=");
  if (!Rest.starts_with("arch=") || CodeAt == StringRef::npos) {
    Diags.error("-gencode needs arch=compute_XX,code=<sm_XX|compute_XX,...>, got '" + Spec + "'",
                std::vector<DiagSite>(), "bad-arch");
    return false;
  }
  bool Ok = true;
  std::vector<std::string> Codes;
  splitList(Rest.substr(CodeAt + 5), Codes);
  for (const std::string &Code : Codes)
    Ok &= addCode(O, Code, "-gencode " + Spec.str(), Diags);
  return Ok;
}

/// nvcc's -arch=native: the architectures of this machine's GPUs, as nvidia-smi reports them.
bool addNativeArches(LinkOptions &O, DiagnosticEngine &Diags) {
  auto Smi = sys::findProgramByName("nvidia-smi");
  std::string Why = "nvidia-smi is not on PATH";
  if (Smi) {
    SmallString<128> Capture;
    if (std::error_code EC = sys::fs::createTemporaryFile("ptxlink-native", "txt", Capture)) {
      Why = "cannot make a temporary file: " + EC.message();
    } else {
      std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Capture), StringRef("")};
      int RC = sys::ExecuteAndWait(*Smi, {*Smi, "--query-gpu=compute_cap", "--format=csv,noheader"}, std::nullopt,
                                   Redirects, /*SecondsToWait=*/20);
      auto Text = MemoryBuffer::getFile(Capture);
      sys::fs::remove(Capture);
      bool Any = false;
      if (RC == 0 && Text) {
        SmallVector<StringRef, 4> Lines;
        (*Text)->getBuffer().split(Lines, '\n', -1, false);
        for (StringRef Line : Lines) {
          auto [Major, Minor] = Line.trim().split('.');
          if (Major.empty() || Minor.empty())
            continue;
          Any |= addArch(O, ("sm_" + Major + Minor).str(), Diags);
        }
      }
      if (Any) {
        O.Sass = true; // nvcc -arch=native makes SASS for the GPU found
        return true;
      }
      Why = "nvidia-smi found no GPU (exit " + std::to_string(RC) + ")";
    }
  }
  Diags.error("-arch=native links for this machine's GPUs, but " + Why + "; name the architecture (-arch sm_XX)",
              std::vector<DiagSite>(), "bad-arch");
  return false;
}

/// nvlink reads options files recursively; a file that names itself must not hang the link.
constexpr unsigned MaxOptionsFiles = 64;

/// What parseLinkOptions builds while it reads the arguments in order.
struct OptionState {
  DiagnosticEngine &Diags;
  LinkOptions O;
  bool Ok = true;
  bool WholeArchive = false; // --whole-archive in force (positional)
  bool SassForAll = false;   // --sass (or -arch=all|native): SASS for every arch, whatever -gencode said
  std::string EmitValue;     // the last --emit (or -dlink, --emit-ptx)
  bool NvccFatbin = false;   // nvcc's -fatbin: with -dlink, a fatbinary file
};

/// Architectures, what nvlink and nvcc -dlink accept about the machine and the tools (-arch, -gencode,
/// -code, -m64, -Xptxas, -Xnvlink, -keep, -t, --dryrun, ...).
/// False if ID is not one of them.
bool applyTargetOption(unsigned ID, StringRef Value, StringRef Spelling, OptionState &S) {
  switch (ID) {
  case OPT_m64:
    // 64-bit device code is all there is (PTX .address_size 32 is gone since CUDA 12): nothing to do.
    break;
  case OPT_machine:
    if (Value == "64")
      break;
    [[fallthrough]];
  case OPT_m32:
    S.Diags.error("ptxlink links 64-bit device code only: " + Spelling + " is not supported (use -m64 or nothing)",
                  std::vector<DiagSite>(), "bad-option");
    S.Ok = false;
    break;
  case OPT_debug:
    // nvlink's "this was a debug compile". Here debug information follows the inputs: their DWARF is
    // always merged, and ptxas (--sass) gets -g for modules with .target debug. Nothing to switch on.
    break;
  case OPT_Xptxas:
    splitList(Value, S.O.PtxasOptions);
    break;
  case OPT_arch: {
    std::vector<std::string> List;
    splitList(Value, List);
    for (const std::string &Name : List) {
      if (Name == "native") { // nvcc: the GPUs of this machine
        S.Ok &= addNativeArches(S.O, S.Diags);
        S.SassForAll = true;
        continue;
      }
      if (Name == "all" || Name == "all-major") { // nvcc: every architecture; here every one the inputs have
        S.O.ArchesFromInputs = Name == "all" ? LinkOptions::AllArches : LinkOptions::AllMajorArches;
        S.O.Sass = true;
        S.SassForAll = true;
        continue;
      }
      S.Ok &= addArch(S.O, Name, S.Diags);
    }
    break;
  }
  case OPT_gencode:
    S.Ok &= addGencode(S.O, Value, S.Diags);
    break;
  case OPT_nvcc_code: {
    // nvcc's -code beside -arch=compute_XX: the images to make; an sm_XX one means SASS.
    std::vector<std::string> List;
    splitList(Value, List);
    for (const std::string &Code : List)
      S.Ok &= addCode(S.O, Code, Spelling, S.Diags);
    break;
  }
  case OPT_device_debug:
    // nvcc -dlink -G: debug information follows the inputs (see OPT_debug).
    break;
  case OPT_keep:
    S.O.SaveTemps = true;
    break;
  case OPT_keep_dir:
    S.O.SaveTemps = true;
    S.O.KeepDir = Value.str();
    break;
  case OPT_Xnvlink:
    splitList(Value, S.O.NvlinkOptions);
    break;
  case OPT_maxrregcount:
    S.O.PtxasOptions.push_back("--maxrregcount=" + Value.str());
    break;
  case OPT_resource_usage:
    S.O.ResourceUsage = true;
    break;
  case OPT_t:
    if (Value.getAsInteger(10, S.O.Threads)) {
      S.Diags.error("-t needs a number of threads, got '" + Value + "'", std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
    }
    break;
  case OPT_dryrun:
    S.O.DryRun = true;
    break;
  case OPT_nvcc_Werror_eq: {
    // nvcc gives nvlink --warning-as-error for all-warnings only; the other kinds are its front end's.
    SmallVector<StringRef, 4> Kinds;
    Value.split(Kinds, ',');
    if (is_contained(Kinds, "all-warnings"))
      S.O.WarningsAsErrors = true;
    else
      S.O.IgnoredNvccOptions.push_back(("-Werror=" + Value).str());
    break;
  }
  case OPT_nvcc_fatbin:
    S.NvccFatbin = true;
    break;
  case OPT_nvcc_cubin:
    S.Diags.error("-cubin: ptxlink does not write a bare cubin; -fatbin writes the linked program as a fatbinary "
                  "(with -arch=sm_XX or code=sm_XX, its SASS), which cuModuleLoad and cuModuleLoadData take too",
                  std::vector<DiagSite>(), "bad-option");
    S.Ok = false;
    break;
  case OPT_no_compress:
    S.O.CompressionGiven = true;
    S.O.Compression = FatbinCompression::None;
    break;
  case OPT_compress_mode: {
    // fatbinary's modes (docs/nvidia-formats.md: speed is a raw LZ4 block, the others zstd frames).
    std::optional<std::string> Setting = StringSwitch<std::optional<std::string>>(Value)
                                              .Case("none", "none")
                                              .Case("speed", "lz4")
                                              .Cases("default", "balance", "zstd")
                                              .Case("size", "zstd:19")
                                              .Default(std::nullopt);
    auto Parsed = Setting ? parseFatbinCompression(*Setting)
                          : Expected<FatbinCompressionSetting>(createStringError(
                                inconvertibleErrorCode(),
                                "--compress-mode must be default, size, speed, balance or none, got '" + Value + "'"));
    if (!Parsed) {
      S.Diags.error(toString(Parsed.takeError()), std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
      break;
    }
    S.O.CompressionGiven = true;
    S.O.Compression = Parsed->Scheme;
    S.O.CompressionLevel = Parsed->Level;
    break;
  }
  default:
    return false;
  }
  return true;
}

/// Inputs, libraries and what is written (-o, -L, -l, --whole-archive, --emit, -dlink, -r).
/// False if ID is not one of them.
bool applyInputOutputOption(unsigned ID, StringRef Value, StringRef Spelling, OptionState &S) {
  switch (ID) {
  case OPT_o:
    S.O.Output = Value.str();
    break;
  case OPT_L:
    splitList(Value, S.O.LibraryPaths);
    break;
  case OPT_l: {
    std::vector<std::string> List;
    splitList(Value, List);
    for (const std::string &L : List) {
      if (L == "cudadevrt") { // NVIDIA's device runtime is a cubin library: nvlink links it (--sass)
        S.O.DeviceRuntime = true;
        continue;
      }
      S.O.Inputs.push_back({LinkInput::Library, L, S.WholeArchive});
    }
    break;
  }
  case OPT_whole_archive:
    S.WholeArchive = true;
    break;
  case OPT_no_whole_archive:
    S.WholeArchive = false;
    break;
  case OPT_emit:
    S.EmitValue = Value.str();
    break;
  case OPT_emit_ptx:
    S.EmitValue = "ptx";
    break;
  case OPT_dlink:
    S.EmitValue = "host-object";
    break;
  case OPT_relocatable:
    S.O.Relocatable = true;
    break;
  default:
    return false;
  }
  return true;
}

/// SASS, LTO and the compile cache (--sass, -dlto, --remote-cache, --cache-*, --compress, ...).
/// False if ID is not one of them.
bool applyCodegenOption(unsigned ID, StringRef Value, StringRef Spelling, OptionState &S) {
  switch (ID) {
  case OPT_sass:
    S.O.Sass = true;
    S.SassForAll = true;
    break;
  case OPT_dlto:
    S.O.Dlto = true;
    break;
  case OPT_lto_ptx:
    S.O.LtoPtx = true;
    break;
  case OPT_nvjitlink:
    S.O.NvJitLinkPath = Value.str();
    break;
  case OPT_whole_program:
    S.O.WholeProgram = true;
    break;
  case OPT_recompile_sass:
    S.O.RecompileSass = true;
    break;
  case OPT_write_sass_units:
    S.O.WriteSassUnits = Value.str();
    break;
  case OPT_use_sass_units:
    S.O.UseSassUnits = Value.str();
    break;
  case OPT_remote_cache:
    S.O.RemoteCache = Value.str();
    break;
  case OPT_no_cache:
    S.O.NoCache = true;
    break;
  case OPT_cache_dir:
    S.O.CacheDir = Value.str();
    break;
  case OPT_cache_limit:
    if (auto N = parseByteSize(Value))
      S.O.CacheLimit = *N;
    else {
      S.Diags.error("--cache-limit needs a size such as 500M or 2G, got '" + Value + "'", std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
    }
    break;
  case OPT_max_decompressed:
    if (auto N = parseByteSize(Value))
      S.O.MaxDecompressed = *N;
    else {
      S.Diags.error("--max-decompressed needs a size such as 500M or 2G, got '" + Value + "'", std::vector<DiagSite>(),
                    "bad-option");
      S.Ok = false;
    }
    break;
  case OPT_release_input_text_after:
    if (auto N = parseByteSize(Value))
      S.O.ReleaseInputTextAfter = *N;
    else {
      S.Diags.error("--release-input-text-after needs a size such as 64M or 0, got '" + Value + "'",
                    std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
    }
    break;
  case OPT_sass_batch_below:
    if (auto N = parseByteSize(Value))
      S.O.BatchBelow = *N;
    else {
      S.Diags.error("--sass-batch-below needs a size such as 16K or 0, got '" + Value + "'", std::vector<DiagSite>(),
                    "bad-option");
      S.Ok = false;
    }
    break;
  case OPT_save_temps:
    S.O.SaveTemps = true;
    break;
  case OPT_no_progress:
    S.O.Progress = false;
    break;
  case OPT_compress: {
    S.O.CompressionGiven = true;
    auto Setting = parseFatbinCompression(Value);
    if (!Setting) {
      S.Diags.error(toString(Setting.takeError()), std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
      break;
    }
    S.O.Compression = Setting->Scheme;
    S.O.CompressionLevel = Setting->Level;
    break;
  }
  default:
    return false;
  }
  return true;
}

/// Checks, reports and diagnostics (--print-gc, --map, --time, --threads, -Werror, -v, ...).
/// False if ID is not one of them.
bool applyReportOption(unsigned ID, StringRef Value, StringRef Spelling, OptionState &S) {
  switch (ID) {
  case OPT_no_gc:
    S.O.NoGc = true;
    break;
  case OPT_print_gc:
    S.O.PrintGc = true;
    break;
  case OPT_dump_callgraph:
    S.O.DumpCallgraph = true;
    break;
  case OPT_callgraph_dot:
    S.O.CallgraphDotFile = Value.str();
    break;
  case OPT_verify:
    S.O.Verify = true;
    break;
  case OPT_check_abi:
    S.O.CheckAbiOnly = true;
    break;
  case OPT_kernels_used:
    if (!S.O.KernelsUsed)
      S.O.KernelsUsed.emplace();
    splitList(Value, *S.O.KernelsUsed);
    break;
  case OPT_variables_used:
    if (!S.O.VariablesUsed)
      S.O.VariablesUsed.emplace();
    splitList(Value, *S.O.VariablesUsed);
    break;
  case OPT_trace_symbol:
    S.O.TraceSymbols.push_back(Value.str());
    break;
  case OPT_map:
    S.O.MapFile = Value.str();
    break;
  case OPT_why_extract:
    S.O.WhyExtractFile = Value.str();
    break;
  case OPT_time:
    S.O.TimeFile = Value.str();
    break;
  case OPT_j: // -j is --threads (its table entry is no alias: Short's spellings glue the value)
  case OPT_threads:
    if (Value.getAsInteger(10, S.O.Threads)) {
      S.Diags.error("--threads (-j) needs a number, got '" + Value + "'", std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
    }
    break;
  case OPT_error_limit:
    if (Value.getAsInteger(10, S.O.ErrorLimit)) {
      S.Diags.error("--error-limit needs a number, got '" + Value + "'", std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
    }
    break;
  case OPT_Werror:
    S.O.WarningsAsErrors = true;
    break;
  case OPT_w:
    S.O.NoWarnings = true;
    break;
  case OPT_json:
    S.O.Json = true;
    break;
  case OPT_verbose:
    S.O.Verbose = true;
    break;
  default:
    return false;
  }
  return true;
}

/// After every argument: the output kind, the combinations that cannot work, and the defaults that depend
/// on other options (the architectures of nvcc -dlink without -arch, the output file's name).
void finishOptions(OptionState &S) {
  // nvcc -dlink -fatbin (in either order) writes the linked fatbinary, not the object that embeds it.
  if (S.NvccFatbin && (S.EmitValue.empty() || S.EmitValue == "host-object"))
    S.EmitValue = "fatbin";
  if (!S.EmitValue.empty()) {
    if (S.EmitValue == "ptx")
      S.O.Emit = EmitKind::Ptx;
    else if (S.EmitValue == "fatbin")
      S.O.Emit = EmitKind::Fatbin;
    else if (S.EmitValue == "host-object" || S.EmitValue == "dlink")
      S.O.Emit = EmitKind::HostObject;
    else if (S.EmitValue == "c")
      S.O.Emit = EmitKind::CSource;
    else if (S.EmitValue == "obj" || S.EmitValue == "object") {
      S.O.Emit = EmitKind::Object;
      S.O.Relocatable = true;
    } else {
      S.Diags.error("--emit must be fatbin, ptx, host-object or c, got '" + S.EmitValue + "'", std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
    }
  }
  if (S.O.Relocatable && (S.O.Emit == EmitKind::Fatbin || S.O.Emit == EmitKind::Ptx))
    S.O.Emit = EmitKind::Object;
  if (S.O.Inputs.empty() && S.Ok) {
    S.Diags.error("no input files", std::vector<DiagSite>(), "no-inputs");
    S.Ok = false;
  }
  // nvcc -dlink without an architecture links for nvcc's default one, which is what the objects were
  // compiled for by the same default: take the architectures the inputs carry, SASS included, as nvcc.
  if (S.O.Arches.empty() && !S.O.CheckAbiOnly && S.O.ArchesFromInputs == LinkOptions::ListedArches &&
      S.O.Emit == EmitKind::HostObject) {
    S.O.ArchesFromInputs = LinkOptions::AllArches;
    S.O.Sass = true;
  }
  if (S.O.Arches.empty() && !S.O.CheckAbiOnly && S.O.ArchesFromInputs == LinkOptions::ListedArches && S.Ok) {
    S.Diags.error("no architecture given: use -arch sm_XX[,sm_YY...]", std::vector<DiagSite>(), "no-arch");
    S.Ok = false;
  }
  if (S.O.Emit == EmitKind::Ptx && S.O.Arches.size() > 1) {
    S.Diags.error("--emit ptx links for one architecture, but " + std::to_string(S.O.Arches.size()) + " were given", std::vector<DiagSite>(),
                  "bad-option");
    S.Ok = false;
  }
  if (S.O.Relocatable && S.O.Emit != EmitKind::Object) {
    S.Diags.error("-r writes a ptxlink object; it cannot be combined with --emit " + S.EmitValue, std::vector<DiagSite>(),
                  "bad-option");
    S.Ok = false;
  }
  // `--time` was a flag before it took nvlink's file: `--time a.o b.o` must not append CSV to an object.
  if (!S.O.TimeFile.empty() && S.O.TimeFile != "-") {
    if (auto Existing = MemoryBuffer::getFile(S.O.TimeFile, /*IsText=*/false, /*RequiresNullTerminator=*/false)) {
      StringRef Head = (*Existing)->getBuffer().take_front(4096);
      if (Head.contains('\0') || Head.contains(".version")) {
        S.Diags.error("--time appends a CSV table to its file, but '" + S.O.TimeFile +
                          "' is an object, a library or PTX; give --time a file name (as nvlink's --time)",
                      std::vector<DiagSite>(), "bad-option");
        S.Ok = false;
      }
    }
  }
  if (S.O.Dlto && S.O.Emit != EmitKind::Fatbin && S.O.Emit != EmitKind::HostObject && S.O.Emit != EmitKind::CSource &&
      S.O.Emit != EmitKind::Ptx && !S.O.CheckAbiOnly && S.Ok) {
    S.Diags.error(std::string("-dlto writes what nvJitLink makes: SASS in a fatbinary, a host object or C source, or "
                              "the optimised PTX (--emit ptx); it cannot be combined with ") +
                      (S.O.Relocatable ? "-r" : "--emit " + S.EmitValue),
                  std::vector<DiagSite>(), "bad-option");
    S.Ok = false;
  }
  if (S.O.LtoPtx && !S.O.Dlto && S.Ok) {
    S.Diags.error("--lto-ptx adds the PTX of a link-time optimised program: it needs -dlto", std::vector<DiagSite>(),
                  "bad-option");
    S.Ok = false;
  }
  // -lcudadevrt without --sass is what every nvcc -dlink line (and CMake's) says: the device runtime is
  // linked, as SASS, when a module calls it (the link then compiles SASS: LinkDriver.cpp), and is nothing
  // otherwise.
  if (S.SassForAll)
    S.O.SassArches.clear();
  if (S.O.Verbose)
    for (const std::string &Ignored : S.O.IgnoredNvccOptions)
      S.Diags.stream() << "ptxlink: note: " << Ignored << ": an nvcc compile option, nothing for the device link to do\n";
  if (S.O.Output.empty())
    S.O.Output = S.O.Emit == EmitKind::Ptx          ? "a.ptx"
               : S.O.Emit == EmitKind::Object     ? "a.o"
               : S.O.Emit == EmitKind::HostObject ? "a_dlink.o"
               : S.O.Emit == EmitKind::CSource    ? "a.fatbin.c"
                                                : "a.fatbin";
}

/// nvcc's -Werror takes its kinds as the next argument too (`-Werror all-warnings`), where ptxlink's -Werror
/// is a flag: the pair becomes `-Werror=KINDS` when every listed kind is one of nvcc's, so that the kinds are
/// not read as an input file.
void joinNvccWerror(std::vector<const char *> &Argv, StringSaver &Saver) {
  static constexpr StringRef NvccKinds[] = {"all-warnings",          "cross-execution-space-call", "default-stream-launch",
                                            "deprecated-declarations", "ext-lambda-captures-this",   "missing-launch-bounds",
                                            "reorder"};
  for (size_t I = 0; I + 1 < Argv.size(); ++I) {
    StringRef Flag = Argv[I];
    if (Flag != "-Werror" && Flag != "--Werror")
      continue;
    SmallVector<StringRef, 4> Kinds;
    StringRef(Argv[I + 1]).split(Kinds, ',');
    if (!llvm::all_of(Kinds, [](StringRef K) { return is_contained(NvccKinds, K); }))
      continue;
    Argv[I] = Saver.save("-Werror=" + Twine(Argv[I + 1])).data();
    Argv.erase(Argv.begin() + I + 1);
  }
}

} // namespace

void printLinkerHelp(raw_ostream &OS) { printToolHelp(LinkOptTable(), LinkDescription, OS); }

void printLinkerManPage(raw_ostream &OS) { printManPage(LinkOptTable(), LinkDescription, OS); }

std::optional<LinkOptions> parseLinkOptions(ArrayRef<std::string> RawArgs, DiagnosticEngine &Diags,
                                            std::string &Informational) {
  // Expand @response files (GNU quoting rules); the saver keeps the arguments alive for the parse, options
  // files included.
  auto Expanded = expandResponseFiles(RawArgs);
  if (!Expanded) {
    Diags.error("cannot read a response file: " + toString(Expanded.takeError()), std::vector<DiagSite>(),
                "bad-response-file");
    return std::nullopt;
  }
  // The options files' arguments are saved here; the command line's live in Expanded.
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  LinkOptTable Table;
  std::vector<const char *> Argv = collapseRepeatedFlags(Table, Expanded->argv());
  unsigned OptionsFilesRead = 0;
  OptionState S{Diags, LinkOptions()};

  // nvlink's options files (-optf FILE,...): their arguments take the option's place, so later ones still
  // override; they may name more options files. Parse, replace the first -optf by what its files hold,
  // parse again, until none is left.
  unsigned MissingIndex = 0, MissingCount = 0;
  for (;;) {
    opt::InputArgList Probe = Table.ParseArgs(Argv, MissingIndex, MissingCount);
    const opt::Arg *Optf = nullptr;
    for (const opt::Arg *A : Probe)
      if (A->getOption().matches(OPT_optf)) {
        Optf = A;
        break;
      }
    if (!Optf)
      break;
    std::vector<std::string> Files;
    splitList(Optf->getValue(), Files);
    // `-optf FILE` is two arguments, `-optf=FILE` one (option names have no '=' of their own).
    unsigned First = Optf->getIndex();
    unsigned Count = StringRef(Argv[First]).contains('=') ? 1 : 2;
    Count = std::min<unsigned>(Count, Argv.size() - First);
    SmallVector<const char *, 16> Read;
    for (const std::string &F : Files) {
      if (++OptionsFilesRead > MaxOptionsFiles) {
        Diags.error("more than " + std::to_string(MaxOptionsFiles) + " options files: does '" + F + "' include itself?",
                    std::vector<DiagSite>(), "bad-option");
        return std::nullopt;
      }
      auto Buffer = MemoryBuffer::getFile(F, /*IsText=*/true);
      if (!Buffer) {
        Diags.error("cannot read options file '" + F + "': " + Buffer.getError().message(), std::vector<DiagSite>(),
                    "bad-option");
        S.Ok = false;
        continue;
      }
      for (const std::string &T : tokenizeOptionsText((*Buffer)->getBuffer()))
        Read.push_back(Saver.save(T).data());
    }
    Argv.erase(Argv.begin() + First, Argv.begin() + First + Count);
    Argv.insert(Argv.begin() + First, Read.begin(), Read.end());
  }
  joinNvccWerror(Argv, Saver);
  opt::InputArgList Args = Table.ParseArgs(Argv, MissingIndex, MissingCount);
  // --help and --version answer whatever else the command line holds.
  for (const opt::Arg *A : Args) {
    if (A->getOption().matches(OPT_help)) {
      Informational = "help";
      return LinkOptions();
    }
    if (A->getOption().matches(OPT_help_man)) {
      Informational = "help-man";
      return LinkOptions();
    }
    if (A->getOption().matches(OPT_version)) {
      Informational = "version";
      return LinkOptions();
    }
  }
  if (MissingCount) {
    Diags.error("option " + Twine(Args.getArgString(MissingIndex)) + " needs a value", std::vector<DiagSite>(),
                "bad-option");
    S.Ok = false;
  }

  // In command-line order: libraries and --whole-archive are positional, and a later value overrides.
  // The input list sized once: grown by doubling, a link of 10^5 files held up to twice its 48 bytes per
  // input for the whole link.
  S.O.Inputs.reserve(llvm::count_if(Args, [](const opt::Arg *A) { return A->getOption().matches(OPT_INPUT); }));
  for (const opt::Arg *A : Args) {
    StringRef Value = A->getNumValues() ? StringRef(A->getValue()) : StringRef();
    StringRef Spelling = Args.getArgString(A->getIndex());
    if (A->getOption().getGroup().isValid() && A->getOption().getGroup().getID() == OPT_grp_nvcc_ignored) {
      // Named as written: -O3 and -O 3, -DX and -D X.
      std::string Written = Spelling.str();
      if (A->getNumValues() && Spelling == A->getSpelling()) // the value is the next argument
        Written += " " + Value.str();
      S.O.IgnoredNvccOptions.push_back(std::move(Written));
      continue;
    }
    if (A->getOption().matches(OPT_INPUT)) {
      S.O.Inputs.push_back({LinkInput::File, Value.str(), S.WholeArchive});
      continue;
    }
    if (A->getOption().matches(OPT_UNKNOWN)) {
      Diags.error(unknownOptionMessage(Table, LinkDescription, Spelling), std::vector<DiagSite>(), "bad-option");
      S.Ok = false;
      continue;
    }
    const unsigned ID = A->getOption().getID();
    [[maybe_unused]] bool Known = applyTargetOption(ID, Value, Spelling, S) ||
                                  applyInputOutputOption(ID, Value, Spelling, S) ||
                                  applyCodegenOption(ID, Value, Spelling, S) || applyReportOption(ID, Value, Spelling, S);
  }
  finishOptions(S);
  if (!S.Ok)
    return std::nullopt;
  return std::move(S.O);
}


} // namespace ptxlink
