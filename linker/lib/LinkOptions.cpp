// The ptxlink command line.
//
// The problem: users come from nvlink (`-arch=sm_90`, `-kernels-used=a,b`, single-dash long options) and
// from binutils (`-o out`, `-L dir -lfoo`, `--whole-archive`, `@rsp`). Both spellings are accepted:
// every long option may be written with one or two dashes, with its value after `=` or as the next
// argument. Library flags are positional, like ld's. nvlink's spellings that Makefiles pass (-optf,
// -m64, -g, --warning-as-error, -Xptxas, --gpu-architecture, --time FILE) mean what they mean there.
#include "ptxlink/CommandLine.h"
#include "CompileCache.h"
#include "LinkContext.h"
#include "ptxlink/Linker.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace ptxlink {

void printLinkerHelp(raw_ostream &OS) {
  OS << R"(USAGE: ptxlink -arch sm_XX[,sm_YY...] [options] inputs... -o output

Links PTX-level device code (ptxlink objects, .ptx files, static libraries) into one
NVIDIA fatbinary (one PTX image per architecture), one PTX module, or one relocatable object.

Inputs:
  <file>                   a ptxlink object (plain or fat), a .ptx file, a static library, an
                           nvcc -rdc=true -c / -dc host object (its PTX), or an nvcc -lib archive
  @<file>                  read more arguments from a response file (GNU quoting)
  -optf <file,...>         nvlink's options file (--options-file): its arguments are read in place
  -L <dir>                 add a library search directory
  -l <name>                link lib<name>.a (searched in -L dirs; -l:file.a for an exact name)
  --whole-archive          load every member of the following libraries
  --no-whole-archive       back to lazy extraction (default)

Output:
  -arch <sm_XX,...>        architectures to link for (nvlink's -arch=; compute_XX accepted;
                           also --gpu-architecture, --arch)
  -o <file>                output file ("-" = standard output); default a.fatbin / a.ptx / a.o
  --emit fatbin|ptx        fatbinary (default) or the linked PTX module (one arch only)
  --emit host-object       the device-link object of a CUDA program (what nvcc -dlink writes): the
                           fatbinary and __cudaRegisterLinkedBinary_<id> for every nvcc -rdc input;
                           link it with the host objects and -lcudart (-dlink is the same)
  --emit c                 C source that embeds the fatbinary (for programs that load it themselves)
  -r, --relocatable        relocatable link: one object (one variant per arch) that links again later
  --sass                   also put a cubin per arch into the fatbinary: each input's code compiled
                           by ptxas -c (in parallel, cached), joined by nvlink
  --whole-program          with --sass: one ptxas run over the whole linked module instead
  --cache-dir <dir>        compile cache (default $XDG_CACHE_HOME/ptxlink, else ~/.cache/ptxlink)
  --no-cache               neither read nor write the compile cache
  --cache-limit <size>     size limit of the cache (e.g. 500M, 2G; default 2G): least recently used go
  --sass-batch-below <size>  inputs with less code than this (default 16K) share a ptxas run with
                           their neighbours; 0: one ptxas run per input
  --save-temps             keep the modules given to ptxas and nvlink (the folder is printed)
  -lcudadevrt              link the CUDA device runtime (dynamic parallelism; needs --sass; automatic
                           when a module calls it)
  --compress <c>[:level]   compress the fatbinary's images: zstd, lz4 or none (default none)
  --check-abi              run every link check, write no output
  --verify                 run ptxas (-O0) over each linked module and report its errors at the
                           inputs' file:line:col (with --sass, the SASS compilation does it)
  -Xptxas <opt,...>        pass options to ptxas where ptxlink runs it (--sass, --verify)
  -m64                     64-bit device code (the only kind; accepted for nvlink's command lines)
  -g, --debug              accepted for nvlink's command lines: debug information follows the inputs
                           (kept when they have it; ptxas gets -g for inputs with .target debug)

Dead code:
  --no-gc                  keep every definition
  --print-gc               list what was removed
  --kernels-used <a,b>     kernels to keep (substring match); other kernels are dead
  --variables-used <a,b>   visible variables to keep (substring match)

Reports:
  --dump-callgraph         print the call graph of each linked module
  --callgraph-dot <file>   write the call graph as Graphviz: kernels, device functions, function-pointer
                           tables and indirect calls, removed code greyed, one cluster per input module
  --trace-symbol <name>    print every definition and reference of <name> and which one won
  --map <file>             write a link map (what each kept symbol came from, sizes, what was dropped)
  --why-extract <file>     write why each archive member was extracted
  --time <file>            append the time each pass took to <file> as CSV (nvlink's --time;
                           "-" = standard output)

Diagnostics and misc:
  -Werror                  treat warnings as errors (also --warning-as-error)
  -w                       suppress warnings
  --json                   diagnostics as JSON lines
  --error-limit <n>        stop after n errors (0 = no limit; default 20)
  --threads <n>, -j <n>    worker threads and parallel ptxas runs (default: the machine's cores;
                           output is identical for any n)
  --no-progress            no progress line for long --sass work (shown only on a terminal)
  -v                       verbose
  --version                print the version
  --help                   print this help
)";
}

