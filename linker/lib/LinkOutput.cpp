// The output pass of a link (LinkOutput.h): the linked program written as a relocatable object, a PTX
// module, or a fatbinary (PTX images, and cubins with --sass), bare or embedded in a host object or C
// source. Every file is written atomically; the bytes depend only on the linked modules and the options.
#include "InputTextPages.h"
#include "LinkOutput.h"
#include "CompileCache.h"
#include "SassBuild.h"

#include "ptxlink/Fatbin.h"
#include "ptxlink/HostEmbed.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <lz4.h>
#include <zstd.h>
#include <optional>

using namespace llvm;

namespace ptxlink {

namespace {

/// --compress zstd without a level, and the compression of --sass links without --compress: zstd level 3
/// (docs/performance.md: 10x smaller PTX for ~0.4 ms per 100 KB; level 9 is 28% smaller at 4x the time,
/// level 19 twice as small again at 90x).
constexpr int DefaultZstdLevel = 3;

/// How the fatbinary's images are compressed. Without --compress: a PTX-only link stays uncompressed (zstd
/// would make a 10 ms link 50 ms); a link with --sass (seconds of ptxas) compresses its PTX images but not
/// its cubins, as nvcc -dlink leaves its cubin: the CUDA driver (lazy loading, the default since CUDA 12)
/// decompresses a cubin at the kernel's first launch, which on an H100 made that launch about 1.8 ms
/// slower per MB of cubin (cuda-samples cudaTensorCoreGemm, docs/host-link.md "On a GPU"). PTX images are
/// read only when no cubin fits the GPU. An explicit --compress compresses both, as fatbinary
/// --compress-all does.
FatbinWriteOptions fatbinWriteOptions(const LinkOptions &Options) {
  FatbinWriteOptions Write;
  Write.Compression = Options.CompressionGiven ? Options.Compression
                      : Options.Sass           ? FatbinCompression::Zstd
                                               : FatbinCompression::None;
  Write.CompressElf = Options.CompressionGiven && Write.Compression != FatbinCompression::None;
  // nvcc -dlink's choice: a -G cubin compressed (era-bellman-cuda's -G device-link object: 24 MB from
  // nvcc, 217 MB when stored whole), any other stored whole.
  Write.CompressDebugElf = !Options.CompressionGiven;
  Write.ZstdLevel = Options.CompressionLevel ? Options.CompressionLevel : DefaultZstdLevel;
  Write.Lz4Level = Options.CompressionLevel;
  Write.Exec = Options.Exec;
  return Write;
}

/// About the size of Module's printed text, to print it into one buffer of that size: the text is mostly
/// section contents copied verbatim; debug bytes grow about fourfold as `.b8` lists.
size_t printedSizeEstimate(const ModuleVariant &Module) {
  size_t Estimate = 4096;
  for (const Section &S : Module.Sections)
    Estimate += S.Kind == SectionKind::Debug ? S.contents().size() * 4 + 16 * size_t(S.RelocCount)
                                              : S.contents().size() + S.contents().size() / 8 + 64;
  return Estimate;
}

} // namespace

/// Writes the output file through Write, atomically, or Write's bytes to Stdout for `-o -`.
Error writeOutput(const LinkOptions &O, raw_ostream &Stdout, const std::function<Error(raw_ostream &)> &Write) {
  if (O.Output == "-")
    return Write(Stdout);
  // Nothing is lost by removing an earlier output (a failed link removes it anyway), and renaming over
  // it would wait for ext4 to write the new one to disk: a quarter of a large link.
  return writeFileAtomically(O.Output, Write, EarlierFile::RemovedFirst);
}

Error writeEmbeddedFatbin(const LinkOptions &O, ArrayRef<FatbinImage> Images, const FatbinWriteOptions &Write,
                          ArrayRef<std::string> ModuleIds, raw_ostream &Stdout) {
  std::string Fatbin;
  raw_string_ostream FatbinOS(Fatbin);
  if (Error E = writeFatbin(Images, Write, FatbinOS))
    return E;
  if (O.Emit == EmitKind::HostObject)
    return writeOutput(O, Stdout, [&](raw_ostream &OS) { return writeDeviceLinkObject(Fatbin, ModuleIds, OS); });
  return writeOutput(O, Stdout, [&](raw_ostream &OS) {
    writeEmbeddedFatbinSource(Fatbin, OS);
    return Error::success();
  });
}

namespace {

/// What buildSass is told: the cache, the options given to ptxas and nvlink, what is shown.
SassSettings sassSettings(const LinkOptions &Options) {
  SassSettings Settings;
  if (!Options.NoCache)
    Settings.CacheDir = Options.CacheDir.empty() ? CompileCache::defaultDirectory() : Options.CacheDir;
  Settings.CacheLimit = Options.CacheLimit ? Options.CacheLimit : CompileCache::DefaultLimitBytes;
  Settings.SaveTemps = Options.SaveTemps;
  Settings.Verbose = Options.Verbose;
  Settings.PtxasOptions = Options.PtxasOptions;
  Settings.WriteUnits = Options.WriteSassUnits;
  Settings.UseUnits = Options.UseSassUnits;
  Settings.RemoteUrl = Options.RemoteCache;
  if (Settings.RemoteUrl.empty())
    if (auto Env = sys::Process::GetEnv("PTXLINK_REMOTE_CACHE"))
      Settings.RemoteUrl = *Env;
  if (auto Header = sys::Process::GetEnv("PTXLINK_REMOTE_CACHE_HEADER"))
    Settings.RemoteHeader = *Header;
  Settings.NvlinkOptions = Options.NvlinkOptions;
  Settings.KeepDir = Options.KeepDir;
  Settings.Exec = Options.Exec;
  // nvcc -Xptxas -v shows ptxas's per-kernel lines as --resource-usage does.
  Settings.ResourceUsage = Options.ResourceUsage || llvm::is_contained(Options.PtxasOptions, "-v") ||
                           llvm::is_contained(Options.PtxasOptions, "--verbose");
  Settings.Progress = Options.Progress && !Options.Json && sys::Process::StandardErrIsDisplayed();
  return Settings;
}

/// The fatbinary of a link: its PTX images (printed and compressed beside ptxas with --sass), its cubins
/// (buildSass), then the container, bare or embedded. The steps share the per-output state below.
class FatbinOutput {
public:
  FatbinOutput(const LinkOptions &Options, LinkedProgram &Program, DiagnosticEngine &Diags, PassTimes &Times)
      : Options(Options), Program(Program), Outputs(Program.Outputs), Diags(Diags), Times(Times),
        WriteOptions(fatbinWriteOptions(Options)), Texts(Outputs.size()), Layouts(Outputs.size()),
        PtxImages(Outputs.size()), PackErrors(Outputs.size()), Background(*Options.Exec, Diags.stream()) {}
  ~FatbinOutput() { Packer.wait(); }
  /// False if it failed (reported) or stopped before the output (--write-sass-units; Done then says
  /// whether that went well).
  bool prepare(bool &Done);
  llvm::Error write(raw_ostream &Out);

private:
  bool compiledWhole(size_t I) const { return Tools && Program.UnitsOf[Outputs[I].Variant].empty(); }
  void printWholeModules();
  void planPtxImages();
  void startPacking();
  bool buildCubins();
  FatbinImage cubinImage(size_t I, std::string Cubin) const;

