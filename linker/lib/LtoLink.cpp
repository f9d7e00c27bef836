// Link-time optimisation through libnvJitLink (LtoLink.h).
#include "LtoLink.h"
#include "CompileCache.h"
#include "CubinInputs.h"
#include "NvJitLinkLibrary.h"
#include "SassBuild.h"

#include "ptxlink/Fatbin.h"
#include "ptxlink/HostEmbed.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <deque>

using namespace llvm;

namespace ptxlink {

bool isLtoIrOnly(const InputFile &In) {
  return In.Host && !In.Host->LtoIrArches.empty() && In.Object && In.Object->Variants.empty();
}

namespace {

/// The LTO-IR arches of an input as nvcc's -gencode names them ("lto_80"), joined: what messages say.
std::string ltoArchList(const HostOrigin &Host) {
  std::vector<std::string> Names;
  for (const std::string &A : Host.LtoIrArches)
    Names.push_back("lto_" + A.substr(A.find('_') + 1));
  return join(Names, ", ");
}

/// The number after sm_ / compute_ ("90a").
StringRef archNumber(StringRef Arch) { return Arch.substr(Arch.find('_') + 1); }

} // namespace

bool linkedByNvJitLinkOnly(const InputFile &In, const Target &Arch) {
  if (!In.Host || In.Host->CubinInput || selectVariant(*In.Object, Arch) >= 0)
    return false;
  return !In.Host->LtoIrArches.empty() || llvm::is_contained(In.Host->CubinArches, Arch.name());
}

bool checkLtoInputs(const LinkOptions &Options, ArrayRef<InputFile> Inputs, DiagnosticEngine &Diags) {
  std::vector<DiagSite> Unused;
  for (const InputFile &In : Inputs) {
    if (!In.Host || In.Host->LtoIrArches.empty())
      continue;
    if (isLtoIrOnly(In)) {
      if (!Options.Dlto) {
        std::string Number = archNumber(In.Host->LtoIrArches.front()).str();
        Diags.error(In.Name + ": holds LTO-IR (" + ltoArchList(*In.Host) +
                        ") and no PTX, so only a link-time optimising link can use it: add -dlto (ptxlink then "
                        "links it with libnvJitLink), or compile it with PTX, e.g. -gencode arch=compute_" +
                        Number + ",code=[sm_" + Number + ",compute_" + Number + "]",
                    std::vector<DiagSite>(), "lto-ir-only");
      }
    } else {
      Unused.push_back({"in " + In.Name + " (LTO-IR for " + ltoArchList(*In.Host) + ")"});
    }
  }
  // nvJitLink makes PTX (-ptx: --emit ptx, --lto-ptx) of LTO-IR only; given anything else it fails with
  // "-ptx requires that all inputs have LTOIR", naming no input. A cubin under --emit ptx is refused by
  // checkCubinInputs already; an input with nothing for nvJitLink (an empty module) is not given to it.
  if (Options.Dlto && (Options.Emit == EmitKind::Ptx || Options.LtoPtx)) {
    std::vector<DiagSite> NoIr;
    for (const InputFile &In : Inputs) {
      if (In.Host ? !In.Host->LtoIrArches.empty() || (Options.Emit == EmitKind::Ptx && isCubinInput(In))
                  : In.Object->Variants.empty())
        continue;
      NoIr.push_back({"in " + In.Name + (isCubinInput(In) ? " (a cubin: SASS)" : In.Host ? " (no LTO-IR)" : " (PTX)")});
    }
    if (!NoIr.empty()) {
      const bool PtxOutput = Options.Emit == EmitKind::Ptx;
      const size_t N = NoIr.size();
      Diags.error(std::string(PtxOutput ? "-dlto --emit ptx" : "--lto-ptx") +
                      ": nvJitLink makes PTX of LTO-IR only, and " + std::to_string(N) +
                      (N == 1 ? " input has" : " inputs have") + " none: compile " + (N == 1 ? "it" : "them") +
                      " with -dlto (-gencode arch=compute_XX,code=lto_XX), or link without " +
                      (PtxOutput ? "--emit ptx (a cubin of the whole program)" : "--lto-ptx (the cubin alone)"),
                  std::move(NoIr), "lto-ptx-needs-ir");
    }
  }
  if (Diags.hasErrors())
    return false;
  if (!Options.Dlto && !Unused.empty()) {
    size_t N = Unused.size();
    Diags.warning(std::to_string(N) + (N == 1 ? " input carries" : " inputs carry") +
                      " LTO-IR (nvcc -dlto) that this link does not use: their PTX is linked instead, without "
                      "link-time optimisation across files; add -dlto to optimise with libnvJitLink",
                  std::move(Unused), "lto-ir-unused");
  }
  return true;
}

namespace {
/// Whether nvJitLink alone links In for one of Arches (linkedByNvJitLinkOnly).
bool linkedByNvJitLinkOnlyForSome(const InputFile &In, ArrayRef<Target> Arches) {
  return llvm::any_of(Arches, [&](const Target &A) { return linkedByNvJitLinkOnly(In, A); });
}
} // namespace

void noteInputsOnlyNvJitLinkSees(const LinkOptions &Options, ArrayRef<InputFile> Inputs, ArrayRef<Target> Arches,
                                 DiagnosticEngine &Diags) {
  if (!Options.Dlto)
    return;
  std::vector<DiagSite> Sites;
  bool SomeIr = false, SomeSass = false;
  for (const InputFile &In : Inputs) {
    if (isLtoIrOnly(In)) {
      Sites.push_back({"in " + In.Name + " (LTO-IR for " + ltoArchList(*In.Host) + ", no PTX)"});
      SomeIr = true;
      continue;
    }
    std::vector<std::string> Sass;
    for (const Target &A : Arches)
      if (linkedByNvJitLinkOnly(In, A))
        Sass.push_back(A.name());
    if (Sass.empty())
      continue;
    const bool Ir = !In.Host->LtoIrArches.empty();
    Sites.push_back({"in " + In.Name + " (" + (Ir ? "LTO-IR or SASS" : "SASS") + " for " + join(Sass, ", ") +
                     ", no PTX usable there)"});
    SomeIr |= Ir;
    SomeSass = true;
  }
  if (Sites.empty())
    return;
  // What the checks cannot see, and why nothing is lost: nvJitLink links that code and reports what
  // remains undefined. (nvlink -dlto says of an object without LTO-IR "not built for LTO so doing partial
  // LTO".)
  const size_t N = Sites.size();
  const std::string What = !SomeSass ? " LTO-IR only"
                           : !SomeIr ? " SASS only for a linked architecture, which nvJitLink links as it is (partial "
                                       "LTO, as nvcc -dlink -dlto)"
                                     : " no PTX for a linked architecture (LTO-IR, which nvJitLink optimises, or "
                                       "SASS, which it links as it is: partial LTO, as nvcc -dlink -dlto)";
  Diags.note(std::to_string(N) + (N == 1 ? " input has" : " inputs have") + What +
                 ": ptxlink's checks of undefined symbols, ABI agreement, ODR and --kernels-used cannot see " +
                 (N == 1 ? "its" : "their") +
                 " code and did not run on it (nor does any check need every reference defined); nvJitLink "
                 "reports what remains undefined",
             std::move(Sites), "lto-checks-skipped");
}

const LinkOptions &ltoCheckOptions(const LinkOptions &Options, ArrayRef<InputFile> Inputs, ArrayRef<Target> Arches,
                                   LinkOptions &Storage) {
  if (!Options.Dlto ||
      llvm::none_of(Inputs, [&](const InputFile &In) { return linkedByNvJitLinkOnlyForSome(In, Arches); }))
    return Options;
  Storage = Options;
  Storage.Relocatable = true; // references into LTO-IR-only inputs stay open; everything is kept
  return Storage;
}

namespace {

/// One input as nvJitLink gets it.
struct LtoInput {
  NvJitLinkInput Kind;
  StringRef Bytes;
  std::string Name;
};

/// What one arch's nvJitLink run produced.
struct LtoResult {
  std::string Cubin, Ptx; // with --emit ptx, Cubin holds the optimised PTX (nvJitLink -ptx)
  bool FromCache = false;
};

/// The `.version X.Y` of a PTX text (the fatbinary's PTX image records it).
std::pair<unsigned, unsigned> ptxVersionOf(StringRef Ptx) {
  size_t At = Ptx.find(".version");
  if (At == StringRef::npos)
    return {0, 0};
  StringRef Rest = Ptx.substr(At + 8).ltrim(" \t");
  unsigned Major = 0, Minor = 0;
  StringRef Number = Rest.take_while([](char C) { return isDigit(C) || C == '.'; });
  auto [Ma, Mi] = Number.split('.');
  if (Ma.getAsInteger(10, Major) || Mi.getAsInteger(10, Minor))
    return {0, 0};
  return {Major, Minor};
}

/// One nvJitLink run over In with Args: the linked cubin, or with -ptx the linked PTX. -v (Log) shows
/// nvJitLink's info log.
Expected<std::string> runNvJitLink(const NvJitLinkLibrary &Lib, ArrayRef<std::string> Args, ArrayRef<LtoInput> In,
                                   raw_ostream *Log, StringRef Arch) {
  Expected<NvJitLinkLibrary::Link> L = Lib.create(Args);
  if (!L)
    return L.takeError();
  for (const LtoInput &X : In)
    if (Error E = L->add(X.Kind, X.Bytes, X.Name))
      return std::move(E);
  if (Error E = L->complete())
    return std::move(E);
  std::string Info = L->infoLog();
  if (Log && !StringRef(Info).trim().empty())
    *Log << "ptxlink: " << Arch << ": nvJitLink says: " << StringRef(Info).rtrim() << "\n";
  return llvm::is_contained(Args, "-ptx") ? L->ptx() : L->cubin();
}

/// The inputs as nvJitLink takes them for Arch, in link order: nvcc objects whole (nvJitLink takes each
/// one's LTO-IR, or else its PTX or SASS for the arch, from its fatbinary), other modules as the PTX variant
/// ptxlink selected, printed into Printed (a deque: the inputs point into its strings while more are added).
std::vector<LtoInput> ltoInputs(ArrayRef<InputFile> Inputs, const Target &Arch, std::deque<std::string> &Printed) {
  std::vector<LtoInput> In;
  for (const InputFile &F : Inputs) {
    if (F.Host) {
      // A relocatable cubin (CubinInputs.h) goes in as SASS: nvJitLink optimises the rest across files and
      // links the cubin's code as it is, as nvlink -dlto does.
      const NvJitLinkInput Kind = F.Host->CubinInput    ? NvJitLinkInput::Cubin
                                  : F.Host->FatbinInput ? NvJitLinkInput::Fatbin
                                                        : NvJitLinkInput::Object;
      In.push_back({Kind, F.Host->ObjectBytes, F.Name});
      continue;
    }
    int V = selectVariant(*F.Object, Arch);
    if (V < 0)
      continue; // an empty module; selectVariants reported any other
    std::string &Text = Printed.emplace_back();
    raw_string_ostream OS(Text);
    printModule(F.Object->Variants[V], OS);
    In.push_back({NvJitLinkInput::Ptx, StringRef(Text), F.Name});
  }
  return In;
}

/// The cache key of one nvJitLink link: everything its result depends on (the library's version and file,
/// the options, the inputs' bytes in order; not their names, which only nvJitLink's messages show).
std::string ltoCacheKey(const NvJitLinkLibrary &Lib, ArrayRef<std::string> LinkArgs, bool LtoPtx, ArrayRef<LtoInput> In) {
  std::vector<StringRef> Parts{"ptxlink-lto-1", Lib.identity()};
  for (const std::string &A : LinkArgs) // -split-compile too: it changes the code
    Parts.push_back(A);
  Parts.push_back(LtoPtx ? "ptx" : "");
  std::vector<std::string> Kinds;
  Kinds.reserve(In.size());
  for (const LtoInput &X : In) {
    Kinds.push_back(std::to_string(int(X.Kind)));
    Parts.push_back(Kinds.back());
    Parts.push_back(X.Bytes);
  }
  return CompileCache::key(Parts);
}

/// The device-runtime functions nvJitLink's error log says are missing ("Undefined reference to
/// '__cudaCDP2Malloc' in 'a.o'", from the LTO link's ptxas "Unresolved extern function '...'"), as their
/// users write them; empty if it names none.
std::string deviceRuntimeAskedFor(StringRef Log) {
  std::vector<std::string> Names;
  for (size_t At = Log.find('\''); At != StringRef::npos; At = Log.find('\'', At + 1)) {
    size_t End = Log.find('\'', At + 1);
    if (End == StringRef::npos)
      break;
    StringRef Name = Log.slice(At + 1, End);
    if (isDeviceRuntimeName(Name) && !is_contained(Names, deviceRuntimeApiName(Name)))
      Names.push_back(deviceRuntimeApiName(Name));
    At = End;
  }
  return join(Names, ", ");
}

/// How one arch's link gets the CUDA device runtime library.
enum class RuntimeUse {
  None,     // there is none, or the output is PTX (nvJitLink makes PTX of LTO-IR only)
  Always,   // a PTX input calls it
  IfAsked,  // an input's calls cannot be seen (LTO-IR, SASS): only if nvJitLink names a runtime function
};

/// One arch's link-time optimising link, through the cache: its cubin (and with --lto-ptx its optimised
/// PTX; with --emit ptx only that), or std::nullopt where nvJitLink failed (reported). Runtime: the device
/// runtime library, to the cubin's link only (nvJitLink makes PTX only of LTO-IR: "-ptx requires that all
/// inputs have LTOIR", and the library is SASS), as Use says. nvJitLink links the whole library when given
/// it (a 4.6 KB cubin became 190 KB; nvlink takes only the members used), hence IfAsked: a first link
/// without it, and a second with it where the first names a runtime function it lacks. Stored: set when a
/// result went into the cache.
std::optional<LtoResult> linkArchWithNvJitLink(const LinkOptions &Options, const NvJitLinkLibrary &Lib,
                                               const std::string &Arch, ArrayRef<LtoInput> In,
                                               std::optional<LtoInput> Runtime, RuntimeUse Use,
                                               std::optional<CompileCache> &Cache, bool &Stored,
                                               DiagnosticEngine &Diags, PassTimes &Times) {
  raw_ostream &Log = Diags.stream();
  PassTimes::Scope Timed = Times.scope("lto: nvJitLink", Arch);
  // nvJitLink's split compilation runs the code generation of one link on up to N threads: the count an
  // explicit -j/--threads gives. Not by default: the split changes the code (on bench/gen_lto_program.py's
  // 24 files, -split-compile=2 gave some kernels 13 registers instead of 14), and a link's output must not
  // depend on the machine's core count; without -j the cubin is the one nvcc -dlink -dlto would make.
  std::vector<std::string> LinkArgs{"-arch=" + Arch, "-lto"};
  if (Options.Threads > 1)
    LinkArgs.push_back("-split-compile=" + std::to_string(Options.Threads));
  for (const std::string &X : Options.PtxasOptions)
    LinkArgs.push_back("-Xptxas=" + X);
  // --emit ptx: the optimised PTX is the output, made instead of the cubin (and cached apart from it:
  // the arguments are part of the key); LtoResult::Cubin then holds it.
  const bool PtxOnly = Options.Emit == EmitKind::Ptx;
  const bool LtoPtx = Options.LtoPtx && !PtxOnly;
  if (PtxOnly) {
    LinkArgs.push_back("-ptx");
    Use = RuntimeUse::None;
  }
  if (!Runtime)
    Use = RuntimeUse::None;
  std::vector<LtoInput> Without(In.begin(), In.end()), With = Without;
  if (Use != RuntimeUse::None)
    With.push_back(*Runtime);
  // The input lists to try, in order.
  std::vector<const std::vector<LtoInput> *> Tries;
  if (Use != RuntimeUse::Always)
    Tries.push_back(&Without);
  if (Use != RuntimeUse::None)
    Tries.push_back(&With);

  if (Cache) {
    for (const std::vector<LtoInput> *Inputs : Tries) {
      std::string Key = ltoCacheKey(Lib, LinkArgs, LtoPtx, *Inputs);
      std::optional<std::string> Cubin = Cache->lookup(Key, CompileCache::EntryKind::Link);
      std::optional<std::string> Ptx;
      if (Cubin && LtoPtx)
        Ptx = Cache->lookup(CompileCache::key({Key, "ptx"}), CompileCache::EntryKind::Link);
      if (Cubin && (Ptx || !LtoPtx)) {
        if (Options.Verbose)
          Log << "ptxlink: " << Arch << ": -dlto: nvJitLink's result from the cache\n";
        Timed.rename("lto: nvJitLink (cached)");
        return LtoResult{std::move(*Cubin), Ptx ? std::move(*Ptx) : std::string(), true};
      }
    }
  }

  // One nvJitLink run makes the cubin; the optimised PTX (--lto-ptx) needs a second one with -ptx,
  // which makes PTX instead of a cubin.
  std::optional<LtoResult> R;
  const std::vector<LtoInput> *Used = nullptr;
  for (size_t T = 0; T < Tries.size() && !R; ++T) {
    Used = Tries[T];
    if (Options.Verbose)
      Log << "ptxlink: " << Arch << ": nvJitLink " << join(LinkArgs, " ") << " on " << Used->size() << " inputs\n";
    Expected<std::string> Cubin = runNvJitLink(Lib, LinkArgs, *Used, Options.Verbose ? &Log : nullptr, Arch);
    if (Cubin) {
      R = LtoResult{std::move(*Cubin), "", false};
      break;
    }
    std::string Why = toString(Cubin.takeError());
    if (T + 1 < Tries.size())
      if (std::string Asked = deviceRuntimeAskedFor(Why); !Asked.empty()) {
        if (Options.Verbose)
          Log << "ptxlink: " << Arch << ": -dlto: the program calls the CUDA device runtime (" << Asked
              << "): linking again with libcudadevrt\n";
        continue;
      }
    Diags.error(Arch + ": " + Why, std::vector<DiagSite>(), "nvjitlink-failed");
    return std::nullopt;
  }
  if (LtoPtx) {
    std::vector<std::string> PtxArgs = LinkArgs;
    PtxArgs.push_back("-ptx");
    Expected<std::string> Ptx = runNvJitLink(Lib, PtxArgs, In, nullptr, Arch);
    if (!Ptx) {
      Diags.error(Arch + ": " + toString(Ptx.takeError()), std::vector<DiagSite>(), "nvjitlink-failed");
      return std::nullopt;
    }
    R->Ptx = std::move(*Ptx);
  }
  Timed.stop();
  if (Cache) {
    // A cache that cannot be written costs the next link the optimisation, nothing else.
    std::string Key = ltoCacheKey(Lib, LinkArgs, LtoPtx, *Used);
    Error E = Cache->store(Key, R->Cubin, CompileCache::EntryKind::Link);
    if (!E && LtoPtx)
      E = Cache->store(CompileCache::key({Key, "ptx"}), R->Ptx, CompileCache::EntryKind::Link);
    Stored |= !E;
    if (E) {
      std::string Why = toString(std::move(E));
      if (Options.Verbose)
        Log << "ptxlink: -dlto: cannot store nvJitLink's result in the cache: " << Why << "\n";
    }
  }
  return R;
}

/// The fatbinary's images: per arch its cubin, and with --lto-ptx the optimised PTX for its compute_XX.
std::vector<FatbinImage> ltoImages(ArrayRef<ArchOutput> Outputs, std::vector<std::optional<LtoResult>> &Results,
                                   bool LtoPtx) {
  std::vector<FatbinImage> Images;
  for (size_t I = 0; I < Outputs.size(); ++I) {
    LtoResult &R = *Results[I];
    Target Arch = *parseArch(Outputs[I].Requested);
    FatbinImage Elf;
    Elf.Kind = FatbinKind::Elf;
    Elf.Arch = Arch;
    Elf.VersionMajor = 1;
    Elf.VersionMinor = R.Cubin.size() > 8 ? static_cast<uint8_t>(R.Cubin[8]) : 0;
    Elf.Payload = std::move(R.Cubin);
    Images.push_back(std::move(Elf));
    if (LtoPtx) {
      FatbinImage Ptx;
      Ptx.Kind = FatbinKind::Ptx;
      Ptx.Arch = Arch;
      std::tie(Ptx.VersionMajor, Ptx.VersionMinor) = ptxVersionOf(R.Ptx);
      Ptx.Payload = std::move(R.Ptx);
      Images.push_back(std::move(Ptx));
    }
  }
  return Images;
}

} // namespace

bool writeLtoOutput(const LinkOptions &Options, ArrayRef<InputFile> Inputs, LinkedProgram &Program,
                    DiagnosticEngine &Diags, PassTimes &Times, raw_ostream &Out) {
  // -v lines go where diagnostics go, standard error: standard output is the output's alone (-o -).
  raw_ostream &Log = Diags.stream();
  PassTimes::Scope Loading = Times.scope("lto: load libnvJitLink");
  Expected<NvJitLinkLibrary> Lib = NvJitLinkLibrary::open(Options.NvJitLinkPath);
  Loading.stop();
  if (!Lib) {
    Diags.error(toString(Lib.takeError()), std::vector<DiagSite>(), "no-nvjitlink");
    return false;
  }
  if (Options.Verbose)
    Log << "ptxlink: -dlto: " << Lib->path() << " (nvJitLink " << Lib->version() << ")\n";
  std::optional<CompileCache> Cache;
  if (!Options.NoCache) {
    std::string Dir = Options.CacheDir.empty() ? CompileCache::defaultDirectory() : Options.CacheDir;
    if (!Dir.empty())
      Cache.emplace(Dir, Options.CacheLimit ? Options.CacheLimit : CompileCache::DefaultLimitBytes);
  }

  // nvcc -dlink's nvlink line always ends in -lcudadevrt, and nvlink takes the members used. nvJitLink
  // takes the whole library (186 KB of cubin) when given it, so it gets it only where the program calls it
  // (device-side cudaMalloc, launches from kernels): where a PTX input names a runtime function, and, where
  // nvJitLink alone links an input (LTO-IR, or SASS, with no PTX) whose calls cannot be seen before, when a
  // link without it names a runtime function it lacks (linkArchWithNvJitLink).
  std::vector<Target> Arches;
  for (const ArchOutput &O : Program.Outputs)
    if (std::optional<Target> A = parseArch(O.Requested))
      Arches.push_back(*A);
  const RuntimeUse Use =
      !deviceRuntimeCalled(Inputs).empty() ? RuntimeUse::Always
      : llvm::any_of(Inputs, [&](const InputFile &In) { return linkedByNvJitLinkOnlyForSome(In, Arches); })
          ? RuntimeUse::IfAsked
          : RuntimeUse::None;
  std::unique_ptr<MemoryBuffer> DeviceRuntime;
  std::string RuntimePath;
  if (Use != RuntimeUse::None)
    if (std::string Dir = findDeviceRuntimeDir(Options.LibraryPaths, sys::path::parent_path(Lib->path())); !Dir.empty())
      RuntimePath = (Dir + "/libcudadevrt.a");
  if (const std::string &Path = RuntimePath; !Path.empty()) {
    if (auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false))
      DeviceRuntime = std::move(*Buffer);
    if (Options.Verbose && DeviceRuntime)
      Log << "ptxlink: -dlto: the CUDA device runtime from " << Path << "\n";
  }

