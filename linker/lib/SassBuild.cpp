// Code generation for `ptxlink --sass`: per-module ptxas runs through the compile cache, joined by
// nvlink, or one whole-program ptxas run (see SassBuild.h).
//
// Order of work (the stages of class SassBuild below), for every arch at once so that the pool stays
// full: plan the jobs, print each unit and hash it (in parallel), look it up in the caches, compile the
// misses (in parallel, --threads at a time, each stored as soon as made), run nvlink once per arch over
// that arch's cubins, and leave the upkeep to the background. Everything ptxas and nvlink are given lives
// in one temporary folder that goes away unless --save-temps.
#include "SassBuild.h"

#include "CompileCache.h"
#include "PtxasMessages.h"
#include "RemoteCache.h"
#include "SassReuse.h"

#include "ptxlink/Cubin.h"
#include "ptxlink/Executor.h"
#include "ptxlink/LittleEndian.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/TemporaryFolder.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <mutex>

using namespace llvm;

namespace ptxlink {

namespace {

/// Runs a program with stdout and stderr captured into LogPath; returns the exit status (-1 if it could
/// not be started, with the reason in Output).
int runTool(StringRef Program, ArrayRef<StringRef> Argv, StringRef LogPath, std::string &Output) {
  std::optional<StringRef> Redirects[] = {StringRef(""), LogPath, LogPath};
  std::string ErrMsg;
  int RC = sys::ExecuteAndWait(Program, Argv, std::nullopt, Redirects, 0, 0, &ErrMsg);
  if (auto B = MemoryBuffer::getFile(LogPath))
    Output = (*B)->getBuffer().rtrim().str();
  if (RC < 0 && Output.empty())
    Output = ErrMsg;
  return RC;
}

/// A file name made of the letters of Name that are safe anywhere ("libm.a(x.o)" -> "libm.a_x.o_").
std::string safeFileName(StringRef Name) {
  std::string S;
  for (char C : sys::path::filename(Name).take_front(48))
    S += isAlnum(C) || C == '.' || C == '-' || C == '_' ? C : '_';
  return S.empty() ? "module" : S;
}

/// Removes a temporary folder and the files in it.
void removeFolder(StringRef Folder) {
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::directory_iterator F(Folder, EC), End; !EC && F != End; F.increment(EC))
    Files.push_back(F->path());
  for (const std::string &F : Files)
    sys::fs::remove(F);
  sys::fs::remove(Folder);
}

/// A tool's result as the compile cache keeps it: the cubin, then what the tool said, then that text's
/// length (8 bytes, little-endian). A link served from the cache says what ptxas and nvlink said when they
/// ran, as a cold link does (and fails alike under -Werror); without it their warnings showed on a cold
/// link only. A unit's entry holds ptxas's output; nvlink's holds saidList's record of what nvlink and
/// ptxas (for each unit) said.
std::string saidTail(StringRef Said) {
  std::string Tail = Said.str();
  appendLE<uint64_t>(Tail, Said.size());
  return Tail;
}

/// An entry's cubin and what the tool said; std::nullopt if it is not that shape.
std::optional<std::pair<StringRef, StringRef>> splitSaid(StringRef Payload) {
  if (Payload.size() < 8)
    return std::nullopt;
  uint64_t N = support::endian::read64le(Payload.end() - 8);
  if (N > Payload.size() - 8)
    return std::nullopt;
  StringRef Body = Payload.drop_back(8);
  return std::make_pair(Body.drop_back(N), Body.take_back(N));
}

/// A list of texts, each its length (8 bytes, little-endian; all ones: not known) and its bytes.
constexpr uint64_t NotKnown = ~uint64_t(0);
std::string encodeSaid(ArrayRef<std::optional<std::string>> Texts) {
  std::string S;
  for (const std::optional<std::string> &T : Texts) {
    appendLE<uint64_t>(S, T ? T->size() : NotKnown);
    if (T)
      S += *T;
  }
  return S;
}

/// encodeSaid's inverse; std::nullopt if S is not that shape.
std::optional<std::vector<std::optional<std::string>>> decodeSaid(StringRef S) {
  std::vector<std::optional<std::string>> Texts;
  while (!S.empty()) {
    if (S.size() < 8)
      return std::nullopt;
    uint64_t N = support::endian::read64le(S.data());
    S = S.drop_front(8);
    if (N == NotKnown) {
      Texts.push_back(std::nullopt);
      continue;
    }
    if (N > S.size())
      return std::nullopt;
    Texts.push_back(S.take_front(N).str());
    S = S.drop_front(N);
  }
  return Texts;
}


/// One ptxas run: a unit (or the whole module) for one arch.
struct Job {
  size_t Request = 0;
  std::string Name;            // display: "b.o" or "the linked module"
  const ModuleVariant *Module = nullptr;
  std::string OwnText;         // the printed unit (per-module jobs)
  StringRef Text;              // what ptxas compiles
  PrintedLayout OwnLayout;
  const PrintedLayout *Layout = nullptr;
  bool Relocatable = true;     // ptxas -c
  bool Debug = false;          // ptxas -g, `.target ..., debug` (a -G link: the units with DWARF)
  std::string Key;             // cache key
  std::string Compiled;        // the cubin ptxas made
  std::optional<CompileCache::Entry> Cached; // or the cache's entry (its verified bytes, in memory)
  bool FromCache = false;
  bool FromUnits = false;      // compiled by a build system (--use-sass-units)
  bool FromRemote = false;     // fetched (remote cache, --use-sass-units): its bytes in Compiled if not in the cache
  const CodegenUnit *Unit = nullptr;
  // The input's own cubin, which nvlink takes instead of compiling the unit (SassReuse.h), or why not.
  bool FromInput = false;
  std::string InputCubin;
  std::string ReuseNote;
  bool Failed = false;
  int Exit = 0;
  std::string Output;          // what ptxas printed (now, or when it compiled the cubin taken from the cache)
  std::string PtxPath, CubinPath;