  const LinkOptions &Options;
  LinkedProgram &Program;
  std::vector<ArchOutput> &Outputs;
  DiagnosticEngine &Diags;
  PassTimes &Times;
  FatbinWriteOptions WriteOptions;
  std::optional<SassToolchain> Tools;
  std::vector<std::string> Texts;                     // the modules compiled whole, printed for ptxas
  std::vector<PrintedLayout> Layouts;                 // where their sections went
  std::vector<std::optional<FatbinImage>> PtxImages;  // none where an earlier arch's image serves
  std::vector<std::string> PackErrors;
  Executor::Task Packer;
  std::vector<char> SassFor;                          // which outputs get a cubin
  std::vector<std::optional<std::string>> Cubins;     // per output
  SassBackground Background;
};

/// With --sass, the PTX image of an arch compiled whole is printed first (in parallel: independent), for
/// ptxas and then the container. Otherwise writeFatbin streams each printed module straight into the
/// output, so the text (as large as the program) is never held in memory.
void FatbinOutput::printWholeModules() {
  ObjectFile &Linked = Program.Linked;
  Options.Exec->parallelFor(0, Outputs.size(), [&](size_t I) {
    if (!compiledWhole(I))
      return;
    // One buffer of about the final size.
    Texts[I].reserve(printedSizeEstimate(Linked.Variants[Outputs[I].Variant]));
    raw_string_ostream OS(Texts[I]);
    printModule(Linked.Variants[Outputs[I].Variant], Outputs[I].Target, OS, Layouts[I]);
  });
}

/// The PTX images. With --sass they are known before ptxas runs: their compression (~10 ms per MB of PTX at
/// zstd:3), as the printing of a per-module link's image, then happens beside ptxas and nvlink
/// (startPacking). The image of an arch compiled whole gets its text, which ptxas reads, after.
void FatbinOutput::planPtxImages() {
  for (size_t I = 0; I < Outputs.size(); ++I) {
    const ModuleVariant &Module = Program.Linked.Variants[Outputs[I].Variant];
    const TargetInfo &Target = Outputs[I].Target;
    // Two arches whose inputs' PTX version cannot name them (sm_100 and sm_120 linking PTX ISA 8.0)
    // print the same module for the same older target: one PTX image serves both.
    bool SamePtxAsBefore = llvm::any_of(llvm::ArrayRef(Outputs).take_front(I), [&](const ArchOutput &Earlier) {
      return Earlier.Variant == Outputs[I].Variant && Earlier.Target.Arch == Target.Arch &&
             Earlier.Target.VersionMajor == Target.VersionMajor && Earlier.Target.VersionMinor == Target.VersionMinor;
    });
    // -gencode/-code name the PTX images to make (compute_XX), as to nvcc: -arch=compute_75
    // -code=sm_75,sm_80,compute_75 asks for SASS for three arches and the compute_75 PTX alone.
    const bool Asked = !Options.CodesGiven || is_contained(Options.PtxArches, Outputs[I].Requested);
    if (SamePtxAsBefore || Program.SassOnly || !Asked)
      continue;
    FatbinImage &Img = PtxImages[I].emplace();
    if (auto Spec = parseArch(Target.Arch))
      Img.Arch = *Spec;
    Img.Is64Bit = Target.AddressSize == 64;
    Img.Debug = Target.Debug;
    Img.Kind = FatbinKind::Ptx;
    Img.VersionMajor = Target.VersionMajor;
    Img.VersionMinor = Target.VersionMinor;
    Img.Options = Outputs[I].JitOptions;
    if (!compiledWhole(I))
      Img.PayloadWriter = [&Module, &Target, Text = Program.InputText](GatherStream &OS) {
        printModule(Module, Target, OS, Text ? Text->access() : InputTextAccess());
      };
  }
}

/// The compressed PTX image for Img's printed payload from the compile cache, or std::nullopt. The key is
/// the text, the scheme and level, and the compressor's version (another version may compress the same
/// text into other bytes).
std::optional<FatbinImage::PackedPayload> cachedPtxImage(const CompileCache &Cache, StringRef Text,
                                                         const FatbinWriteOptions &Write, std::string &Key) {
  const FatbinCompression C = Write.Compression;
  const int Level = C == FatbinCompression::Lz4 ? Write.Lz4Level : Write.ZstdLevel;
  const std::string Settings = fatbinCompressionName(C).str() + " " + std::to_string(Level) + " " +
                               (C == FatbinCompression::Lz4 ? LZ4_versionString() : ZSTD_versionString());
  Key = CompileCache::key({"ptxlink-ptx-image-1", Settings, Text});
  std::optional<std::string> Hit = Cache.lookup(Key, CompileCache::EntryKind::PtxImage);
  if (!Hit)
    return std::nullopt;
  // What packFatbinImage compresses: the text up to an embedded NUL, and a terminating one.
  const size_t Length = std::min(Text.size(), Text.find('\0'));
  return FatbinImage::PackedPayload{std::move(*Hit), Length + 1, C};
}

void FatbinOutput::startPacking() {
  if (!Tools || WriteOptions.Compression == FatbinCompression::None)
    return;
  std::optional<CompileCache> Cache;
  if (!Options.NoCache)
    if (SassSettings Settings = sassSettings(Options); !Settings.CacheDir.empty())
      Cache.emplace(Settings.CacheDir, Settings.CacheLimit);
  Packer = Options.Exec->async([this, Cache = std::move(Cache)] {
    for (size_t I = 0; I < Outputs.size(); ++I)
      if (PtxImages[I] && !compiledWhole(I)) {
        // Printed here into one buffer of about its size (and its terminating NUL), rather than by
        // packFatbinImage into a string that grows: a 5 MB image was copied about once more that way,
        // into pages touched for the first time.
        FatbinImage &Img = *PtxImages[I];
        Img.Payload.reserve(printedSizeEstimate(Program.Linked.Variants[Outputs[I].Variant]) + 1);
        StringGatherStream OS(Img.Payload);
        Img.PayloadWriter(OS);
        Img.PayloadWriter = nullptr;
        // A relink that changed nothing prints the same image: its compressed bytes are in the cache.
        std::string Key;
        if (Cache)
          if (auto Packed = cachedPtxImage(*Cache, Img.Payload, WriteOptions, Key)) {
            Img.Packed = std::move(*Packed);
            std::string().swap(Img.Payload);
            continue;
          }
        if (Error PE = packFatbinImage(Img, WriteOptions))
          PackErrors[I] = toString(std::move(PE));
        else if (Cache && Img.Packed) // a cache that cannot take it: compressed again next time
          consumeError(Cache->store(Key, Img.Packed->Bytes, CompileCache::EntryKind::PtxImage));
      }
  });
}

/// --sass: a cubin per output that gets one (buildSass). -gencode's sm_XX codes name the architectures
/// that get SASS (code=[sm_80,compute_80] beside code=compute_90: a cubin for sm_80 only, as nvcc makes);
/// otherwise every linked one does. False where only the units were written (--write-sass-units).
bool FatbinOutput::buildCubins() {
  SassFor.assign(Outputs.size(), Tools ? 1 : 0);
  if (!Tools)
    return true;
  if (!Options.SassArches.empty())
    for (size_t I = 0; I < Outputs.size(); ++I)
      SassFor[I] = is_contained(Options.SassArches, Outputs[I].Requested);
  std::vector<SassRequest> Requests;
  std::vector<size_t> OutputOf; // the output each request is for
  // The device runtime's module, which a device-link object registers too (SassRequest::LibraryModuleIds).
  const bool Registers = Options.Emit == EmitKind::HostObject || Options.Emit == EmitKind::CSource;
  std::vector<std::vector<std::string>> LibraryIds(Outputs.size());
  for (size_t I = 0; I < Outputs.size(); ++I) {
    if (!SassFor[I])
      continue;
    OutputOf.push_back(I);
    SassRequest Q;
    size_t V = Outputs[I].Variant;
    Q.Arch = Outputs[I].Requested;
    Q.Target = Outputs[I].Target;
    Q.Whole = &Program.Linked.Variants[V];
    if (!compiledWhole(I))
      Q.Units = &Program.UnitsOf[V];
    Q.WholeText = Texts[I];
    Q.WholeLayout = &Layouts[I];
    Q.DeviceRuntime = Program.DeviceRuntimeOf[V];
    if (Registers)
      Q.LibraryModuleIds = &LibraryIds[I];
    Requests.push_back(std::move(Q));
  }
  SassSettings Settings = sassSettings(Options);
  std::vector<std::optional<std::string>> Built =
      buildSass(Requests, Settings, *Tools, Diags, Times, Diags.stream(), Background);
  Cubins.resize(Outputs.size());
  for (size_t R = 0; R < Built.size() && R < OutputOf.size(); ++R)
    Cubins[OutputOf[R]] = std::move(Built[R]);
  // After the inputs' modules, as nvlink lists them; once, though every arch's nvlink names them.
  for (const std::vector<std::string> &Ids : LibraryIds)
    for (const std::string &Id : Ids)
      if (!is_contained(Program.ModuleIds, Id))
        Program.ModuleIds.push_back(Id);
  return Settings.WriteUnits.empty(); // else a build system compiles the units, and a later link joins them
}

bool FatbinOutput::prepare(bool &Done) {
  Done = false;
  if (Options.Sass) {
    // Looked for beside the link since it began (LinkDriver.cpp): `ptxas --version` is a process.
    PassTimes::Scope Finding = Times.scope("sass: find ptxas");
    auto T = Program.Toolchain.valid() ? Program.Toolchain.get() : findSassToolchain(Options.LibraryPaths);
    Finding.stop();
    if (!T) {
      Diags.error(toString(T.takeError()), std::vector<DiagSite>(), "no-ptxas");
      return false;
    }
    Tools = std::move(*T);
  }
  printWholeModules();
  planPtxImages();
  startPacking();
  if (!buildCubins()) {
    Done = !Diags.hasErrors();
    return false;
  }
  return true;
}

FatbinImage FatbinOutput::cubinImage(size_t I, std::string Cubin) const {
  const TargetInfo &Target = Outputs[I].Target;
  FatbinImage Elf;
  if (auto Requested = parseArch(Outputs[I].Requested))
    Elf.Arch = *Requested;
  else if (auto Spec = parseArch(Target.Arch))
    Elf.Arch = *Spec;
  Elf.Is64Bit = Target.AddressSize == 64;
  Elf.Debug = Target.Debug;
  Elf.Kind = FatbinKind::Elf;
  Elf.VersionMajor = 1;
  Elf.VersionMinor = Cubin.size() > 8 ? static_cast<uint8_t>(Cubin[8]) : 0;
  Elf.Payload = std::move(Cubin);
  return Elf;
}

/// The container, once the PTX images are packed: per output its cubin, then its PTX image. An error
/// already reported comes back as a success value with Diags holding errors.
Error FatbinOutput::write(raw_ostream &Out) {
  {
    PassTimes::Scope Waiting = Times.scope("wait for the PTX images' compression");
    Packer.wait();
  }
  // Started after the wait, so that --time does not count the wait twice.
  PassTimes::Scope FatbinTimed = Times.scope("write fatbinary");
  // The background work's notes (-v: a cache entry it could not store) go to the diagnostics' stream
  // (standard error: standard output is the output's, with -o -), on every way out, a failed link's too,
  // after the output.
  auto FinishBackground = make_scope_exit([&] { Background.finish(Options.Verbose ? &Diags.stream() : nullptr); });
  for (const std::string &PE : PackErrors)
    if (!PE.empty())
      return createStringError(inconvertibleErrorCode(), PE);
  std::vector<FatbinImage> Images;
  for (size_t I = 0; I < Outputs.size(); ++I) {
    if (SassFor[I] && Cubins[I]) // none: reported
      Images.push_back(cubinImage(I, std::move(*Cubins[I])));
    if (!PtxImages[I])
      continue;
    if (compiledWhole(I))
      PtxImages[I]->Payload = std::move(Texts[I]);
    Images.push_back(std::move(*PtxImages[I]));
  }
  if (Diags.hasErrors())
    return Error::success();
  if (Options.Emit == EmitKind::HostObject || Options.Emit == EmitKind::CSource) // built in memory first
    return writeEmbeddedFatbin(Options, Images, WriteOptions, Program.ModuleIds, Out);
  return writeOutput(Options, Out, [&](raw_ostream &OS) {
    FatbinWriteOptions Write = WriteOptions;
    // writeFileAtomically writes through a GatheringFdStream (ObjectFormat.h): a fresh temporary file.
    if (Options.Output != "-")
      Write.PatchableFile = static_cast<GatheringFdStream *>(&OS);
    return writeFatbin(Images, Write, OS);
  });
}

} // namespace

bool writeLinkOutput(const LinkOptions &Options, LinkedProgram &Program, DiagnosticEngine &Diags, PassTimes &Times,
                     raw_ostream &Out) {
  ObjectFile &Linked = Program.Linked;
  PassTimes::Scope Writing = Times.scope("write output");
  Error E = Error::success();
  (void)static_cast<bool>(E); // a success value, checked
  if (Options.Emit == EmitKind::Object) {
    E = writeOutput(Options, Out, [&](raw_ostream &OS) { return writeObject(Linked, OS); });
  } else if (Options.Emit == EmitKind::Ptx) {
    E = writeOutput(Options, Out, [&](raw_ostream &OS) {
      const ModuleVariant &Module = Linked.Variants.front();
      if (Program.InputText)
        printModule(Module, Module.Target, OS, Program.InputText->access());
      else
        printModule(Module, OS);
      return Error::success();
    });
  } else {
    FatbinOutput Fatbin(Options, Program, Diags, Times);
    bool Done = false;
    if (!Fatbin.prepare(Done))
      return Done;
    E = Fatbin.write(Out);
    if (!E && Diags.hasErrors())
      return false;
  }
  Writing.stop();
  if (E) {
    Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write"); // names the output file
    return false;
  }
  return true;
}

} // namespace ptxlink
