// The link as a sequence of passes, and `ptxlink` as a library call.
//
// The problem: one command links for several architectures into one output that must be written
// atomically (a failed link leaves no file, not even a stale one) and byte-identically whatever the
// thread count. Each arch is an independent ArchLink; their diagnostics are usually the same (plain
// inputs select the same variant everywhere), so each is reported once, in the order first seen, and one
// that differs between arches names the arches it is about (DiagForwarder).
#include "ptxlink/CallGraphDot.h"
#include "CompileCache.h"
#include "ptxlink/Fatbin.h"
#include "ptxlink/HostEmbed.h"
#include "ptxlink/InputFiles.h"
#include "LinkContext.h"
#include "ptxlink/Linker.h"
#include "ptxlink/ObjectFormat.h"
#include "PtxasMessages.h"
#include "SassBuild.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"

#include <chrono>

#include <sys/resource.h>

using namespace llvm;

namespace ptxlink {

namespace {

/// --compress zstd without a level, and the compression of --sass links without --compress: zstd level 3
/// (docs/performance.md: 10x smaller PTX for ~0.4 ms per 100 KB; level 9 is 28% smaller at 4x the time,
/// level 19 twice as small again at 90x).
constexpr int DefaultZstdLevel = 3;

/// The outputs that hold a fatbinary (and so SASS, with --sass).
bool writesFatbin(EmitKind E) { return E == EmitKind::Fatbin || E == EmitKind::HostObject || E == EmitKind::CSource; }

/// How the fatbinary's images are compressed. Without --compress: a PTX-only link stays uncompressed (zstd
/// would make a 10 ms link 50 ms), a link with --sass (seconds of ptxas) is compressed.
FatbinWriteOptions fatbinWriteOptions(const LinkOptions &Options) {
  FatbinWriteOptions Write;
  Write.Compression = Options.CompressionGiven ? Options.Compression
                      : Options.Sass           ? FatbinCompression::Zstd
                                               : FatbinCompression::None;
  Write.CompressElf = Write.Compression != FatbinCompression::None;
  Write.ZstdLevel = Options.CompressionLevel ? Options.CompressionLevel : DefaultZstdLevel;
  Write.Lz4Level = Options.CompressionLevel;
  return Write;
}

/// Forwards diagnostics recorded by the per-arch engines to the real one. A diagnostic that every arch
/// reported identically (the usual case: plain inputs select the same variant everywhere) is reported
/// once, as it is; one that only some arches reported (a fat object contributes a different variant per
/// arch, so its sites differ) is reported once with those arches named in front ("sm_90: ..."), so the
/// reader can tell the copies apart. Order: as first seen, arch by arch.
class DiagForwarder {
public:
  explicit DiagForwarder(DiagnosticEngine &Main) : Main(Main) {}

  /// Takes what Local recorded since Done (the arch's link ran these passes so far).
  void collect(const DiagnosticEngine &Local, size_t &Done, StringRef Arch) { collect(Local.recorded(), Done, Arch); }
  void collect(llvm::ArrayRef<Diagnostic> R, size_t &Done, StringRef Arch) {
    for (; Done < R.size(); ++Done) {
      const Diagnostic &D = R[Done];
      std::string Key = std::to_string(static_cast<int>(D.Level)) + "\x1f" + D.File + "\x1f" + D.Message;
      for (const DiagSite &S : D.Sites)
        Key += "\x1f" + S.Text;
      auto [It, New] = Index.try_emplace(Key, Pending.size());
      if (New)
        Pending.push_back({D, {}});
      std::vector<std::string> &Arches = Pending[It->second].Arches;
      if (Arches.empty() || Arches.back() != Arch)
        Arches.push_back(Arch.str());
    }
  }