  StringRef cubin() const { return FromInput ? StringRef(InputCubin) : Cached ? Cached->Payload : StringRef(Compiled); }
};

/// The ptxas options J is compiled with: the link's, or where it gives none, those its module's object
/// recorded (CodegenUnit::RecordedPtxasOptions: -maxrregcount, -lineinfo, -Xptxas given to nvcc -dc).
const std::vector<std::string> &ptxasOptionsOf(const Job &J, const SassSettings &Settings) {
  if (!Settings.PtxasOptions.empty() || !J.Unit)
    return Settings.PtxasOptions;
  return J.Unit->RecordedPtxasOptions;
}

/// What became of the entries a link tried to store: a cache that cannot be written (a full disk, a
/// read-only folder) is said once, and the link goes on without it.
struct CacheWrites {
  std::mutex M;
  std::string FirstError;
  size_t Failed = 0, Stored = 0;
};

/// The one-line progress display: "ptxlink: SASS: 12/100 compiled, 80 from cache, 88 remaining, 9 s elapsed,
/// about 66 s left". Redrawn
/// at most ten times a second; erased when done.
class Progress {
public:
  Progress(bool Enabled, size_t Total, size_t Cached, raw_ostream &OS)
      : Enabled(Enabled), Total(Total), Cached(Cached), OS(OS), Start(std::chrono::steady_clock::now()) {}
  void step() {
    size_t N = ++Done;
    if (!Enabled)
      return;
    std::lock_guard<std::mutex> Lock(M);
    auto Now = std::chrono::steady_clock::now();
    if (N != Total && Now - Last < std::chrono::milliseconds(100))
      return;
    Last = Now;
    // Elapsed time and an estimate of what remains, at the rate so far (units vary in size: a guide only).
    double Elapsed = std::chrono::duration<double>(Now - Start).count();
    double Remaining = N ? Elapsed / double(N) * double(Total - N) : 0;
    OS << "\rptxlink: SASS: " << N << '/' << Total << " compiled, " << Cached << " from cache, " << (Total - N)
           << " remaining, " << format("%.0f", Elapsed) << " s elapsed";
    if (N != Total)
      OS << ", about " << format("%.0f", Remaining) << " s left";
    OS << "\x1b[K";
    OS.flush();
    Drawn = true;
  }
  void finish() {
    if (Drawn) {
      OS << "\r\x1b[K";
      OS.flush();
    }
  }

private:
  bool Enabled;
  size_t Total, Cached;
  raw_ostream &OS; // the diagnostics' stream (standard error for the tool)
  std::atomic<size_t> Done{0};
  std::mutex M;
  std::chrono::steady_clock::time_point Start, Last{};
  bool Drawn = false;
};

/// The module ids in nvlink's --register-link-binaries file that belong to library members, not to the
/// cubins it was given: nvlink names a cubin given by path after the path, each character that is no
/// letter or digit made '_' (`/tmp/x/0-k.o-sm_80.cubin` -> `_tmp_x_0_k_o_sm_80_cubin`), and a library
/// member that nvcc compiled by its own module id. A file that cannot be read gives none: the object then
/// lacks a registration nvcc's has, as before this was read.
std::vector<std::string> libraryModuleIds(StringRef RegisterFile, ArrayRef<size_t> JobsOfRequest, ArrayRef<Job> Jobs) {
  std::vector<std::string> Ids;
  auto Text = MemoryBuffer::getFile(RegisterFile);
  if (!Text)
    return Ids;
  auto PathId = [](StringRef Path) {
    std::string Id(Path);
    for (char &C : Id)
      if (!isAlnum(C))
        C = '_';
    return Id;
  };
  StringRef Rest = (*Text)->getBuffer();
  while (!Rest.empty()) {
    StringRef Line;
    std::tie(Line, Rest) = Rest.split('\n');
    Line = Line.trim();
    if (!Line.consume_front("DEFINE_REGISTER_FUNC(") || !Line.consume_back(")"))
      continue;
    bool Own = any_of(JobsOfRequest, [&](size_t I) { return PathId(Jobs[I].CubinPath) == Line; });
    if (!Own)
      Ids.push_back(Line.str());
  }
  return Ids;
}

} // namespace

std::string deviceRuntimeApiName(StringRef Name) {
  // nvcc 12+ writes the runtime API calls of device code as `__cudaCDP2<Api>` (cudaMalloc ->
  // __cudaCDP2Malloc, cudaLaunchDevice -> __cudaCDP2LaunchDevice); older ones call the API names themselves.
  if (Name.consume_front("__cudaCDP2"))
    return ("cuda" + Name).str();
  return Name.str();
}

bool isDeviceRuntimeLaunch(StringRef Name) {
  StringRef Api = Name;
  Api.consume_front("__cudaCDP2");
  Api.consume_front("cuda");
  return Api.starts_with("GetParameterBuffer") || Api.starts_with("LaunchDevice") || Api.starts_with("Launch");
}

bool isDeviceRuntimeName(StringRef Name) {
  return Name.starts_with("__cudaCDP") || Name.starts_with("cudaGetParameterBuffer") ||
         Name.starts_with("cudaLaunchDevice") || Name == "cudaDeviceSynchronize" || Name.starts_with("__cudaCG") ||
         Name == "cudaCGGetIntrinsicHandle" || Name == "cudaCGSynchronize" || Name == "cudaCGSynchronizeGrid";
}

std::string deviceRuntimeCalled(ArrayRef<InputFile> Inputs) {
  std::vector<std::string> Names;
  for (const InputFile &In : Inputs) {
    if (!In.Object)
      continue;
    for (const ModuleVariant &M : In.Object->Variants)
      for (const Symbol &S : M.Symbols) {
        if (S.Bind != Binding::Undefined || !isDeviceRuntimeName(S.name()))
          continue;
        std::string Name = deviceRuntimeApiName(S.name());
        if (!is_contained(Names, Name))
          Names.push_back(Name);
      }
  }
  std::string Out;
  for (size_t I = 0; I < Names.size() && I < 4; ++I)
    Out += (I ? ", " : "") + Names[I];
  if (Names.size() > 4)
    Out += ", ...";
  return Out;
}

// The toolkit root is not always beside ptxas: distributions and containers put small wrapper scripts in
// /usr/bin or /usr/local/bin (`exec /usr/local/cuda-13.0/bin/ptxas "$@"`), which no symlink resolution sees
// through; hence the environment and /usr/local/cuda after it.
std::string findDeviceRuntimeDir(ArrayRef<std::string> LibraryPaths, StringRef ToolkitDir) {
  auto Holds = [](StringRef Dir) {
    SmallString<256> Lib(Dir);
    sys::path::append(Lib, "libcudadevrt.a");
    return sys::fs::exists(Lib);
  };
  for (const std::string &Dir : LibraryPaths)
    if (Holds(Dir))
      return Dir;
  std::vector<std::string> Roots{sys::path::parent_path(ToolkitDir).str()};
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto V = sys::Process::GetEnv(Var))
      Roots.push_back(*V);
  Roots.push_back("/usr/local/cuda");
  for (const std::string &Root : Roots) {
    if (Root.empty())
      continue;
    for (StringRef Sub : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"}) {
      SmallString<256> D(Root);
      sys::path::append(D, Sub);
      if (Holds(D))
        return std::string(D);
    }
  }
  return "";
}

Expected<SassToolchain> findSassToolchain(ArrayRef<std::string> LibraryPaths) {
  SassToolchain T;
  if (auto P = findPtxas())
    T.Ptxas = *P;
  if (T.Ptxas.empty())
    return createStringError(inconvertibleErrorCode(), "--sass needs ptxas, which is neither on PATH nor in $CUDA_HOME/bin");
  // The toolkit's folder: through symlinks (/usr/bin/ptxas -> /usr/local/cuda-13.0/bin/ptxas).
  SmallString<256> Real;
  if (sys::fs::real_path(T.Ptxas, Real))
    Real = T.Ptxas;
  StringRef Bin = sys::path::parent_path(Real);
  SmallString<256> Nvlink(Bin);
  sys::path::append(Nvlink, "nvlink");
  T.Nvlink = sys::fs::can_execute(Nvlink) ? std::string(Nvlink) : "";
  T.LibDir = findDeviceRuntimeDir(LibraryPaths, Bin);
  SmallString<128> Log;
  if (auto EC = sys::fs::createTemporaryFile("ptxlink-ptxas-version", "txt", Log))
    return createStringError(EC, "cannot create a temporary file");
  sys::RemoveFileOnSignal(Log);
  auto Remove = make_scope_exit([&] {
    sys::fs::remove(Log);
    sys::DontRemoveFileOnSignal(Log);
  });
  StringRef Argv[] = {T.Ptxas, "--version"};
  if (int RC = runTool(T.Ptxas, Argv, Log, T.Version); RC != 0)
    return createStringError(inconvertibleErrorCode(), "cannot run " + T.Ptxas + " --version (exit " + std::to_string(RC) + ")");
  // An nvlink that cannot say its version keeps an empty one: a link that needs it reports its failure.
  StringRef NvlinkArgv[] = {T.Nvlink, "--version"};
  if (!T.Nvlink.empty() && runTool(T.Nvlink, NvlinkArgv, Log, T.NvlinkVersion) != 0)
    T.NvlinkVersion.clear();
  return T;
}