  // Per arch, one nvJitLink link (or its cached result).
  std::vector<std::optional<LtoResult>> Results(Program.Outputs.size());
  bool Stored = false; // something new went into the cache: prune it afterwards
  for (size_t I = 0; I < Program.Outputs.size(); ++I) {
    const std::string &Arch = Program.Outputs[I].Requested;
    std::optional<Target> Parsed = parseArch(Arch);
    if (!Parsed || Arch.rfind("sm_", 0) != 0) {
      Diags.error("-dlto makes SASS, for sm_XX architectures; '" + Arch + "' is not one", std::vector<DiagSite>(),
                  "bad-arch");
      continue;
    }
    std::deque<std::string> Printed;
    std::vector<LtoInput> In = ltoInputs(Inputs, *Parsed, Printed);
    std::optional<LtoInput> Runtime;
    if (DeviceRuntime)
      Runtime = LtoInput{NvJitLinkInput::Library, DeviceRuntime->getBuffer(), "libcudadevrt.a"};
    Results[I] = linkArchWithNvJitLink(Options, *Lib, Arch, In, Runtime, Use, Cache, Stored, Diags, Times);
  }
  if (Diags.hasErrors())
    return false;
  if (Cache && Stored)
    Cache->prune();

  if (Options.Emit == EmitKind::Ptx) { // one arch (LinkOptions): nvJitLink's optimised PTX, as it is
    PassTimes::Scope Writing = Times.scope("write output");
    Error E = writeOutput(Options, Out, [&](raw_ostream &OS) {
      OS << Results.front()->Cubin;
      return Error::success();
    });
    if (E) {
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write");
      return false;
    }
    return true;
  }

  // The output. Like nvcc -dlink, the cubins are stored uncompressed unless --compress asks (the driver
  // would decompress them at the first launch).
  PassTimes::Scope Writing = Times.scope("write output");
  FatbinWriteOptions Write;
  Write.Exec = Options.Exec;
  Write.Compression = Options.CompressionGiven ? Options.Compression : FatbinCompression::None;
  Write.CompressElf = Options.CompressionGiven && Write.Compression != FatbinCompression::None;
  if (Options.CompressionLevel) {
    Write.ZstdLevel = Options.CompressionLevel;
    Write.Lz4Level = Options.CompressionLevel;
  } else {
    Write.ZstdLevel = 3;
  }
  std::vector<FatbinImage> Images = ltoImages(Program.Outputs, Results, Options.LtoPtx);
  Error E = Options.Emit == EmitKind::HostObject || Options.Emit == EmitKind::CSource
                ? writeEmbeddedFatbin(Options, Images, Write, Program.ModuleIds, Out)
                : writeOutput(Options, Out, [&](raw_ostream &OS) { return writeFatbin(Images, Write, OS); });
  Writing.stop();
  if (E) {
    Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write");
    return false;
  }
  return true;
}

} // namespace ptxlink