  /// Reports everything collected; ArchesRun = how many arches were linked.
  void finish(size_t ArchesRun) {
    for (Entry &E : Pending) {
      Diagnostic D = std::move(E.D);
      bool MentionsArch = E.Arches.size() == 1 && StringRef(D.Message).contains(E.Arches.front());
      if (ArchesRun > 1 && E.Arches.size() < ArchesRun && !MentionsArch)
        D.Message = join(E.Arches, ",") + ": " + D.Message;
      Main.report(std::move(D));
    }
    Pending.clear();
    Index.clear();
  }

private:
  struct Entry {
    Diagnostic D;
    std::vector<std::string> Arches; // that reported it, in link order
  };
  DiagnosticEngine &Main;
  std::vector<Entry> Pending;
  StringMap<size_t> Index; // key (level, file, message, sites) -> Pending index
};

/// Removes a previous output so a failed link leaves nothing stale behind (a regular file only: never a
/// directory or device named by -o, nor the target of a symbolic link).
void removeStaleOutput(const LinkOptions &O) {
  if (!O.CheckAbiOnly)
    removeFailedOutput(O.Output);
}

/// Every file the link reads, -l libraries resolved as loadInputs will resolve them.
std::vector<std::string> inputPaths(const LinkOptions &O) {
  std::vector<std::string> Paths;
  for (const LinkInput &In : O.Inputs)
    if (In.What == LinkInput::File)
      Paths.push_back(In.Path);
    else if (auto P = findLibrary(In.Path, O.LibraryPaths))
      Paths.push_back(*P);
  return Paths;
}

Error writeOutput(const LinkOptions &O, raw_ostream &Stdout,
                  const std::function<Error(raw_ostream &)> &Write) {
  if (O.Output == "-")
    return Write(Stdout);
  // Nothing is lost by removing an earlier output (a failed link removes it anyway), and renaming over
  // it would wait for ext4 to write the new one to disk: a quarter of a large link.
  return writeFileAtomically(O.Output, Write, EarlierFile::RemovedFirst);
}

/// What goes into the output, per arch: a linked module and the header it is printed with.
struct ArchOutput {
  size_t Variant; // index in Linked.Variants
  TargetInfo Target;
  std::string Requested; // the arch asked for: what SASS is compiled for (Target may name an older one)
};

/// --verify: runs ptxas (-O0: the front end's checks are what matter, and its code generation is the
/// cheapest) over every linked module for the arch it was linked for, in parallel, and reports its
/// messages at the inputs' lines. A message every arch gave alike is reported once, naming them all.
/// Returns false if ptxas found an error (or could not run).
bool verifyWithPtxas(const LinkOptions &Options, const ObjectFile &Linked, ArrayRef<ArchOutput> Outputs,
                     DiagnosticEngine &Diags, PassTimes &Times) {
  auto Start = std::chrono::steady_clock::now();
  std::optional<std::string> Ptxas = findPtxas();
  if (!Ptxas) {
    Diags.error("--verify needs ptxas, which is neither on PATH nor in $CUDA_HOME/bin", std::vector<DiagSite>(),
                "no-ptxas");
    return false;
  }
  struct Check {
    std::string Text;
    PrintedLayout Layout;
    std::optional<PtxasResult> Result;
    std::string Error; // ptxas could not be run
  };
  std::vector<Check> Checks(Outputs.size());
  parallelFor(0, Outputs.size(), [&](size_t I) {
    const ArchOutput &O = Outputs[I];
    raw_string_ostream OS(Checks[I].Text);
    printModule(Linked.Variants[O.Variant], O.Target, OS, Checks[I].Layout);
    std::vector<std::string> Args{"-arch=" + O.Requested, "-O0"};
    if (Options.Emit == EmitKind::Object)
      Args.push_back("-c"); // a relocatable link may leave references for a later link
    llvm::append_range(Args, Options.PtxasOptions);
    if (auto R = runPtxas(*Ptxas, Checks[I].Text, Args))
      Checks[I].Result = std::move(*R);
    else
      Checks[I].Error = toString(R.takeError());
  });
  // Merge what the arches said alike, in order of first appearance.
  struct Merged {
    Diagnostic D;
    std::vector<std::string> Arches;
  };
  std::vector<Merged> All;
  StringMap<size_t> Index;
  bool Failed = false;
  for (size_t I = 0; I < Outputs.size(); ++I) {
    std::optional<PtxasResult> &R = Checks[I].Result;
    if (!R) {
      Diags.error(Checks[I].Error, std::vector<DiagSite>(), "ptxas-failed");
      Failed = true;
      continue;
    }
    std::vector<Diagnostic> Found = mapPtxasMessages(R->Messages, Checks[I].Text, Linked.Variants[Outputs[I].Variant],
                                                     Checks[I].Layout, "");
    if (R->ExitCode != 0 && llvm::none_of(Found, [](const Diagnostic &D) { return D.Level == Severity::Error; })) {
      Diagnostic D;
      D.Message = "ptxas: exit " + std::to_string(R->ExitCode);
      D.Code = "ptxas";
      Found.push_back(std::move(D));
    }
    for (Diagnostic &D : Found) {
      std::string Key = D.File + "\x1f" + std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column) + "\x1f" +
                        D.Message + "\x1f" + std::to_string(static_cast<int>(D.Level));
      auto [It, New] = Index.try_emplace(Key, All.size());
      if (New)
        All.push_back({std::move(D), {}});
      All[It->second].Arches.push_back(Outputs[I].Requested);
    }
  }
  for (Merged &M : All) {
    StringRef Text = M.D.Message;
    Text.consume_front("ptxas: ");
    M.D.Message = "ptxas " + join(M.Arches, ",") + ": " + Text.str();
    Failed |= M.D.Level == Severity::Error;
    Diags.report(std::move(M.D));
  }
  Times.add("verify (ptxas -O0)", "", Start);
  return !Failed && !Diags.hasErrors();
}

} // namespace