/// --write-sass-units: each unit to compile as DIR/<key>.ptx, with units.txt (key, arch, ptxas options,
/// module) and build.ninja (one ptxas action per unit, DIR/<key>.cubin), for a build system to compile
/// them as actions of its own; `--use-sass-units DIR` then joins them. Units the inputs' SASS stands for
/// are not written (the joining link takes them from the inputs again).
static void writeUnits(StringRef Dir, ArrayRef<Job> Jobs, ArrayRef<SassRequest> Requests, const SassSettings &Settings,
                       const SassToolchain &Tools, DiagnosticEngine &Diags) {
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    Diags.error("cannot create " + Dir + ": " + EC.message(), std::vector<DiagSite>(), "cannot-write");
    return;
  }
  std::string Manifest, Ninja = "# Written by ptxlink --write-sass-units: one ptxas run per unit of a --sass link.\n"
                                "# `ninja -f build.ninja` here, then the same link with --use-sass-units on this folder.\n";
  Ninja += "ptxas = " + Tools.Ptxas + "\nrule ptxas\n  command = $ptxas $flags $in -o $out\n  description = ptxas $in\n";
  std::vector<std::string> Written;
  for (const Job &J : Jobs) {
    if (J.FromInput || llvm::is_contained(Written, J.Key))
      continue;
    Written.push_back(J.Key);
    std::string Flags = "-arch=" + Requests[J.Request].Arch + (J.Relocatable ? " -c" : "") + (J.Debug ? " -g" : "");
    for (const std::string &O : ptxasOptionsOf(J, Settings))
      Flags += " " + O;
    Error E = writeFileAtomically((Dir + "/" + J.Key + ".ptx").str(), [&](raw_ostream &OS) {
      OS << J.Text;
      return Error::success();
    });
    if (E) {
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write");
      return;
    }
    Manifest += J.Key + " " + Requests[J.Request].Arch + " " + Flags + " # " + J.Name + "\n";
    Ninja += "build " + J.Key + ".cubin: ptxas " + J.Key + ".ptx\n  flags = " + Flags + "\n";
  }
  // A plain pair, not a structured binding: clang 14 (the fuzz build's) cannot capture one in a lambda.
  for (const std::pair<StringRef, StringRef> &File :
       {std::pair<StringRef, StringRef>{"units.txt", Manifest}, {"build.ninja", Ninja}})
    if (Error E = writeFileAtomically((Dir + "/" + File.first).str(), [&](raw_ostream &OS) {
          OS << File.second;
          return Error::success();
        }))
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write");
}

/// --use-sass-units: the cubin a build system compiled for Key (DIR/<key>.cubin), std::nullopt if there is
/// none, an error if it is not one the link may take (not a cubin, or another ptxas's).
static Expected<std::optional<std::string>> compiledUnit(StringRef Dir, StringRef Key, StringRef PtxasVersion) {
  std::string Path = (Dir + "/" + Key + ".cubin").str();
  if (!sys::fs::exists(Path))
    return std::nullopt;
  auto B = MemoryBuffer::getFile(Path, false, false);
  if (!B)
    return createStringError(B.getError(), "cannot read " + Path);
  StringRef Bytes = (*B)->getBuffer();
  if (!isCubin(Bytes))
    return createStringError(inconvertibleErrorCode(), Path + " is not a cubin");
  Expected<ToolkitNote> Note = readToolkitNote(Bytes);
  if (!Note)
    return createStringError(inconvertibleErrorCode(), Path + ": " + toString(Note.takeError()));
  if (!PtxasVersion.contains(Note->Version) || !PtxasVersion.contains(Note->Build))
    return createStringError(inconvertibleErrorCode(), Path + " comes from another ptxas (" + Note->Version + ")");
  return std::optional<std::string>(Bytes.str());
}

namespace {

/// One architecture's share of the build: its request, its units (indices into SassBuild::Jobs), and
/// nvlink's key, run and result.
struct ArchBuild {
  const SassRequest *Q = nullptr;
  std::vector<size_t> Jobs;
  std::string LinkKey;           // nvlink's result in the cache (empty: not cached)
  bool LinkedFromCache = false;
  bool UnitFailed = false;       // a unit's ptxas failed: reported, nothing to link
  std::string OutputInCache;     // nvlink wrote its result straight into the cache's folder (to adopt)
  std::string LinkError;         // nvlink failed or could not run
  std::string LinkNote;          // -v: nvlink retried outside the cache
  std::string LinkSaid;          // what a successful nvlink printed (its warnings), units by place
  std::optional<std::string> Result;
};

/// buildSass's stages over the jobs of every arch at once, so that the pool stays full: plan the jobs,
/// key them (print and hash, or take the input's SASS), look them up, compile the misses, link each
/// arch, and leave the upkeep to the background. Each stage is a method; the state they share is here.
class SassBuild {
public:
  SassBuild(ArrayRef<SassRequest> Requests, const SassSettings &Settings, const SassToolchain &Tools,
            DiagnosticEngine &Diags, PassTimes &Times, raw_ostream &Log)
      : Requests(Requests), Settings(Settings), Tools(Tools), Diags(Diags), Times(Times), Log(Log),
        Exec(*Settings.Exec) {}
  std::vector<std::optional<std::string>> run(SassBackground &Background);

private:
  void plan();
  bool openCaches();
  void key();
  void keyJob(Job &J);
  void lookUp();
  void lookUpLinks();
  void lookUpUnit(Job &J, std::string &Note);
  void countUnits();
  void reportCounts();
  bool makeTempFolder();
  void compile();
  void compileJob(Job &J);
  void reportUnits();
  void link();
  void linkArch(ArchBuild &A);
  int runNvlink(ArchBuild &A, StringRef OutPath, StringRef LogPath, StringRef RegisterArg, std::string &Output);
  std::string unitPlaces(std::string S, const ArchBuild &A) const;
  std::string nameModules(std::string S, const ArchBuild &A) const;
  bool takeLinkEntry(ArchBuild &A, std::string Payload);
  std::string saidList(const ArchBuild &A) const;
  void reportLinks();
  void upkeep(SassBackground &Background);
  bool needsNvlink(const ArchBuild &A) const {
    return !A.Jobs.empty() && !(A.Jobs.size() == 1 && !Jobs[A.Jobs.front()].Relocatable);
  }
  void logCommand(ArrayRef<StringRef> Argv);
  void store(StringRef Key, StringRef Payload, CompileCache::EntryKind Kind);

  ArrayRef<SassRequest> Requests;
  const SassSettings &Settings;
  const SassToolchain &Tools;
  DiagnosticEngine &Diags;
  PassTimes &Times;
  raw_ostream &Log;
  Executor &Exec;