namespace {

/// Options that take a value, by canonical long name.
bool takesValue(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("arch", "o", "output", "output-file", "L", "library-path", "l", "library", true)
      .Cases("emit", "kernels-used", "variables-used", "trace-symbol", "map", "why-extract", "threads", true)
      .Cases("error-limit", "callgraph-dot", "j", "cache-dir", "cache-limit", "compress", true)
      .Cases("gpu-architecture", "optf", "options-file", "Xptxas", "time", "machine", "m", true)
      .Case("sass-batch-below", true)
      .Default(false);
}

void splitList(StringRef Value, std::vector<std::string> &Out) {
  SmallVector<StringRef, 4> Parts;
  Value.split(Parts, ',', -1, false);
  for (StringRef P : Parts)
    Out.push_back(P.trim().str());
}

/// Every spelling the parser accepts, for "did you mean" (one or two dashes work for each).
constexpr StringRef KnownOptions[] = {
    "--arch", "--gpu-architecture", "-o", "--output-file", "-L", "--library-path", "-l", "--library",
    "--whole-archive", "--no-whole-archive", "--emit", "--emit-ptx", "-dlink", "--device-link", "-r",
    "--relocatable", "--sass", "--no-gc", "--print-gc", "--dump-callgraph", "--verify", "--check-abi",
    "--kernels-used", "--variables-used", "--trace-symbol", "--map", "--why-extract", "--time", "--threads",
    "--error-limit", "-Werror", "--warning-as-error", "-w", "--disable-warnings", "--json", "-v", "--verbose",
    "--version", "--help", "-optf", "--options-file", "-m64", "--machine", "-g", "--debug", "-Xptxas", "--callgraph-dot"};

/// nvlink reads options files recursively; a file that names itself must not hang the link.
constexpr unsigned MaxOptionsFiles = 64;

} // namespace

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
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *, 64> Argv;
  for (const std::string &A : *Expanded)
    Argv.push_back(Saver.save(A).data());
  unsigned OptionsFilesRead = 0;

  LinkOptions O;
  bool WholeArchive = false;
  bool Ok = true;
  std::string EmitValue;
  for (size_t I = 0; I < Argv.size(); ++I) {
    StringRef Arg = Argv[I];
    if (Arg == "-" || !Arg.starts_with("-")) {
      O.Inputs.push_back({LinkInput::File, Arg.str(), WholeArchive});
      continue;
    }
    // Normalise: strip dashes, split "name=value"; "-ofile", "-Ldir", "-lname" glue their value.
    StringRef Body = Arg.drop_front(Arg.starts_with("--") ? 2 : 1);
    StringRef Name = Body, Value;
    bool HasValue = false;
    if (size_t Eq = Body.find('='); Eq != StringRef::npos) {
      Name = Body.take_front(Eq);
      Value = Body.drop_front(Eq + 1);
      HasValue = true;
    }
    bool GluedJobs = Body.size() > 1 && Body[0] == 'j' && all_of(Body.drop_front(), isDigit); // -j4
    if (!HasValue && !Arg.starts_with("--") && Body.size() > 1 &&
        (Body[0] == 'o' || Body[0] == 'L' || Body[0] == 'l' || GluedJobs) && !takesValue(Body) && Body != "lto") {
      Name = Body.take_front(1);
      Value = Body.drop_front(1);
      HasValue = true;
    }
    if (takesValue(Name) && !HasValue) {
      if (I + 1 >= Argv.size()) {
        Diags.error("option " + Arg + " needs a value", std::vector<DiagSite>(), "bad-option");
        Ok = false;
        break;
      }
      Value = Argv[++I];
      HasValue = true;
    }
    if (Name == "optf" || Name == "options-file") {
      // nvlink's options file: its arguments take the option's place, so later ones still override.
      std::vector<std::string> Files;
      splitList(Value, Files);
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
          Ok = false;
          continue;
        }
        for (const std::string &T : tokenizeOptionsText((*Buffer)->getBuffer()))
          Read.push_back(Saver.save(T).data());
      }
      Argv.insert(Argv.begin() + I + 1, Read.begin(), Read.end());
    } else if (Name == "m64" || ((Name == "m" || Name == "machine") && Value == "64")) {
      // 64-bit device code is all there is (PTX .address_size 32 is gone since CUDA 12): nothing to do.
    } else if (Name == "m32" || Name == "m" || Name == "machine") {
      Diags.error("ptxlink links 64-bit device code only: " + Arg + " is not supported (use -m64 or nothing)",
                  std::vector<DiagSite>(), "bad-option");
      Ok = false;
    } else if (Name == "g" || Name == "debug") {
      // nvlink's "this was a debug compile". Here debug information follows the inputs: their DWARF is
      // always merged, and ptxas (--sass) gets -g for modules with .target debug. Nothing to switch on.
    } else if (Name == "Xptxas") {
      splitList(Value, O.PtxasOptions);
    } else if (Name == "arch" || Name == "gpu-name" || Name == "gpu-architecture") {
      std::vector<std::string> List;
      splitList(Value, List);
      for (const std::string &A : List) {
        auto Spec = parseArch(A);
        if (!Spec) {
          Diags.error("unknown architecture '" + A + "' (expected sm_XX, sm_XXa, sm_XXXf or compute_XX)", std::vector<DiagSite>(),
                      "bad-arch");
          Ok = false;
          continue;
        }
        std::string Canon = Spec->name();
        if (!is_contained(O.Arches, Canon))
          O.Arches.push_back(Canon);
      }
    } else if (Name == "o" || Name == "output" || Name == "output-file") {
      O.Output = Value.str();
    } else if (Name == "L" || Name == "library-path") {
      splitList(Value, O.LibraryPaths);
    } else if (Name == "l" || Name == "library") {
      std::vector<std::string> List;
      splitList(Value, List);
      for (const std::string &L : List) {
        if (L == "cudadevrt") { // NVIDIA's device runtime is a cubin library: nvlink links it (--sass)
          O.DeviceRuntime = true;
          continue;
        }
        O.Inputs.push_back({LinkInput::Library, L, WholeArchive});
      }
    } else if (Name == "whole-archive") {
      WholeArchive = true;
    } else if (Name == "no-whole-archive") {
      WholeArchive = false;
    } else if (Name == "emit") {
      EmitValue = Value.str();
    } else if (Name == "emit-ptx") {
      EmitValue = "ptx";
    } else if (Name == "dlink" || Name == "device-link") {
      EmitValue = "host-object";
    } else if (Name == "r" || Name == "relocatable" || Name == "relocatable-link") {
      O.Relocatable = true;
    } else if (Name == "sass") {
      O.Sass = true;
    } else if (Name == "whole-program") {
      O.WholeProgram = true;
    } else if (Name == "no-cache") {
      O.NoCache = true;
    } else if (Name == "cache-dir") {
      O.CacheDir = Value.str();
    } else if (Name == "cache-limit") {
      if (auto N = parseByteSize(Value))
        O.CacheLimit = *N;
      else {
        Diags.error("--cache-limit needs a size such as 500M or 2G, got '" + Value + "'", std::vector<DiagSite>(), "bad-option");
        Ok = false;
      }
    } else if (Name == "sass-batch-below") {
      if (auto N = parseByteSize(Value))
        O.BatchBelow = *N;
      else {
        Diags.error("--sass-batch-below needs a size such as 16K or 0, got '" + Value + "'", std::vector<DiagSite>(),
                    "bad-option");
        Ok = false;
      }
    } else if (Name == "save-temps") {
      O.SaveTemps = true;
    } else if (Name == "no-progress") {
      O.Progress = false;
    } else if (Name == "compress") {
      auto [Scheme, Level] = Value.split(':');
      O.CompressionGiven = true;
      O.Compression = StringSwitch<FatbinCompression>(Scheme)
                          .Case("zstd", FatbinCompression::Zstd)
                          .Case("lz4", FatbinCompression::Lz4)
                          .Case("none", FatbinCompression::None)
                          .Default(FatbinCompression::Unknown);
      int MaxLevel = O.Compression == FatbinCompression::Zstd ? 22 : O.Compression == FatbinCompression::Lz4 ? 12 : 0;
      if (O.Compression == FatbinCompression::Unknown ||
          (!Level.empty() && (Level.getAsInteger(10, O.CompressionLevel) || O.CompressionLevel < 1 ||
                              O.CompressionLevel > MaxLevel))) {
        Diags.error("--compress takes zstd[:1-22], lz4[:1-12] or none, got '" + Value + "'", std::vector<DiagSite>(),
                    "bad-option");
        Ok = false;
      }
    } else if (Name == "no-gc") {
      O.NoGc = true;
    } else if (Name == "print-gc") {
      O.PrintGc = true;
    } else if (Name == "dump-callgraph") {
      O.DumpCallgraph = true;
    } else if (Name == "callgraph-dot") {
      O.CallgraphDotFile = Value.str();
    } else if (Name == "verify") {
      O.Verify = true;
    } else if (Name == "check-abi") {
      O.CheckAbiOnly = true;
    } else if (Name == "kernels-used") {
      if (!O.KernelsUsed)
        O.KernelsUsed.emplace();
      splitList(Value, *O.KernelsUsed);
    } else if (Name == "variables-used") {
      if (!O.VariablesUsed)
        O.VariablesUsed.emplace();
      splitList(Value, *O.VariablesUsed);
    } else if (Name == "trace-symbol") {
      O.TraceSymbols.push_back(Value.str());
    } else if (Name == "map") {
      O.MapFile = Value.str();
    } else if (Name == "why-extract") {
      O.WhyExtractFile = Value.str();
    } else if (Name == "time") {
      O.TimeFile = Value.str();
    } else if (Name == "threads" || Name == "j") {
      if (Value.getAsInteger(10, O.Threads)) {
        Diags.error("--threads needs a number, got '" + Value + "'", std::vector<DiagSite>(), "bad-option");
        Ok = false;
      }
    } else if (Name == "error-limit") {
      if (Value.getAsInteger(10, O.ErrorLimit)) {
        Diags.error("--error-limit needs a number, got '" + Value + "'", std::vector<DiagSite>(), "bad-option");
        Ok = false;
      }
    } else if (Name == "Werror" || Name == "warning-as-error") {
      O.WarningsAsErrors = true;
    } else if (Name == "w" || Name == "disable-warnings") {
      O.NoWarnings = true;
    } else if (Name == "json") {
      O.Json = true;
    } else if (Name == "v" || Name == "verbose") {
      O.Verbose = true;
    } else if (Name == "version" || Name == "V") {
      Informational = "version";
      return O;
    } else if (Name == "help" || Name == "h") {
      Informational = "help";
      return O;
    } else {
      Diags.error(unknownOptionMessage(Arg, KnownOptions) + " (see ptxlink --help)", std::vector<DiagSite>(),
                  "bad-option");
      Ok = false;
    }
  }

  if (!EmitValue.empty()) {
    if (EmitValue == "ptx")
      O.Emit = EmitKind::Ptx;
    else if (EmitValue == "fatbin")
      O.Emit = EmitKind::Fatbin;
    else if (EmitValue == "host-object" || EmitValue == "dlink")
      O.Emit = EmitKind::HostObject;
    else if (EmitValue == "c")
      O.Emit = EmitKind::CSource;
    else if (EmitValue == "obj" || EmitValue == "object") {
      O.Emit = EmitKind::Object;
      O.Relocatable = true;
    } else {
      Diags.error("--emit must be fatbin, ptx, host-object or c, got '" + EmitValue + "'", std::vector<DiagSite>(), "bad-option");
      Ok = false;
    }
  }
  if (O.Relocatable && (O.Emit == EmitKind::Fatbin || O.Emit == EmitKind::Ptx))
    O.Emit = EmitKind::Object;
  if (O.Inputs.empty() && Ok) {
    Diags.error("no input files", std::vector<DiagSite>(), "no-inputs");
    Ok = false;
  }
  if (O.Arches.empty() && !O.CheckAbiOnly && Ok) {
    Diags.error("no architecture given: use -arch sm_XX[,sm_YY...]", std::vector<DiagSite>(), "no-arch");
    Ok = false;
  }
  if (O.Emit == EmitKind::Ptx && O.Arches.size() > 1) {
    Diags.error("--emit ptx links for one architecture, but " + std::to_string(O.Arches.size()) + " were given", std::vector<DiagSite>(),
                "bad-option");
    Ok = false;
  }
  if (O.Relocatable && O.Emit != EmitKind::Object) {
    Diags.error("-r writes a ptxlink object; it cannot be combined with --emit " + EmitValue, std::vector<DiagSite>(),
                "bad-option");
    Ok = false;
  }
  // `--time` was a flag before it took nvlink's file: `--time a.o b.o` must not append CSV to an object.
  if (!O.TimeFile.empty() && O.TimeFile != "-") {
    if (auto Existing = MemoryBuffer::getFile(O.TimeFile, /*IsText=*/false, /*RequiresNullTerminator=*/false)) {
      StringRef Head = (*Existing)->getBuffer().take_front(4096);
      if (Head.contains('\0') || Head.contains(".version")) {
        Diags.error("--time appends a CSV table to its file, but '" + O.TimeFile +
                        "' is an object, a library or PTX; give --time a file name (as nvlink's --time)",
                    std::vector<DiagSite>(), "bad-option");
        Ok = false;
      }
    }
  }
  if (O.DeviceRuntime && !O.Sass && Ok) {
    Diags.error("-lcudadevrt needs --sass: the CUDA device runtime is machine code that nvlink links into the "
                "cubin; a PTX-only fatbinary cannot carry it",
                std::vector<DiagSite>(), "bad-option");
    Ok = false;
  }
  if (O.Output.empty())
    O.Output = O.Emit == EmitKind::Ptx          ? "a.ptx"
               : O.Emit == EmitKind::Object     ? "a.o"
               : O.Emit == EmitKind::HostObject ? "a_dlink.o"
               : O.Emit == EmitKind::CSource    ? "a.fatbin.c"
                                                : "a.fatbin";
  if (!Ok)
    return std::nullopt;
  return O;
}

} // namespace ptxlink