/// --time FILE, as nvlink's: rows appended to FILE (headings first when it is new or empty), so one file
/// collects the links of a whole build; "-" writes them to Out.
static bool writePassTimes(StringRef File, const PassTimes &Times, DiagnosticEngine &Diags, raw_ostream &Out) {
  if (File == "-") {
    Times.printCsv(Out, /*Headings=*/true);
    return true;
  }
  uint64_t Size = 0;
  bool Exists = !sys::fs::file_size(File, Size);
  std::error_code EC;
  raw_fd_ostream OS(File, EC, sys::fs::OF_Append | sys::fs::OF_Text);
  if (!EC) {
    Times.printCsv(OS, /*Headings=*/!Exists || Size == 0);
    OS.close();
    EC = OS.error();
  }
  if (EC) {
    Diags.error("cannot write --time file '" + File + "': " + EC.message(), std::vector<DiagSite>(), "cannot-write");
    return false;
  }
  return true;
}

/// The link itself: of Options.Inputs read from files, or of Preloaded objects (linkObjects).
static bool linkImpl(const LinkOptions &Options, DiagnosticEngine &Diags, raw_ostream &Out, LinkResult *Result,
                     std::vector<InputFile> *Preloaded) {
  if (Options.Threads)
    parallel::strategy = hardware_concurrency(Options.Threads);
  PassTimes Times;
  auto Finish = [&](bool Ok) {
    if (!Options.TimeFile.empty() && !writePassTimes(Options.TimeFile, Times, Diags, Out))
      Ok = false;
    if (!Ok)
      removeStaleOutput(Options);
    if (Options.Verbose && Options.Sass) { // ptxas and nvlink run as children: their memory is not counted here
      struct rusage Self;
      if (getrusage(RUSAGE_SELF, &Self) == 0)
        Out << "ptxlink: peak RSS of ptxlink itself: " << Self.ru_maxrss << " KB\n";
    }
    return Ok;
  };

  // Everything the link builds, in one place so that a process about to exit can skip taking it apart
  // (ExitWithoutFreeing): returning ~10,000 allocations and unmapping every input one by one costs about
  // a tenth of a link, and the kernel reclaims it all at exit anyway. lld does the same.
  struct LinkState {
    ArchiveExtractor Extractor;
    std::vector<InputFile> Inputs;
    ObjectFile Linked; // the output variants, one per arch; their strings live here
    std::vector<std::unique_ptr<ArchLink>> Links;
    // --sass, per linked variant: its code generation units (empty: compiled whole) and whether it calls
    // the device runtime.
    std::vector<std::vector<CodegenUnit>> UnitsOf;
    std::vector<bool> DeviceRuntimeOf;
  };
  auto State = std::make_unique<LinkState>();
  auto Abandon = make_scope_exit([&] {
    if (Options.ExitWithoutFreeing)
      (void)State.release();
  });
  ArchiveExtractor &Extractor = State->Extractor;
  std::vector<InputFile> &Inputs = State->Inputs;
  // An output that is also an input is refused before anything is read or removed (as lld does).
  {
    std::vector<std::string> Paths = inputPaths(Options);
    for (const std::string *Written : {&Options.Output, &Options.MapFile, &Options.WhyExtractFile})
      if (Error E = checkOutputIsNotInput(*Written, Paths)) {
        Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "output-is-input");
        return false;
      }
  }
  if (Preloaded)
    Inputs = std::move(*Preloaded);
  else if (!loadInputs(Options, Diags, Times, Extractor, Inputs))
    return Finish(false);

  // The device-link object defines one registration function per nvcc module: each id once.
  std::vector<std::string> ModuleIds;
  if (Options.Emit == EmitKind::HostObject) {
    StringMap<size_t> IdFrom;
    for (size_t I = 0; I < Inputs.size(); ++I) {
      if (!Inputs[I].Host)
        continue;
      auto [It, New] = IdFrom.try_emplace(Inputs[I].Host->ModuleId, I);
      if (New) {
        ModuleIds.push_back(Inputs[I].Host->ModuleId);
        continue;
      }
      Diags.error("module id " + Inputs[I].Host->ModuleId + " appears twice: the same nvcc object linked twice?",
                  {DiagSite{"in " + Inputs[It->second].Name}, DiagSite{"in " + Inputs[I].Name}}, "duplicate-module-id");
    }
    if (ModuleIds.empty())
      Diags.error("--emit host-object needs at least one object made by nvcc -rdc=true -c (or -dc): none of the inputs "
                  "has a module id to register",
                  std::vector<DiagSite>(), "no-host-objects");
    if (Diags.hasErrors())
      return Finish(false);
  }

  std::vector<ArchSpec> Arches;
  for (const std::string &A : Options.Arches)
    Arches.push_back(*parseArch(A));
  if (Arches.empty()) // --check-abi without -arch: check for the first input's first target
    for (const InputFile &F : Inputs)
      if (!F.Object->Variants.empty())
        if (auto A = parseArch(F.Object->Variants.front().Target.Arch)) {
          Arches.push_back(*A);
          break;
        }
  if (Arches.empty()) {
    Diags.error("no architecture given and none found in the inputs", std::vector<DiagSite>(), "no-arch");
    return Finish(false);
  }

  ObjectFile &Linked = State->Linked;
  std::vector<std::unique_ptr<ArchLink>> &Links = State->Links;
  DiagForwarder Forward(Diags);
  bool Multi = Arches.size() > 1;
  size_t ArchesRun = 0;
  std::vector<ArchOutput> Outputs;
  // Arches whose inputs all select the same variants (plain PTX inputs: every arch) link to the same
  // module but for its `.target` line: that module is linked once and printed with each arch's header.
  // Only the arch-dependent check is repeated. Kept per linked module: the variants it came from and
  // what its link reported, which the arches sharing it report too. (Not with per-arch reports or -r,
  // which need a link per arch.)
  struct SharedLink {
    std::vector<const ModuleVariant *> Selected;
    size_t Variant;
    std::vector<Diagnostic> Reported;
    std::vector<LocalRename> Renamed;
  };
  std::vector<SharedLink> Shared;
  bool WritesFatbin = Options.Emit == EmitKind::Fatbin || Options.Emit == EmitKind::HostObject ||
                      Options.Emit == EmitKind::CSource;
  CallGraphDot Graph; // --callgraph-dot
  bool CanShare = WritesFatbin && !Options.PrintGc && !Options.DumpCallgraph && Options.CallgraphDotFile.empty() &&
                  Options.TraceSymbols.empty() && Options.MapFile.empty();
  for (const ArchSpec &A : Arches) {
    ++ArchesRun;
    std::string Ignored;
    raw_string_ostream Sink(Ignored);
    DiagnosticEngine Local(Sink);
    Local.setRecord(true);
    Local.setErrorLimit(0);
    size_t Done = 0;
    auto L = std::make_unique<ArchLink>(Options, Inputs, A, Local, Times);
    if (!L->selectVariants()) {
      Forward.collect(Local, Done, A.name());
      continue;
    }
    if (Options.Verbose)
      for (const LinkModule &M : L->Modules)
        Out << "ptxlink: " << A.name() << ": " << M.ObjectName << ": using the " << M.M->Target.Arch
            << " variant (PTX ISA " << M.M->Target.VersionMajor << "." << M.M->Target.VersionMinor << ")\n";
    std::vector<const ModuleVariant *> Selected = CanShare ? L->selectedVariants() : std::vector<const ModuleVariant *>();
    auto Same = CanShare ? llvm::find_if(Shared, [&](const SharedLink &S) { return S.Selected == Selected; })
                         : Shared.end();
    if (Same != Shared.end()) {
      L->checkTargetVersion();
      Forward.collect(Local, Done, A.name());
      size_t FromShared = 0;
      Forward.collect(Same->Reported, FromShared, A.name());
      if (!Local.hasErrors()) {
        Outputs.push_back({Same->Variant, L->outputTarget(Linked), A.name()});
        if (Options.Verbose && L->ptxTargetIsOlder())
          Out << "ptxlink: " << A.name() << ": " << L->ptxTargetReason() << "\n";
      }
      if (Result)
        for (LocalRename R : Same->Renamed) {
          R.Arch = A.name();
          Result->Renamed.push_back(std::move(R));
        }
      continue;
    }
    L->resolve();
    Forward.collect(Local, Done, A.name());
    size_t VersionFrom = Local.recorded().size();
    L->checkTargetVersion();
    size_t VersionTo = Local.recorded().size();
    L->check();
    Forward.collect(Local, Done, A.name());
    L->markLive();
    L->checkUndefined();
    Forward.collect(Local, Done, A.name());
    if (Multi && (Options.PrintGc || Options.DumpCallgraph || !Options.TraceSymbols.empty()))
      Out << "--- " << A.name() << " ---\n";
    if (!Options.TraceSymbols.empty())
      L->traceSymbols(Out);
    if (Options.PrintGc)
      L->printGc(Out);
    if (Local.hasErrors())
      continue;
    if (Options.DumpCallgraph)
      L->dumpCallgraph(Out);
    if (!Options.CallgraphDotFile.empty())
      L->addCallGraph(Graph, Multi ? StringRef(A.name()) : StringRef());
    Linked.Variants.emplace_back();
    L->emit(Linked.Variants.back(), Linked);
    if (Options.Emit == EmitKind::HostObject)
      L->checkHostRegisteredNames();
    Forward.collect(Local, Done, A.name());
    if (Options.Sass && writesFatbin(Options.Emit)) {
      const ModuleVariant &Out = Linked.Variants.back();
      State->UnitsOf.resize(Linked.Variants.size());
      State->DeviceRuntimeOf.resize(Linked.Variants.size());
      if (!Options.WholeProgram)
        State->UnitsOf.back() = L->splitForCodegen(Options.BatchBelow);
      bool Calls = Options.DeviceRuntime;
      for (const Symbol &S : Out.Symbols)
        Calls |= S.Bind == Binding::Undefined && isDeviceRuntimeName(S.Name);
      State->DeviceRuntimeOf.back() = Calls;
    }
    Outputs.push_back({Linked.Variants.size() - 1, Linked.Variants.back().Target, A.name()});
    if (Options.Verbose && L->ptxTargetIsOlder())
      Out << "ptxlink: " << A.name() << ": " << L->ptxTargetReason() << "\n";
    std::vector<LocalRename> Renamed = Result ? L->renamedLocals() : std::vector<LocalRename>();
    if (Result)
      Result->Renamed.insert(Result->Renamed.end(), Renamed.begin(), Renamed.end());
    if (CanShare) {
      // What another arch sharing this module must report too: all but the arch-dependent check's.
      std::vector<Diagnostic> Reported(Local.recorded().begin(), Local.recorded().begin() + VersionFrom);
      Reported.insert(Reported.end(), Local.recorded().begin() + VersionTo, Local.recorded().end());
      Shared.push_back({std::move(Selected), Linked.Variants.size() - 1, std::move(Reported), std::move(Renamed)});
    }
    // The linked module stands on its own; the link's tables are needed afterwards only for --map.
    // Freed now if another arch follows, their memory serves it (peak memory of a multi-arch link). After
    // the last arch they are kept: freeing ~10,000 blocks only to exit would cost, and malloc would then
    // consolidate them all on the writer's first large allocation (2 ms for 200 modules).
    if (!Options.MapFile.empty() || &A == &Arches.back())
      Links.push_back(std::move(L));
  }
  Forward.finish(ArchesRun);
  if (Diags.hasErrors())
    return Finish(false);

  if (!Options.MapFile.empty()) {
    Error E = writeFileAtomically(Options.MapFile, [&](raw_ostream &OS) {
      for (const auto &L : Links)
        L->writeMap(OS);
      return Error::success();
    });
    if (E)
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write"); // names the map file
  }
  // --verify: ptxas over each linked module, for the arch it will run on. With --sass the compilation
  // below does the same and reports the same way.
  if (Options.Verify && !(Options.Sass && writesFatbin(Options.Emit)) &&
      !verifyWithPtxas(Options, Linked, Outputs, Diags, Times))
    return Finish(false);
  if (!Options.CallgraphDotFile.empty()) {
    std::string Title = "call graph: " + join(Options.Arches, ",");
    Error E = writeFileAtomically(Options.CallgraphDotFile, [&](raw_ostream &OS) {
      Graph.write(OS, Title);
      return Error::success();
    });
    if (E) {
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write"); // names the file
      return Finish(false);
    }
  }
  if (Options.CheckAbiOnly)
    return Finish(!Diags.hasErrors());

  auto Start = std::chrono::steady_clock::now();
  Error E = Error::success();
  (void)static_cast<bool>(E); // a success value, checked
  if (Options.Emit == EmitKind::Object) {
    E = writeOutput(Options, Out, [&](raw_ostream &OS) { return writeObject(Linked, OS); });
  } else if (Options.Emit == EmitKind::Ptx) {
    E = writeOutput(Options, Out, [&](raw_ostream &OS) {
      printModule(Linked.Variants.front(), OS);
      return Error::success();
    });
  } else {
    std::optional<SassToolchain> Tools;
    if (Options.Sass) {
      auto T = findSassToolchain(Options.LibraryPaths);
      if (!T) {
        Diags.error(toString(T.takeError()), std::vector<DiagSite>(), "no-ptxas");
        consumeError(std::move(E));
        return Finish(false);
      }
      Tools = std::move(*T);
    }
    // With --sass, the PTX image of an arch compiled whole is printed first (in parallel: independent),
    // for ptxas and then the container. Otherwise writeFatbin streams each printed module straight into
    // the output, so the text (as large as the program) is never held in memory.
    auto compiledWhole = [&](size_t I) { return Tools && State->UnitsOf[Outputs[I].Variant].empty(); };
    std::vector<std::string> Texts(Outputs.size());
    std::vector<PrintedLayout> Layouts(Outputs.size());
    parallelFor(0, Outputs.size(), [&](size_t I) {
      if (!compiledWhole(I))
        return;
      // One buffer of about the final size: the text is mostly section contents copied verbatim, debug
      // bytes grow about fourfold as `.b8` lists.
      size_t Estimate = 4096;
      for (const Section &S : Linked.Variants[Outputs[I].Variant].Sections)
        Estimate += S.Kind == SectionKind::Debug ? S.Contents.size() * 4 + 16 * S.Relocs.size()
                                                  : S.Contents.size() + S.Contents.size() / 8 + 64;
      Texts[I].reserve(Estimate);
      raw_string_ostream OS(Texts[I]);
      printModule(Linked.Variants[Outputs[I].Variant], Outputs[I].Target, OS, Layouts[I]);
    });
    std::vector<std::optional<std::string>> Cubins;
    if (Tools) {
      std::vector<SassRequest> Requests;
      for (size_t I = 0; I < Outputs.size(); ++I) {
        SassRequest Q;
        size_t V = Outputs[I].Variant;
        Q.Arch = Outputs[I].Requested;
        Q.Target = Outputs[I].Target;
        Q.Whole = &Linked.Variants[V];
        if (!compiledWhole(I))
          Q.Units = &State->UnitsOf[V];
        Q.WholeText = Texts[I];
        Q.WholeLayout = &Layouts[I];
        Q.DeviceRuntime = State->DeviceRuntimeOf[V];
        Requests.push_back(std::move(Q));
      }
      SassSettings Settings;
      if (!Options.NoCache)
        Settings.CacheDir = Options.CacheDir.empty() ? CompileCache::defaultDirectory() : Options.CacheDir;
      Settings.CacheLimit = Options.CacheLimit ? Options.CacheLimit : CompileCache::DefaultLimitBytes;
      Settings.SaveTemps = Options.SaveTemps;
      Settings.Verbose = Options.Verbose;
      Settings.PtxasOptions = Options.PtxasOptions;
      Settings.Progress = Options.Progress && !Options.Json && sys::Process::StandardErrIsDisplayed();
      Cubins = buildSass(Requests, Settings, *Tools, Diags, Times, Out);
    }
    std::vector<FatbinImage> Images;
    for (size_t I = 0; I < Outputs.size(); ++I) {
      const ModuleVariant &Module = Linked.Variants[Outputs[I].Variant];
      const TargetInfo &Target = Outputs[I].Target;
      auto Spec = parseArch(Target.Arch);
      FatbinImage Img;
      Img.Sm = Spec ? Spec->Number : 0;
      Img.ArchSpecific = Spec && Spec->Suffix == 'a';
      Img.FamilySpecific = Spec && Spec->Suffix == 'f';
      Img.Is64Bit = Target.AddressSize == 64;
      Img.Debug = Target.Debug;
      if (Tools) {
        if (!Cubins[I])
          continue; // reported
        std::string &Cubin = *Cubins[I];
        FatbinImage Elf = Img;
        if (auto Requested = parseArch(Outputs[I].Requested)) {
          Elf.Sm = Requested->Number;
          Elf.ArchSpecific = Requested->Suffix == 'a';
          Elf.FamilySpecific = Requested->Suffix == 'f';
        }
        Elf.Kind = FatbinKind::Elf;
        Elf.VersionMajor = 1;
        Elf.VersionMinor = Cubin.size() > 8 ? static_cast<uint8_t>(Cubin[8]) : 0;
        Elf.Payload = std::move(Cubin);
        Images.push_back(std::move(Elf));
      }
      // Two arches whose inputs' PTX version cannot name them (sm_100 and sm_120 linking PTX ISA 8.0)
      // print the same module for the same older target: one PTX image serves both.
      bool SamePtxAsBefore = llvm::any_of(llvm::ArrayRef(Outputs).take_front(I), [&](const ArchOutput &Earlier) {
        return Earlier.Variant == Outputs[I].Variant && Earlier.Target.Arch == Target.Arch &&
               Earlier.Target.VersionMajor == Target.VersionMajor && Earlier.Target.VersionMinor == Target.VersionMinor;
      });
      if (SamePtxAsBefore)
        continue;
      Img.Kind = FatbinKind::Ptx;
      Img.VersionMajor = Target.VersionMajor;
      Img.VersionMinor = Target.VersionMinor;
      if (compiledWhole(I))
        Img.Payload = std::move(Texts[I]);
      else
        Img.PayloadWriter = [&Module, &Target](raw_ostream &OS) { printModule(Module, Target, OS); };
      Images.push_back(std::move(Img));
    }
    if (Diags.hasErrors()) {
      consumeError(std::move(E));
      return Finish(false);
    }
    if (Options.Emit == EmitKind::HostObject || Options.Emit == EmitKind::CSource) {
      // The fatbinary goes inside another file: build it in memory first.
      std::string Fatbin;
      raw_string_ostream FatbinOS(Fatbin);
      if (Error W = writeFatbin(Images, fatbinWriteOptions(Options), FatbinOS)) {
        consumeError(std::move(E));
        E = std::move(W);
      } else if (Options.Emit == EmitKind::HostObject) {
        E = writeOutput(Options, Out, [&](raw_ostream &OS) { return writeDeviceLinkObject(Fatbin, ModuleIds, OS); });
      } else {
        E = writeOutput(Options, Out, [&](raw_ostream &OS) {
          writeEmbeddedFatbinSource(Fatbin, OS);
          return Error::success();
        });
      }
    } else {
      E = writeOutput(Options, Out, [&](raw_ostream &OS) {
        FatbinWriteOptions Write = fatbinWriteOptions(Options);
        // writeFileAtomically writes through a raw_fd_ostream (ObjectFormat.h): a fresh temporary file.
        if (Options.Output != "-")
          Write.PatchableFile = static_cast<raw_fd_ostream *>(&OS);
        return writeFatbin(Images, Write, OS);
      });
    }
  }
  Times.add("write output", "", Start);
  if (E) {
    Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write"); // names the output file
    return Finish(false);
  }
  return Finish(true);
}