  std::vector<Job> Jobs;
  std::vector<ArchBuild> Arches; // one per request, in order
  std::optional<CompileCache> Cache;
  std::shared_ptr<RemoteCache> Remote; // read through and written back with the local cache (RemoteCache.h)
  std::vector<std::string> UnitNotes;  // --use-sass-units: why a unit's cubin could not be taken
  size_t Misses = 0, Hits = 0, Reused = 0, FromUnits = 0, LinkHits = 0;
  SmallString<128> TempDir;
  CacheWrites Writes;
  bool CacheUnwritable = false; // said once; nvlink's results are then not offered to the cache either
  std::mutex LogMutex;
};

/// The jobs of every arch: a unit each (per-module), or the linked module (whole program).
void SassBuild::plan() {
  Arches.resize(Requests.size());
  for (size_t R = 0; R < Requests.size(); ++R) {
    const SassRequest &Q = Requests[R];
    Arches[R].Q = &Q;
    if (Q.Units) {
      for (const CodegenUnit &U : *Q.Units) {
        Job J;
        J.Request = R;
        J.Name = U.ObjectName;
        J.Module = &U.Module;
        J.Unit = &U;
        // A -G link's units are the inputs' own modules: those without DWARF are compiled without -g, as
        // nvcc's pipeline compiles them (ptxas rejects `.target debug` without debug sections).
        J.Debug = Q.Target.Debug && U.Module.Target.Debug;
        Jobs.push_back(std::move(J));
      }
      continue;
    }
    Job J;
    J.Request = R;
    J.Name = "the linked module";
    J.Module = Q.Whole;
    J.Text = Q.WholeText;
    J.Layout = Q.WholeLayout;
    J.Debug = Q.Target.Debug;
    // The whole module links to an executable cubin by ptxas alone, unless the device runtime is needed.
    J.Relocatable = Q.DeviceRuntime;
    Jobs.push_back(std::move(J));
  }
  for (size_t I = 0; I < Jobs.size(); ++I)
    Arches[Jobs[I].Request].Jobs.push_back(I);
}

/// The local cache, and the remote one that reads through and writes back its entries. False if the
/// remote cache's address is unusable (reported).
bool SassBuild::openCaches() {
  if (!Settings.CacheDir.empty())
    Cache.emplace(Settings.CacheDir, Settings.CacheLimit);
  if (Settings.RemoteUrl.empty())
    return true;
  Expected<std::unique_ptr<RemoteCache>> R = RemoteCache::create(Settings.RemoteUrl, Settings.RemoteHeader);
  if (!R) {
    Diags.error(toString(R.takeError()), std::vector<DiagSite>(), "bad-remote-cache");
    return false;
  }
  if (Cache)
    Remote = std::move(*R);
  else
    Diags.note("the remote cache is not used without the local one (--no-cache)", std::vector<DiagSite>(),
               "remote-cache-unused");
  return true;
}

/// Print and hash a unit; or take the input's own cubin, where it may stand for the unit (its key, for
/// nvlink's cached result: its bytes).
void SassBuild::keyJob(Job &J) {
  const SassRequest &Q = Requests[J.Request];
  // A cubin input is its own unit: nvlink takes it as it is, as it would on nvlink's command line (the
  // arch was checked when the link began; nvlink refuses a cubin from a newer ptxas itself).
  if (J.Unit && J.Unit->InputIsCubin && J.Unit->InputSass) {
    // A cubin input's image is its file; an nvcc object's standing in was decompressed by addSassVariants.
    for (const FatbinImage &I : *J.Unit->InputSass)
      if (fatbinArchName(I) == Q.Arch)
        J.InputCubin = I.Payload;
    J.FromInput = true;
    J.Key = CompileCache::key({"ptxlink-input-sass-1", J.InputCubin});
    return;
  }
  if (J.Unit && J.Unit->InputSass) {
    Expected<std::string> C = usableInputCubin(*J.Unit->InputSass, J.Unit->InputTarget, Q.Arch, J.Debug,
                                               Settings.PtxasOptions, Tools.Version);
    if (C) {
      J.InputCubin = std::move(*C);
      J.FromInput = true;
      J.Key = CompileCache::key({"ptxlink-input-sass-1", J.InputCubin});
      return;
    }
    J.ReuseNote = toString(C.takeError());
  }
  if (!J.Layout) {
    // One buffer of about the printed size (the text is mostly the sections' own, copied): growing it by
    // doubling copied each unit about once more, into memory touched for the first time.
    size_t Estimate = 4096;
    for (const Section &S : J.Module->Sections)
      Estimate += S.Kind == SectionKind::Debug ? S.contents().size() * 4 + 16 * size_t(S.RelocCount)
                                                : S.contents().size() + S.contents().size() / 8 + 64;
    J.OwnText.reserve(Estimate);
    raw_string_ostream OS(J.OwnText);
    TargetInfo T = Q.Target;
    T.Debug = J.Debug;
    if (!J.Debug)
      llvm::erase(T.Options, "debug");
    printModule(*J.Module, T, OS, J.OwnLayout);
    J.Text = J.OwnText;
    J.Layout = &J.OwnLayout;
  }
  if (!Cache && Settings.WriteUnits.empty() && Settings.UseUnits.empty())
    return;
  StringRef Mode = J.Relocatable ? "ptxas -c" : "ptxas";
  std::string Extra = join(ptxasOptionsOf(J, Settings), "\x1f");
  J.Key = CompileCache::key({"ptxlink-sass-3", Tools.Version, Mode, J.Debug ? "-g" : "", Extra, Q.Arch, J.Text});
}

void SassBuild::key() {
  Exec.parallelFor(0, Jobs.size(), [&](size_t I) { keyJob(Jobs[I]); });
}

/// nvlink's result is cached too, under the list of its inputs' keys: a link whose units all come from
/// the cache (a rebuild of unchanged sources) then runs neither ptxas nor nvlink. The device runtime's
/// library is not part of any key, so such links always run nvlink.
void SassBuild::lookUpLinks() {
  for (ArchBuild &A : Arches) {
    const SassRequest &Q = *A.Q;
    if (!needsNvlink(A) || Q.DeviceRuntime)
      continue;
    SmallVector<StringRef, 64> Parts{"ptxlink-sass-link-4", Tools.Version, Tools.Nvlink, Tools.NvlinkVersion,
                                     Q.Arch, Q.Target.Debug ? "-g" : ""};
    for (const std::string &O : Settings.NvlinkOptions)
      Parts.push_back(O);
    for (size_t I : A.Jobs)
      Parts.push_back(Jobs[I].Key);
    A.LinkKey = CompileCache::key(Parts);
    if (auto Hit = Cache->lookup(A.LinkKey, CompileCache::EntryKind::Link)) {
      takeLinkEntry(A, std::move(*Hit));
    } else if (auto Fetched = Remote ? Remote->get(A.LinkKey, CompileCache::EntryKind::Link) : std::nullopt) {
      std::string Payload = *Fetched;
      if (takeLinkEntry(A, std::move(*Fetched)))
        (void)Cache->store(A.LinkKey, Payload, CompileCache::EntryKind::Link); // a full disk: fetched again next time
    }
  }
}

/// Uses a cached nvlink result (saidTail's shape, what was said a saidList; anything else is a miss), and
/// what ptxas said of its units. A unit compiled by a build system (--use-sass-units) said nothing the
/// link saw: such an entry is a miss for a link that compiles its units itself, which would have shown
/// ptxas's warnings.
bool SassBuild::takeLinkEntry(ArchBuild &A, std::string Payload) {
  auto Parts = splitSaid(Payload);
  if (!Parts)
    return false;
  auto Said = decodeSaid(Parts->second);
  if (!Said || Said->size() != A.Jobs.size() + 1 || !(*Said)[0])
    return false;
  if (Settings.UseUnits.empty() && llvm::any_of(*Said, [](const std::optional<std::string> &T) { return !T; }))
    return false;
  A.LinkSaid = std::move(*(*Said)[0]);
  for (size_t K = 0; K < A.Jobs.size(); ++K)
    Jobs[A.Jobs[K]].Output = (*Said)[K + 1].value_or("");
  Payload.resize(Parts->first.size());
  A.Result = std::move(Payload);
  A.LinkedFromCache = true;
  ++LinkHits;
  return true;
}

/// What nvlink's cache entry says: nvlink's output (units by place), then ptxas's of each unit in order
/// (not known for one a build system compiled).
std::string SassBuild::saidList(const ArchBuild &A) const {
  std::vector<std::optional<std::string>> Texts{A.LinkSaid};
  for (size_t I : A.Jobs)
    Texts.push_back(Jobs[I].FromUnits ? std::nullopt : std::optional<std::string>(Jobs[I].Output));
  return encodeSaid(Texts);
}

/// A unit's cubin from --use-sass-units, the local cache or the remote one.
void SassBuild::lookUpUnit(Job &J, std::string &Note) {
  if (J.FromInput)
    return;
  bool LinkedFromCache = Arches[J.Request].LinkedFromCache;
  if (!Settings.UseUnits.empty() && !LinkedFromCache) {
    Expected<std::optional<std::string>> C = compiledUnit(Settings.UseUnits, J.Key, Tools.Version);
    if (!C) {
      Note = toString(C.takeError());
    } else if (*C) {
      J.Compiled = std::move(**C);
      J.FromCache = J.FromRemote = J.FromUnits = true;
      return;
    }
  }
  if (!Cache)
    return;
  if (LinkedFromCache) { // not needed now, but still in use: keep it from eviction
    (void)Cache->touch(J.Key);
    J.FromCache = true;
    return;
  }
  // An entry is the cubin and what ptxas said making it (saidTail), shown again as when it ran.
  auto TakeEntry = [&J](std::optional<CompileCache::Entry> Hit) {
    auto Parts = Hit ? splitSaid(Hit->Payload) : std::nullopt;
    if (!Parts)
      return false;
    J.Output = Parts->second.str();
    Hit->Payload = Parts->first;
    J.Cached = std::move(*Hit);
    return true;
  };
  if (TakeEntry(Cache->find(J.Key))) {
    J.FromCache = true;
  } else if (auto Fetched = Remote ? Remote->get(J.Key, CompileCache::EntryKind::Cubin) : std::nullopt) {
    auto Parts = splitSaid(*Fetched);
    if (!Parts)
      return; // not an entry of this shape: compiled here
    // Kept in the local cache, and used from there as any entry; held here if it cannot take it.
    J.FromCache = J.FromRemote = true;
    if (Error E = Cache->store(J.Key, *Fetched))
      consumeError(std::move(E));
    else
      TakeEntry(Cache->find(J.Key));
    if (!J.Cached) {
      J.Output = Parts->second.str();
      Fetched->resize(Parts->first.size());
      J.Compiled = std::move(*Fetched);
    }
  }
}

void SassBuild::lookUp() {
  if (Cache)
    lookUpLinks();
  UnitNotes.assign(Jobs.size(), "");
  if (Cache || !Settings.UseUnits.empty())
    Exec.parallelFor(0, Jobs.size(), [&](size_t I) { lookUpUnit(Jobs[I], UnitNotes[I]); });
  for (size_t I = 0; I < Jobs.size(); ++I)
    if (!UnitNotes[I].empty())
      Diags.note(Jobs[I].Name + ": " + UnitNotes[I] + "; compiled here", std::vector<DiagSite>(), "sass-unit-unusable");
  // A remote cache that failed is said once, whatever -v (the link goes on without it).
  if (Remote && !Remote->note().empty())
    Diags.note(Remote->note(), std::vector<DiagSite>(), "remote-cache-off");
}

void SassBuild::countUnits() {
  for (const Job &J : Jobs)
    (J.FromInput ? Reused : J.FromUnits ? FromUnits : J.FromCache ? Hits : Misses)++;
}

/// -v: where each unit's cubin came from.
void SassBuild::reportCounts() {
  if (!Settings.Verbose)
    return;
  for (const Job &J : Jobs)
    if (!J.ReuseNote.empty())
      Log << "ptxlink: " << Requests[J.Request].Arch << ": " << J.Name << ": SASS compiled from PTX: " << J.ReuseNote
          << "\n";
  Log << "ptxlink: SASS: " << Jobs.size() << " ptxas units, ";
  if (Reused)
    Log << Reused << " from the inputs' SASS, ";
  if (FromUnits)
    Log << FromUnits << " from " << Settings.UseUnits << ", ";
  Log << Hits << " from the cache" << (Cache ? " (" + Cache->directory() + ")" : std::string(" (no cache)")) << ", "
      << Misses << " compiled";
  if (LinkHits)
    Log << ", nvlink's result from the cache for " << LinkHits << " of " << Requests.size() << " arch"
        << (Requests.size() == 1 ? "" : "es");
  Log << "\n";
  if (Remote)
    Log << "ptxlink: SASS: remote cache " << Remote->url() << ": " << Remote->hits() << " entries fetched\n";
}

/// The folder ptxas and nvlink are given their files in (in $TMPDIR, or in -keep-dir's folder), and each
/// job's file names in it. SIGINT, SIGTERM and SIGHUP remove it too (with --save-temps as well: a run
/// interrupted keeps nothing); upkeep() removes it otherwise.
bool SassBuild::makeTempFolder() {
  SmallString<128> TempPrefix("ptxlink-sass");
  if (!Settings.KeepDir.empty()) {
    TempPrefix = Settings.KeepDir;
    sys::fs::make_absolute(TempPrefix);
    sys::path::append(TempPrefix, "ptxlink-sass");
    (void)sys::fs::create_directories(Settings.KeepDir); // as nvcc -keep-dir makes it
  }
  if (auto EC = sys::fs::createUniqueDirectory(TempPrefix, TempDir)) {
    Diags.error("cannot create a temporary folder for ptxas: " + EC.message(), std::vector<DiagSite>(), "cannot-write");
    return false;
  }
  removeFolderOnSignal(TempDir);
  for (size_t I = 0; I < Jobs.size(); ++I) {
    Job &J = Jobs[I];
    std::string Base = (TempDir + "/" + Twine(I) + "-" + safeFileName(J.Name) + "-" + Requests[J.Request].Arch).str();
    J.PtxPath = Base + ".ptx";
    J.CubinPath = Base + ".cubin";
  }
  return true;
}

/// -v shows each command as it runs, in nvcc -v's form (`#$ ptxas ...`); ptxas runs on several threads.
void SassBuild::logCommand(ArrayRef<StringRef> Argv) {
  std::lock_guard<std::mutex> Lock(LogMutex);
  Log << "#$";
  for (StringRef A : Argv)
    Log << ' ' << A;
  Log << '\n';
}

void SassBuild::store(StringRef Key, StringRef Payload, CompileCache::EntryKind Kind) {
  Error E = Cache->store(Key, Payload, Kind);
  std::lock_guard<std::mutex> Lock(Writes.M);
  if (!E) {
    ++Writes.Stored;
  } else if (Writes.Failed++ == 0) {
    Writes.FirstError = toString(std::move(E));
  } else {
    consumeError(std::move(E));
  }
}

/// One ptxas run. Its cubin enters the cache as soon as ptxas made it, so that a link interrupted after
/// 90 of 600 units keeps those 90.
void SassBuild::compileJob(Job &J) {
  const SassRequest &Q = Requests[J.Request];
  {
    std::error_code EC;
    raw_fd_ostream OS(J.PtxPath, EC);
    if (!EC)
      OS << J.Text;
    if (EC || OS.has_error()) {
      OS.clear_error();
      J.Failed = true;
      J.Exit = -1;
      J.Output = "cannot write " + J.PtxPath;
      return;
    }
  }
  std::string ArchArg = "-arch=" + Q.Arch;
  SmallVector<StringRef, 8> Argv{Tools.Ptxas, ArchArg};
  if (J.Relocatable)
    Argv.push_back("-c");
  if (J.Debug)
    Argv.push_back("-g");
  for (const std::string &O : ptxasOptionsOf(J, Settings))
    Argv.push_back(O);
  if (Settings.ResourceUsage && !is_contained(Settings.PtxasOptions, "-v"))
    Argv.push_back("-v");
  Argv.append({"-o", J.CubinPath, J.PtxPath});
  if (Settings.Verbose) // as nvcc -v shows the commands it runs
    logCommand(Argv);
  J.Exit = runTool(Tools.Ptxas, Argv, J.PtxPath + ".log", J.Output);
  if (J.Exit != 0) {
    J.Failed = true;
    return;
  }
  auto B = MemoryBuffer::getFile(J.CubinPath, false, false);
  if (!B) {
    J.Failed = true;
    J.Output = "cannot read the cubin ptxas wrote: " + B.getError().message();
    return;
  }
  J.Compiled = (*B)->getBuffer().str();
  if (Cache)
    store(J.Key, J.Compiled + saidTail(J.Output), CompileCache::EntryKind::Cubin);
}

/// Compiles the misses on the pool (at most --threads ptxas at a time), largest first, so that no worker
/// is left with a large unit at the end while the others idle.
void SassBuild::compile() {
  std::vector<size_t> Work;
  for (size_t I = 0; I < Jobs.size(); ++I)
    if (!Jobs[I].FromCache && !Jobs[I].FromInput)
      Work.push_back(I);
  llvm::stable_sort(Work, [&](size_t A, size_t B) { return Jobs[A].Text.size() > Jobs[B].Text.size(); });
  Progress Bar(Settings.Progress && Misses > 0, Misses, Hits, Log);
  Exec.parallelFor(0, Work.size(), [&](size_t W) {
    compileJob(Jobs[Work[W]]);
    Bar.step();
  });
  Bar.finish();
}

/// What the compilation said: a cache that could not be written (once), failures in job order at the
/// inputs' lines, warnings, and with --resource-usage ptxas's per-kernel lines.
void SassBuild::reportUnits() {
  CacheUnwritable = Writes.Failed > 0;
  if (CacheUnwritable)
    Diags.note(Twine(Writes.Stored ? std::to_string(Writes.Failed) + " of " +
                                         std::to_string(Writes.Failed + Writes.Stored) + " compiled units"
                                   : std::string("nothing")) +
                   " could be stored in the compile cache " + Cache->directory() + " (" + Writes.FirstError +
                   "); the link goes on without it",
               std::vector<DiagSite>(), "cache-not-writable");
  for (Job &J : Jobs) {
    const SassRequest &Q = Requests[J.Request];
    if (J.Failed) {
      Arches[J.Request].UnitFailed = true;
      // Its messages at the inputs' lines, then which compilation failed.
      if (J.Exit >= 0)
        for (Diagnostic &D : mapPtxasMessages(J.Output, J.Text, *J.Module, *J.Layout, Q.Arch))
          Diags.report(std::move(D));
      std::string Msg = "ptxas failed on " + J.Name + " for " + Q.Arch + " (exit " + std::to_string(J.Exit) + ")";
      if (J.Exit < 0)
        Msg += ": " + J.Output;
      if (!Settings.SaveTemps)
        Msg += "\n  (rerun with --save-temps to keep the module ptxas was given)";
      Diags.error(Msg, std::vector<DiagSite>(), "ptxas-failed");
      continue;
    }
    // A unit ptxas compiled may have said something: its warnings, at the inputs' lines, as nvcc shows
    // them; with --resource-usage its per-kernel lines (registers, memory, stack). A unit from the cache
    // says what ptxas said when it compiled it, so that a warm link says what a cold one does; one from
    // the inputs' SASS or a build system's (--use-sass-units) ran no ptxas the link saw: nothing to show.
    if (J.Output.empty())
      continue;
    for (Diagnostic &D : mapPtxasMessages(J.Output, J.Text, *J.Module, *J.Layout, Q.Arch))
      if (D.Level == Severity::Warning)
        Diags.report(std::move(D));
    if (Settings.ResourceUsage) {
      SmallVector<StringRef, 8> Lines;
      StringRef(J.Output).split(Lines, '\n', -1, false);
      for (StringRef Line : Lines)
        if (Line.trim().starts_with("ptxas info"))
          Log << "ptxlink: " << J.Name << ": " << Line.trim() << "\n";
    }
  }
}

/// nvlink's messages name our temporary files: they name the units by their place in the link instead
/// ('<unit 2>'), which stays true for a later link of the same units that takes nvlink's result from the
/// cache, whatever its inputs are called there.
std::string SassBuild::unitPlaces(std::string S, const ArchBuild &A) const {
  for (size_t K = 0; K < A.Jobs.size(); ++K) {
    std::string From = "'" + Jobs[A.Jobs[K]].CubinPath + "'", To = "'<unit " + std::to_string(K) + ">'";
    for (size_t P = 0; (P = S.find(From, P)) != std::string::npos; P += To.size())
      S.replace(P, From.size(), To);
  }
  return S;
}

/// ...and are shown naming the modules.
std::string SassBuild::nameModules(std::string S, const ArchBuild &A) const {
  for (size_t K = 0; K < A.Jobs.size(); ++K) {
    std::string From = "'<unit " + std::to_string(K) + ">'", To = "'" + Jobs[A.Jobs[K]].Name + "'";
    for (size_t P = 0; (P = S.find(From, P)) != std::string::npos; P += To.size())
      S.replace(P, From.size(), To);
  }
  return S;
}

int SassBuild::runNvlink(ArchBuild &A, StringRef OutPath, StringRef LogPath, StringRef RegisterArg,
                         std::string &Output) {
  const SassRequest &Q = *A.Q;
  std::string ArchArg = "-arch=" + Q.Arch, LibArg = "-L" + Tools.LibDir;
  SmallVector<StringRef, 16> Argv{Tools.Nvlink, ArchArg, "-o", OutPath};
  if (Q.Target.Debug) // keep and merge the cubins' DWARF
    Argv.push_back("-g");
  for (const std::string &O : Settings.NvlinkOptions)
    Argv.push_back(O);
  for (size_t I : A.Jobs)
    Argv.push_back(Jobs[I].CubinPath);
  if (Q.DeviceRuntime)
    Argv.append({LibArg, "-lcudadevrt"});
  if (!RegisterArg.empty())
    Argv.push_back(RegisterArg);
  if (Settings.Verbose)
    logCommand(Argv);
  return runTool(Tools.Nvlink, Argv, LogPath, Output);
}

/// Joins one arch's relocatable cubins with nvlink (or takes the one executable cubin as it is).
void SassBuild::linkArch(ArchBuild &A) {
  if (A.UnitFailed || A.Jobs.empty() || A.LinkedFromCache || !A.LinkError.empty())
    return;
  const SassRequest &Q = *A.Q;
  if (!needsNvlink(A)) {
    Job &J = Jobs[A.Jobs.front()];
    A.Result = J.Cached ? J.cubin().str() : std::move(J.Compiled);
    return;
  }
  if (Tools.Nvlink.empty()) {
    A.LinkError = "per-module code generation needs nvlink beside " + Tools.Ptxas + " (or use --whole-program)";
    return;
  }
  if (Q.DeviceRuntime && Tools.LibDir.empty()) {
    A.LinkError = "the program calls the CUDA device runtime (dynamic parallelism), but libcudadevrt.a was "
                  "not found (looked in the -L folders, the toolkit of " + Tools.Ptxas +
                  ", $CUDA_HOME, $CUDA_PATH and /usr/local/cuda); name its folder with -L";
    return;
  }
  std::string TempOut = (TempDir + "/linked-" + Q.Arch + ".cubin").str();
  std::string OutPath = TempOut, LogPath = TempOut + ".log";
  // nvlink's result goes straight into the cache when it is to be stored there (a temporary file in the
  // cache's folder, which becomes the entry by a rename once the trailer is appended, in upkeep): storing
  // it would write its megabytes a second time. If the cache cannot take it, nvlink writes into the
  // temporary folder and the upkeep stores a copy, or notes why it could not. (`nvlink -g` writes its
  // command line, file names included, into the image, .note.nv.tkinfo: a debug link's output is written
  // under its own name in the temporary folder.)
  if (Cache && !A.LinkKey.empty() && !Settings.SaveTemps && !CacheUnwritable && !Q.Target.Debug) {
    if (Expected<std::string> Temporary = Cache->createTemporary(A.LinkKey))
      OutPath = A.OutputInCache = std::move(*Temporary);
    else
      consumeError(Temporary.takeError());
  }
  auto DropOutputInCache = make_scope_exit([&] {
    if (!A.OutputInCache.empty() && !A.Result) // nvlink failed: nothing to adopt
      sys::fs::remove(A.OutputInCache);
  });
  // nvlink is given files of our own: the cached cubins' verified bytes, and the inputs' own cubins
  // (SassReuse.h), copied into the temporary folder. An entry read in place could change under nvlink
  // (another process rewriting it, a prune removing it): the output would differ silently.
  for (size_t I : A.Jobs) {
    Job &J = Jobs[I];
    if (!J.Cached && !J.FromInput && !J.FromRemote)
      continue;
    std::error_code EC;
    raw_fd_ostream OS(J.CubinPath, EC);
    OS << J.cubin();
    OS.close();
    if (EC || OS.has_error()) {
      OS.clear_error();
      A.LinkError = "cannot write " + J.CubinPath + ": " + (EC ? EC : OS.error()).message();
      return;
    }
  }
  // nvlink says which modules it linked in a file of `DEFINE_REGISTER_FUNC(<id>)` lines, as it does for
  // nvcc -dlink: the only way to learn the module id of the device runtime's member it took.
  std::string RegisterFile, RegisterArg;
  if (Q.DeviceRuntime && Q.LibraryModuleIds) {
    RegisterFile = (TempDir + "/linked-" + Q.Arch + ".reg.c").str();
    RegisterArg = "--register-link-binaries=" + RegisterFile;
  }
  std::string Output;
  int RC = runNvlink(A, OutPath, LogPath, RegisterArg, Output);
  // nvlink wrote into the cache's folder, which may be full ("nvlink fatal: Internal error: writing
  // file"): the link does not depend on the cache, so nvlink runs again into the temporary folder. A
  // genuine link error costs a second nvlink run.
  if (RC != 0 && !A.OutputInCache.empty()) {
    sys::fs::remove(A.OutputInCache);
    A.OutputInCache.clear();
    OutPath = TempOut;
    int First = RC;
    Output.clear();
    RC = runNvlink(A, OutPath, LogPath, RegisterArg, Output);
    if (RC == 0)
      A.LinkNote = "nvlink failed for " + Q.Arch + " writing its result into the compile cache (exit " +
                   std::to_string(First) + "); linked into the temporary folder";
  }
  if (RC != 0) {
    std::string S = nameModules(unitPlaces(Output, A), A);
    A.LinkError = "nvlink failed for " + Q.Arch + " (exit " + std::to_string(RC) + ")" + (S.empty() ? "" : ":\n" + S);
    return;
  }
  auto B = MemoryBuffer::getFile(OutPath, false, false);
  if (!B) {
    A.LinkError = "cannot read the cubin nvlink wrote: " + B.getError().message();
    return;
  }
  A.Result = (*B)->getBuffer().str();
  A.LinkSaid = unitPlaces(Output, A); // its warnings ("Stack size ... cannot be statically determined")
  if (!RegisterFile.empty())
    *Q.LibraryModuleIds = libraryModuleIds(RegisterFile, A.Jobs, Jobs);
}

void SassBuild::link() {
  Exec.parallelFor(0, Arches.size(), [&](size_t R) { linkArch(Arches[R]); });
}

/// What nvlink said, per arch in order: a cache it could not write into (once), what nvcc -dlink shows of
/// it (its warnings, e.g. "Stack size for entry function '_Z4walkPi' cannot be statically determined" for
/// recursion or indirect calls; its info lines with --resource-usage), and its failures.
void SassBuild::reportLinks() {
  bool CacheLinkFailed = llvm::any_of(Arches, [](const ArchBuild &A) { return !A.LinkNote.empty(); });
  if (CacheLinkFailed && !CacheUnwritable) {
    Diags.note("nvlink could not write its result into the compile cache " + Cache->directory() +
                   " (is its disk full?); the link goes on without it",
               std::vector<DiagSite>(), "cache-not-writable");
    CacheUnwritable = true;
  }
  for (const ArchBuild &A : Arches) {
    if (Settings.Verbose && !A.LinkNote.empty())
      Log << "ptxlink: note: " << A.LinkNote << "\n";
    SmallVector<StringRef, 4> Said;
    std::string Named = nameModules(A.LinkSaid, A);
    StringRef(Named).split(Said, '\n', -1, false);
    for (StringRef Line : Said) {
      StringRef Text = Line.trim();
      bool Warning = Text.consume_front("nvlink warning"), Info = !Warning && Text.consume_front("nvlink info");
      Text = Text.ltrim();
      if (!Text.consume_front(":"))
        continue;
      if (Warning)
        Diags.warning("nvlink " + A.Q->Arch + ": " + Text.trim(), std::vector<DiagSite>(), "nvlink");
      else if (Info && Settings.ResourceUsage)
        Log << "ptxlink: nvlink " << A.Q->Arch << ": " << Text.trim() << "\n";
    }
    if (!A.LinkError.empty())
      Diags.error(A.LinkError, std::vector<DiagSite>(), "nvlink-failed");
  }
}

/// The rest does not change the output: storing nvlink's results (megabytes) locally and the new entries
/// remotely, pruning the cache, freeing the entries read, removing the temporary files. It runs beside
/// the caller's writing of the output (SassBackground).
void SassBuild::upkeep(SassBackground &Background) {
  struct LinkEntry {
    std::string Key;
    std::string Written; // nvlink's output file in the cache, to adopt once Tail is appended to it
    std::string Tail;    // what nvlink and ptxas said (saidTail of saidList)
    std::string Copy;    // the entry's payload: stored, or what Written must then hold
  };
  std::vector<LinkEntry> LinkEntries;
  for (const ArchBuild &A : Arches)
    if (A.LinkError.empty() && A.Result && !A.LinkedFromCache && !A.LinkKey.empty()) {
      if (A.OutputInCache.empty() && CacheUnwritable)
        continue; // said once
      std::string Tail = saidTail(saidList(A));
      LinkEntries.push_back({A.LinkKey, A.OutputInCache, Tail, *A.Result + Tail});
    }
  std::string Folder;
  if (Settings.SaveTemps) {
    Log << "ptxlink: note: temporary files kept in " << TempDir << "\n";
    dontRemoveFolderOnSignal(TempDir);
  } else {
    Folder = TempDir.str().str();
  }
  bool Prune = Writes.Stored > 0 || !LinkEntries.empty();
  auto Mapped = std::make_shared<std::vector<std::unique_ptr<MemoryBuffer>>>();
  for (Job &J : Jobs)
    if (J.Cached)
      Mapped->push_back(std::move(J.Cached->File));
  // What the remote cache lacks: the units compiled here and nvlink's results (written back after the
  // local cache's entries).
  struct RemotePut {
    std::string Key;
    CompileCache::EntryKind Kind;
    std::string Payload;
  };
  auto RemotePuts = std::make_shared<std::vector<RemotePut>>();
  if (Remote) {
    for (const Job &J : Jobs)
      if (!J.FromCache && !J.FromInput && !J.Failed && !J.Compiled.empty() && !J.Key.empty())
        RemotePuts->push_back({J.Key, CompileCache::EntryKind::Cubin, J.Compiled + saidTail(J.Output)});
    for (const ArchBuild &A : Arches)
      if (A.LinkError.empty() && A.Result && !A.LinkedFromCache && !A.LinkKey.empty())
        RemotePuts->push_back({A.LinkKey, CompileCache::EntryKind::Link, *A.Result + saidTail(saidList(A))});
  }
  Background.start([Cache = Cache, LinkEntries = std::move(LinkEntries), Prune, Folder = std::move(Folder), Mapped,
                    Remote = Remote, RemotePuts, &Background](std::vector<std::string> &Notes) {
    Mapped->clear();
    if (Remote) {
      bool Said = !Remote->note().empty(); // during the look-up, as a note of the link
      for (const RemotePut &P : *RemotePuts)
        Remote->put(P.Key, P.Kind, P.Payload);
      if (!Said && !Remote->note().empty())
        Background.sayAlways(Remote->note());
      else if (Remote->stored())
        Notes.push_back("remote cache " + Remote->url() + ": " + std::to_string(Remote->stored()) + " entries stored");
    }
    auto StoreLink = [&Cache](const LinkEntry &L) -> Error {
      if (L.Written.empty())
        return Cache->store(L.Key, L.Copy, CompileCache::EntryKind::Link);
      if (std::error_code EC = appendToFile(L.Written, L.Tail)) {
        sys::fs::remove(L.Written);
        return createStringError(EC, "cannot write " + L.Written + ": " + EC.message());
      }
      return Cache->adopt(L.Written, L.Key, CompileCache::EntryKind::Link, L.Copy);
    };
    for (const LinkEntry &L : LinkEntries)
      if (Error E = StoreLink(L))
        Notes.push_back(toString(std::move(E)));
    if (Prune)
      Cache->prune();
    if (!Folder.empty()) {
      removeFolder(Folder);
      dontRemoveFolderOnSignal(Folder);
    }
  });
}

std::vector<std::optional<std::string>> SassBuild::run(SassBackground &Background) {
  std::vector<std::optional<std::string>> Results(Requests.size());
  auto Collect = [&] {
    for (size_t R = 0; R < Arches.size(); ++R)
      Results[R] = std::move(Arches[R].Result);
    return std::move(Results);
  };
  {
    PassTimes::Scope T = Times.scope("sass: print and hash");
    plan();
    if (!openCaches())
      return Results;
    key();
  }
  if (!Settings.WriteUnits.empty()) {
    writeUnits(Settings.WriteUnits, Jobs, Requests, Settings, Tools, Diags);
    return Results;
  }
  {
    PassTimes::Scope T = Times.scope("sass: look up");
    lookUp();
  }
  countUnits();
  bool NvlinkToRun = llvm::any_of(Arches, [&](const ArchBuild &A) { return needsNvlink(A) && !A.LinkedFromCache; });
  if (!Misses && !NvlinkToRun) { // no tool to run: no temporary files
    reportUnits(); // what ptxas said when it compiled the units taken from the cache
    reportCounts();
    reportLinks(); // what nvlink said when it made the results taken from the cache
    for (ArchBuild &A : Arches)
      if (!A.LinkedFromCache && !A.Jobs.empty())
        A.Result = Jobs[A.Jobs.front()].cubin().str(); // a whole-program cubin
    return Collect();
  }
  if (!makeTempFolder())
    return Results;
  {
    PassTimes::Scope T = Times.scope("sass: ptxas");
    compile();
  }
  reportUnits();
  reportCounts();
  {
    PassTimes::Scope T = Times.scope("sass: nvlink");
    link();
    reportLinks();
  }
  upkeep(Background);
  return Collect();
}

} // namespace

std::vector<std::optional<std::string>> buildSass(ArrayRef<SassRequest> Requests, const SassSettings &Settings,
                                                  const SassToolchain &Tools, DiagnosticEngine &Diags,
                                                  PassTimes &Times, raw_ostream &Log, SassBackground &Background) {
  return SassBuild(Requests, Settings, Tools, Diags, Times, Log).run(Background);
}

void SassBackground::start(std::function<void(std::vector<std::string> &)> Work) {
  finish(nullptr);
  Worker = Exec.async([this, Work = std::move(Work)] { Work(Notes); });
}

void SassBackground::finish(raw_ostream *Log) {
  Worker.wait();
  if (Log)
    for (const std::string &N : Notes)
      *Log << "ptxlink: note: " << N << "\n";
  for (const std::string &N : Always)
    Err << "ptxlink: note: " << N << "\n";
  Notes.clear();
  Always.clear();
}

} // namespace ptxlink