bool link(const LinkOptions &Options, DiagnosticEngine &Diags, raw_ostream &Out, LinkResult *Result) {
  return linkImpl(Options, Diags, Out, Result, nullptr);
}

bool linkObjects(const LinkOptions &Options, std::vector<InputFile> Objects, DiagnosticEngine &Diags,
                 raw_ostream &Out) {
  LinkOptions InMemory = Options;
  InMemory.Output = "-";
  InMemory.MapFile.clear();
  InMemory.WhyExtractFile.clear();
  InMemory.TimeFile.clear();
  InMemory.Inputs.clear();
  return linkImpl(InMemory, Diags, Out, nullptr, &Objects);
}

int runLinkerTool(ArrayRef<std::string> Args, raw_ostream &Out, raw_ostream &Err, bool ProcessExitsAfter) {
  DiagnosticEngine Diags(Err, "ptxlink");
  // Diagnostic settings apply to option errors too, so look for them first.
  for (const std::string &A : Args) {
    if (A == "--json" || A == "-json")
      Diags.setJson(true);
    else if (A == "-Werror" || A == "--Werror")
      Diags.setWarningsAsErrors(true);
    else if (A == "-w" || A == "--disable-warnings" || A == "-disable-warnings")
      Diags.setSuppressWarnings(true);
  }
  std::string Informational;
  std::optional<LinkOptions> Options = parseLinkOptions(Args, Diags, Informational);
  if (Informational == "help") {
    printLinkerHelp(Out);
    return 0;
  }
  if (Informational == "version") {
    Out << "ptxlink version " << PTXLINK_VERSION << "\n";
    return 0;
  }
  if (!Options)
    return 1;
  Options->ExitWithoutFreeing = ProcessExitsAfter;
  Diags.setErrorLimit(Options->ErrorLimit);
  Diags.setJson(Options->Json);
  Diags.setWarningsAsErrors(Options->WarningsAsErrors);
  Diags.setSuppressWarnings(Options->NoWarnings);
  return link(*Options, Diags, Out) ? 0 : 1;
}

} // namespace ptxlink
