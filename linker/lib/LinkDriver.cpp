// The link as a sequence of passes, and `ptxlink` as a library call.
//
// The problem: one command links for several architectures into one output that must be written
// atomically (a failed link leaves no file, not even a stale one) and byte-identically whatever the
// thread count. Each arch is an independent link (LinkedArch: its symbol table, target and output,
// filled by the passes of LinkPasses.h); their diagnostics are usually the same (plain
// inputs select the same variant everywhere), so each is reported once, in the order first seen, and one
// that differs between arches names the arches it is about (DiagForwarder).
#include "ptxlink/CallGraphDot.h"
#include "ptxlink/Executor.h"
#include "CompileCache.h"
#include "CubinInputs.h"
#include "ptxlink/Fatbin.h"
#include "ptxlink/HostEmbed.h"
#include "ptxlink/InputFiles.h"
#include "InputTextPages.h"
#include "LinkContext.h"
#include "LinkPasses.h"
#include "LinkOutput.h"
#include "LtoLink.h"
#include "ptxlink/Linker.h"
#include "ptxlink/ObjectFormat.h"
#include "PtxasMessages.h"
#include "SassBuild.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"

#include <chrono>

#include <sys/resource.h>

using namespace llvm;

namespace ptxlink {

namespace {

/// Forwards diagnostics recorded by the per-arch engines to the real one, each with the set of arches
/// that reported it. A diagnostic that every arch reported identically (the usual case: plain inputs
/// select the same variant everywhere, and a group of such arches runs its passes once) is reported once,
/// as it is; one that only some arches reported (a fat object contributes a different variant per arch,
/// so its sites differ) is reported once with those arches named in front ("sm_90: ..."), in -arch order,
/// so the reader can tell the copies apart. Order: as first seen.
class DiagForwarder {
public:
  /// ArchOrder: every arch of the link, in -arch order (the order the arch names are given in).
  DiagForwarder(DiagnosticEngine &Main, std::vector<std::string> ArchOrder) : Main(Main), ArchOrder(std::move(ArchOrder)) {}

  /// Takes what Local recorded since Done (the passes run so far), as reported by Arches.
  void collect(const DiagnosticEngine &Local, size_t &Done, ArrayRef<std::string> Arches) {
    ArrayRef<Diagnostic> R = Local.recorded();
    for (; Done < R.size(); ++Done) {
      const Diagnostic &D = R[Done];
      std::string Key = std::to_string(static_cast<int>(D.Level)) + "\x1f" + D.File + "\x1f" + D.Message;
      for (const DiagSite &S : D.Sites)
        Key += "\x1f" + S.text();
      auto [It, New] = Index.try_emplace(Key, Pending.size());
      if (New)
        Pending.push_back({D, {}});
      std::vector<std::string> &Reporters = Pending[It->second].Arches;
      for (const std::string &A : Arches)
        if (!is_contained(Reporters, A))
          Reporters.push_back(A);
    }
  }

  /// Reports everything collected; ArchesRun = how many arches were linked.
  void finish(size_t ArchesRun) {
    auto Rank = [&](const std::string &A) { return llvm::find(ArchOrder, A) - ArchOrder.begin(); };
    for (Entry &E : Pending) {
      Diagnostic D = std::move(E.D);
      llvm::stable_sort(E.Arches, [&](const std::string &X, const std::string &Y) { return Rank(X) < Rank(Y); });
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
    std::vector<std::string> Arches; // that reported it
  };
  DiagnosticEngine &Main;
  std::vector<std::string> ArchOrder;
  std::vector<Entry> Pending;
  StringMap<size_t> Index; // key (level, file, message, sites) -> Pending index
};

/// The --emit spelling of an output kind.
StringRef emitKindName(EmitKind Kind) {
  switch (Kind) {
  case EmitKind::Fatbin:
    return "fatbin";
  case EmitKind::Ptx:
    return "ptx";
  case EmitKind::Object:
    return "obj";
  case EmitKind::HostObject:
    return "host-object";
  case EmitKind::CSource:
    return "c";
  }
  return "fatbin";
}

/// Removes a previous output so a failed link leaves nothing stale behind (a regular file only: never a
/// directory or device named by -o, nor the target of a symbolic link).
void removeStaleOutput(const LinkOptions &O) {
  if (!O.CheckAbiOnly && !O.DryRun)
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

/// --verify: runs ptxas (-O0: the front end's checks are what matter, and its code generation is the
/// cheapest) over every linked module for the arch it was linked for, in parallel, and reports its
/// messages at the inputs' lines. A message every arch gave alike is reported once, naming them all.
/// Returns false if ptxas found an error (or could not run).
bool verifyWithPtxas(const LinkOptions &Options, const ObjectFile &Linked, ArrayRef<ArchOutput> Outputs,
                     DiagnosticEngine &Diags, PassTimes &Times) {
  PassTimes::Scope Timed = Times.scope("verify (ptxas -O0)", "");
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
  Options.Exec->parallelFor(0, Outputs.size(), [&](size_t I) {
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
  return !Failed && !Diags.hasErrors();
}

} // namespace

/// --time FILE, as nvlink's: rows appended to FILE (headings first when it is new or empty), so one file
/// collects the links of a whole build; "-" writes them to the diagnostics' stream (standard error:
/// standard output carries the output itself with -o -).
static bool writePassTimes(StringRef File, const PassTimes &Times, DiagnosticEngine &Diags) {
  if (File == "-") {
    Times.printCsv(Diags.stream(), /*Headings=*/true);
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

namespace {

/// One arch's link between its passes: the symbol table (selection for every arch; for a group's lead,
/// which runs the group's passes, also resolution, liveness and the output's symbols), the target its
/// PTX is written for, and for a group's lead the module emit made.
struct LinkedArch {
  explicit LinkedArch(const Target &Arch) : Choice{Arch} {}
  std::string name() const { return Choice.Arch.name(); }
  SymbolTable Symtab;
  TargetChoice Choice;  // checkTargetVersion's, for this arch
  OutputModule Output;  // emitModule's (a group's lead)
};

/// Everything the link builds, in one place so that a process about to exit can skip taking it apart
/// (ExitWithoutFreeing): returning ~10,000 allocations and unmapping every input one by one costs about
/// a tenth of a link, and the kernel reclaims it all at exit anyway. lld does the same.
struct LinkState {
  /// The link's one table of names, interned at load (LinkNames.h); the extractor's states and each
  /// group's GlobalSymbols are indexed by its ids.
  LinkNames Names;
  ArchiveExtractor Extractor{Names};
  std::vector<InputFile> Inputs;
  std::vector<std::unique_ptr<LinkedArch>> Links;
  explicit LinkState(const LinkOptions &Options) : TextPages(Options.ReleaseInputTextAfter) {}
  /// The inputs' text given back between reading and printing; the printer reaches it through this.
  InputTextPages TextPages;
  LinkedProgram Program; // what the output pass writes
};

/// Every file the link writes is claimed before anything is read or removed (as lld does): none may be
/// an input, nor the same file as another of them.
bool checkOutputsAreNotInputs(const LinkOptions &Options, DiagnosticEngine &Diags) {
  OutputFiles Written(inputPaths(Options));
  std::pair<const std::string *, StringRef> Files[] = {{&Options.Output, "output file"},
                                                       {&Options.MapFile, "--map file"},
                                                       {&Options.WhyExtractFile, "--why-extract file"},
                                                       {&Options.CallgraphDotFile, "--callgraph-dot file"},
                                                       {&Options.TimeFile, "--time file"}};
  for (auto [Path, What] : Files)
    if (Error E = Written.claim(*Path, What)) {
      Diags.error(toString(std::move(E)) + "; nothing was written", std::vector<DiagSite>(), "output-is-input");
      return false;
    }
  return true;
}

/// The device-link object defines one registration function per nvcc module: each id once, in input order.
bool collectModuleIds(ArrayRef<InputFile> Inputs, std::vector<std::string> &ModuleIds, DiagnosticEngine &Diags) {
  StringMap<size_t> IdFrom;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    // A fatbinary or cubin input has no host code to register.
    if (!Inputs[I].Host || Inputs[I].Host->FatbinInput || Inputs[I].Host->CubinInput)
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
  return !Diags.hasErrors();
}

void reportNoDeviceCode(const LinkOptions &Options, DiagnosticEngine &Diags) {
  std::vector<DiagSite> Sites;
  for (const LinkInput &In : Options.Inputs) {
    if (In.What == LinkInput::Library) {
      Sites.push_back({"-l" + In.Path + ": a static library none of whose members defines a symbol the link needed, "
                                        "or a host library"});
      continue;
    }
    auto Buffer = MemoryBuffer::getFile(In.Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    Sites.push_back({In.Path + ": " + (Buffer ? whyNoDeviceCode((*Buffer)->getBuffer()) : Buffer.getError().message())});
  }
  if (Sites.empty())
    Sites.push_back({"no input files were given"});
  Diags.error("no device code to link: none of the inputs holds PTX or a ptxlink object for the link", std::move(Sites),
              "no-device-code");
}

/// The arches to link: -arch's, or for --check-abi without -arch the first input's first target.
/// Empty (and reported) when there is none.
std::vector<Target> archesToLink(const LinkOptions &Options, ArrayRef<InputFile> Inputs, DiagnosticEngine &Diags) {
  std::vector<Target> Arches;
  for (const std::string &A : Options.Arches)
    Arches.push_back(*parseArch(A));
  // nvcc's -arch=all (all-major): every architecture (every XX0 one) the inputs carry PTX for, in order.
  if (Options.ArchesFromInputs != LinkOptions::ListedArches) {
    std::vector<Target> Found;
    auto Add = [&](StringRef Arch) {
      if (auto A = parseArch(Arch); A && !is_contained(Found, *A) &&
                                    (Options.ArchesFromInputs == LinkOptions::AllArches || A->name().back() == '0'))
        Found.push_back(*A);
    };
    // The arches of their PTX, and of their SASS (nvcc -arch=all compiles SASS for sm_121 from compute_120
    // PTX: nvcc -dlink links an sm_121 image, and so does this link, from that PTX or that SASS).
    for (const InputFile &F : Inputs) {
      for (const ModuleVariant &V : F.Object->Variants)
        Add(V.Target.Arch);
      if (F.Host)
        for (const std::string &A : F.Host->CubinArches)
          Add(A);
    }
    llvm::sort(Found, [](const Target &X, const Target &Y) { return X.name() < Y.name(); });
    for (const Target &A : Found)
      if (!is_contained(Arches, A))
        Arches.push_back(A);
  }
  if (Arches.empty())
    for (const InputFile &F : Inputs)
      if (!F.Object->Variants.empty())
        if (auto A = parseArch(F.Object->Variants.front().Target.Arch)) {
          Arches.push_back(*A);
          break;
        }
  if (Arches.empty())
    Diags.error("no architecture given and none found in the inputs", std::vector<DiagSite>(), "no-arch");
  return Arches;
}

/// One arch's link with the engine its passes report to (each arch's diagnostics are recorded apart and
/// forwarded once, DiagForwarder).
struct ArchRun {
  std::string Ignored;
  raw_string_ostream Sink{Ignored};
  DiagnosticEngine Local{Sink};
  size_t Forwarded = 0; // Local's diagnostics forwarded so far
  std::unique_ptr<LinkedArch> Link;
  size_t Order = 0;     // in -arch order
};

/// Arches that link one module: their inputs select the same variants (plain PTX inputs: every arch), so
/// the module differs only in its `.target` line. The arch-independent passes (resolveSymbols, checkAbi,
/// markLive, checkUndefined, emitModule) run once, on the first arch's link; each arch runs its own
/// checkTargetVersion.
/// Without sharing (per-arch reports, --map, -r, --emit ptx), a group holds one arch.
struct ArchGroup {
  std::vector<ArchRun *> Runs; // in -arch order; Runs.front() runs the group's passes
  std::vector<std::string> Names;
};

/// --sass, after a group's emit: its module cut into the units ptxas compiles (splitForCodegen; a cubin
/// input's unit is its own bytes, CubinInputs.h) and whether it calls the device runtime, as the last
/// entries of State.Program's UnitsOf and DeviceRuntimeOf. With -v, the inputs' SASS that cannot stand for
/// their code is named, and why. False where a cubin input cannot serve (reported into Local).
bool planSassUnits(const LinkOptions &Options, LinkState &State, LinkedArch &L, DiagnosticEngine &Local,
                   StringRef Arch, raw_ostream &Out) {
  LinkedProgram &Program = State.Program;
  const ModuleVariant &Module = *L.Output.Module;
  std::vector<std::string> ReuseNotes;
  std::vector<std::string> *Notes = Options.Verbose ? &ReuseNotes : nullptr;
  Program.UnitsOf.resize(Program.Linked.Variants.size());
  Program.DeviceRuntimeOf.resize(Program.Linked.Variants.size());
  if (!Options.WholeProgram)
    Program.UnitsOf.back() = splitForCodegen(L.Symtab, L.Output, Options, State.Inputs, Options.BatchBelow, Notes);
  if (Program.SassOnly && !markCubinUnits(L.Symtab, Module, Options, State.Inputs, Program.UnitsOf.back(), Local, Notes))
    return false;
  bool Calls = Options.DeviceRuntime;
  for (const Symbol &S : Module.Symbols)
    Calls |= S.Bind == Binding::Undefined && isDeviceRuntimeName(S.name());
  Program.DeviceRuntimeOf.back() = Calls;
  for (const std::string &N : ReuseNotes)
    Out << "ptxlink: " << Arch << ": " << N << "\n";
  return true;
}

/// The passes of LinkPasses.h: selectVariants and checkTargetVersion for every arch; then, per group of
/// arches that select the same variants (ArchGroup), resolveSymbols, checkAbi, markLive, checkUndefined and
/// emitModule (and, for --sass, the units ptxas compiles). Each diagnostic is forwarded to Diags once, with the arches that
/// reported it (DiagForwarder). After: one linked module per group in Linked.Variants (in order of each
/// group's first arch), and Outputs, per arch in -arch order, naming its module and `.target` header.
void linkEachArch(const LinkOptions &Options, ArrayRef<Target> Arches, LinkState &State, CallGraphDot &Graph,
                  DiagnosticEngine &Diags, PassTimes &Times, LinkResult *Result) {
  // -v lines and the reports (--trace-symbol, --print-gc, --dump-callgraph) go where diagnostics go,
  // standard error: standard output is the output's alone (-o -).
  raw_ostream &Out = Diags.stream();
  const std::vector<InputFile> &Inputs = State.Inputs;
  ObjectFile &Linked = State.Program.Linked;
  std::vector<ArchOutput> &Outputs = State.Program.Outputs;
  std::vector<std::string> ArchNames;
  for (const Target &A : Arches)
    ArchNames.push_back(A.name());
  DiagForwarder Forward(Diags, ArchNames);
  const bool Multi = Arches.size() > 1;
  const bool CanShare = writesFatbin(Options.Emit) && !Options.PrintGc && !Options.DumpCallgraph &&
                        Options.CallgraphDotFile.empty() && Options.TraceSymbols.empty() && Options.MapFile.empty();

  // Selection, per arch. After: every arch whose inputs all have a usable variant is in one group.
  std::vector<std::unique_ptr<ArchRun>> Runs;
  std::vector<ArchGroup> Groups;
  std::vector<std::vector<const ModuleVariant *>> GroupSelection;
  for (size_t I = 0; I < Arches.size(); ++I) {
    auto &R = *Runs.emplace_back(std::make_unique<ArchRun>());
    R.Order = I;
    R.Local.setRecord(true);
    R.Local.setErrorLimit(0);
    R.Link = std::make_unique<LinkedArch>(Arches[I]);
    std::vector<LinkModule> &Modules = R.Link->Symtab.Modules;
    bool Selected = Times.run("select variants", ArchNames[I],
                              [&] { return selectVariants(Options, Inputs, Arches[I], R.Local, R.Link->Symtab); });
    if (Selected) {
      if (Options.Verbose)
        for (const LinkModule &M : Modules)
          if (M.M->Target.SassOnly)
            Out << "ptxlink: " << ArchNames[I] << ": " << M.ObjectName << ": using its " << M.M->Target.Arch
                << " SASS (it has no PTX for " << ArchNames[I] << ")\n";
          else
            Out << "ptxlink: " << ArchNames[I] << ": " << M.ObjectName << ": using the " << M.M->Target.Arch
                << " variant (PTX ISA " << M.M->Target.VersionMajor << "." << M.M->Target.VersionMinor << ")\n";
      // The one decision that depends on the arch alone: the `.target` the module can be written for.
      R.Link->Choice = checkTargetVersion(Modules, Arches[I], R.Local);
    }
    Forward.collect(R.Local, R.Forwarded, {ArchNames[I]});
    if (!Selected)
      continue;
    std::vector<const ModuleVariant *> Selection = selectedVariants(Modules);
    size_t G = 0;
    while (G < Groups.size() && !(CanShare && GroupSelection[G] == Selection))
      ++G;
    if (G == Groups.size()) {
      Groups.emplace_back();
      GroupSelection.push_back(std::move(Selection));
    }
    Groups[G].Runs.push_back(&R);
    Groups[G].Names.push_back(ArchNames[I]);
  }

  // The arch-independent passes, once per group. Each group's module stays where emit made it: the
  // links kept for --map refer to it by address (OutputModule::Module) after the last group, so the
  // modules' table must not move while groups add to it.
  Linked.Variants.reserve(Linked.Variants.size() + Groups.size());
  // Each group looks names up in the link's table until its emit has chosen the output symbols; the
  // last one to finish frees the table.
  State.Extractor.names().addUsers(uint32_t(Groups.size()));
  std::vector<std::pair<size_t, ArchOutput>> Ordered; // (arch order, output)
  for (ArchGroup &Group : Groups) {
    // The group's passes run on an arch whose own check passed, if one did: another arch of the group
    // then still gets its module.
    auto Passed = llvm::find_if(Group.Runs, [](const ArchRun *R) { return !R->Local.hasErrors(); });
    if (Passed != Group.Runs.end()) {
      std::swap(Group.Names[Passed - Group.Runs.begin()], Group.Names.front());
      std::iter_swap(Passed, Group.Runs.begin());
    }
    ArchRun &Lead = *Group.Runs.front();
    LinkedArch &L = *Lead.Link;
    SymbolTable &Symtab = L.Symtab;
    DiagnosticEngine &LeadDiags = Lead.Local;
    const std::string &A = Group.Names.front();
    // After: every visible name bound to its one definition (docs/linker.md, "Resolution"), module-local
    // symbols kept apart; Globals, Sites and each module's Global table fixed.
    Times.run("resolve symbols", A, [&] { resolveSymbols(Symtab, State.Extractor.names(), Inputs, LeadDiags); });
    // After: every declaration and losing definition checked against its winner, kernels and aliases too.
    Times.run("check", A, [&] { checkAbi(Symtab, Options, LeadDiags); });
    // After: SectionLive and GlobalSymbol::Live: what the kernels and visible variables reach.
    Times.run("mark live", A, [&] { markLive(Symtab, Options, Inputs); });
    // After: every live reference reaches a definition (-r keeps undefined names for a later link).
    if (!Options.Relocatable)
      Times.run("check undefined", A, [&] { checkUndefined(Symtab, Options, LeadDiags); });
    Forward.collect(Lead.Local, Lead.Forwarded, Group.Names);
    if (Multi && (Options.PrintGc || Options.DumpCallgraph || !Options.TraceSymbols.empty()))
      Out << "--- " << A << " ---\n";
    if (!Options.TraceSymbols.empty())
      traceSymbols(Symtab, Options.TraceSymbols, L.name(), Out);
    if (Options.PrintGc)
      printGc(Symtab, L.name(), Out);
    if (Lead.Local.hasErrors())
      continue;
    if (Options.DumpCallgraph)
      dumpCallgraph(Symtab, L.name(), Out);
    if (!Options.CallgraphDotFile.empty())
      addCallGraph(Symtab, Graph, Multi ? StringRef(A) : StringRef());
    Linked.Variants.emplace_back();
    const size_t Variant = Linked.Variants.size() - 1;
    // After: the group's module, every module's SymOut/SecOut; the name index released.
    L.Output = Times.run("emit module", A, [&] {
      return emitModule(Symtab, Options, Inputs, L.Choice, LeadDiags, Linked.Variants.back(), Linked);
    });
    const ModuleVariant &Module = *L.Output.Module;
    if (Options.Emit == EmitKind::HostObject)
      checkHostRegisteredNames(Symtab, Module, Inputs, LeadDiags);
    Forward.collect(Lead.Local, Lead.Forwarded, Group.Names);
    if (Options.Sass && writesFatbin(Options.Emit) && !planSassUnits(Options, State, L, Lead.Local, A, Out)) {
      Forward.collect(Lead.Local, Lead.Forwarded, Group.Names);
      continue;
    }
    // The options its PTX image records for the driver's JIT compile (the group's modules are the same);
    // a fatbinary of SASS alone has no PTX image.
    const std::string JitOptions = writesFatbin(Options.Emit) && !State.Program.SassOnly
                                       ? ptxJitOptions(Symtab, Inputs, Options, Lead.Local)
                                       : std::string();
    Forward.collect(Lead.Local, Lead.Forwarded, Group.Names);
    std::vector<LocalRename> Renamed = Result ? renamedLocals(Symtab, Module, L.name()) : std::vector<LocalRename>();
    for (ArchRun *R : Group.Runs) {
      if (R->Local.hasErrors() && R != &Lead)
        continue; // its own check failed (reported)
      const TargetChoice &Choice = R->Link->Choice;
      Ordered.push_back({R->Order,
                         {Variant, outputTarget(R->Link->Symtab.Modules, Choice.ptxTarget(), Linked),
                          ArchNames[R->Order], JitOptions}});
      if (Options.Verbose && Choice.ptxTargetIsOlder())
        Out << "ptxlink: " << ArchNames[R->Order] << ": " << Choice.ptxTargetReason(Options.Sass) << "\n";
      if (Result)
        for (LocalRename Rename : Renamed) {
          Rename.Arch = ArchNames[R->Order];
          Result->Renamed.push_back(std::move(Rename));
        }
    }
    // The linked module stands on its own; the link's tables are needed afterwards only for --map.
    // Freed now if another group follows, their memory serves it (peak memory of a multi-arch link). After
    // the last group they are kept: freeing ~10,000 blocks only to exit would cost, and malloc would then
    // consolidate them all on the writer's first large allocation (2 ms for 200 modules).
    if (!Options.MapFile.empty() || &Group == &Groups.back())
      State.Links.push_back(std::move(Lead.Link));
    else
      Lead.Link.reset();
  }
  llvm::stable_sort(Ordered, [](const auto &X, const auto &Y) { return X.first < Y.first; });
  for (auto &O : Ordered)
    Outputs.push_back(std::move(O.second));
  Forward.finish(Arches.size());
}

/// The reports that read the linked modules: --map, --verify (ptxas), --callgraph-dot. Returns false
/// where the link must stop; a --map file that cannot be written is reported and the link goes on.
bool writeLinkReports(const LinkOptions &Options, LinkState &State, const CallGraphDot &Graph, DiagnosticEngine &Diags,
                      PassTimes &Times) {
  const ObjectFile &Linked = State.Program.Linked;
  const std::vector<std::unique_ptr<LinkedArch>> &Links = State.Links;
  if (!Options.MapFile.empty()) {
    Error E = writeFileAtomically(Options.MapFile, [&](raw_ostream &OS) {
      for (const auto &L : Links)
        writeMap(L->Symtab, L->Output.Module, L->name(), OS);
      return Error::success();
    });
    if (E)
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write"); // names the map file
  }
  // --verify: ptxas over each linked module, for the arch it will run on. With --sass the compilation
  // in the output pass (LinkOutput.cpp) does the same and reports the same way.
  if (Options.Verify && !(Options.Sass && writesFatbin(Options.Emit)) &&
      !verifyWithPtxas(Options, Linked, State.Program.Outputs, Diags, Times))
    return false;
  if (!Options.CallgraphDotFile.empty()) {
    std::string Title = "call graph: " + join(Options.Arches, ",");
    Error E = writeFileAtomically(Options.CallgraphDotFile, [&](raw_ostream &OS) {
      Graph.write(OS, Title);
      return Error::success();
    });
    if (E) {
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write"); // names the file
      return false;
    }
  }
  return true;
}


} // namespace

/// --dryrun's account of a link whose checks have all run: the output, and with SASS the ptxas run of each
/// code generation unit and the nvlink run of each arch, as -v would show them (in the temporary folder,
/// here `TMP/`). What the cache holds, and whether an input's own cubin was made by this ptxas with these
/// options, is only known when the link runs: those lines say what they depend on.
static void printDryRun(const LinkOptions &Options, ArrayRef<Target> Arches, const LinkedProgram &Program,
                        raw_ostream &Log) {
  std::string ArchList;
  for (const Target &A : Arches)
    ArchList += (ArchList.empty() ? "" : ",") + A.name();
  Log << "#$ ptxlink: would write " << Options.Output << " (" << emitKindName(Options.Emit) << ") for " << ArchList
      << "\n";
  if (!Options.Sass || !writesFatbin(Options.Emit) || Options.Dlto)
    return;
  for (const ArchOutput &O : Program.Outputs) {
    if (!Options.SassArches.empty() && !is_contained(Options.SassArches, O.Requested))
      continue;
    const bool Runtime = O.Variant < Program.DeviceRuntimeOf.size() && Program.DeviceRuntimeOf[O.Variant];
    std::string Ptxas = "ptxas -arch=" + O.Requested + (O.Target.Debug ? " -g" : "");
    for (const std::string &X : Options.PtxasOptions)
      Ptxas += " " + X;
    const std::vector<CodegenUnit> *Units =
        O.Variant < Program.UnitsOf.size() ? &Program.UnitsOf[O.Variant] : nullptr;
    std::string Cubins;
    if (!Units || Units->empty()) {
      std::string Base = "TMP/linked-" + O.Requested;
      Log << "#$ " << Ptxas << (Runtime ? " -c" : "") << " -o " << Base << ".cubin " << Base
          << ".ptx   # the whole linked module; skipped if the compile cache has it\n";
      if (!Runtime)
        continue;
      Cubins = " " + Base + ".cubin";
    } else {
      for (size_t U = 0; U < Units->size(); ++U) {
        const CodegenUnit &Unit = (*Units)[U];
        std::string Base = "TMP/" + std::to_string(U) + "-" + sys::path::filename(Unit.ObjectName).str() + "-" + O.Requested;
        const bool OwnCubin = Unit.InputSass && !Options.RecompileSass &&
                              any_of(*Unit.InputSass, [&](const FatbinImage &I) { return I.Arch.name() == O.Requested; });
        if (Unit.InputIsCubin) {
          Cubins += " " + Unit.ObjectName;
          Log << "#$ # " << Unit.ObjectName << ": a cubin, given to nvlink as it is\n";
          continue;
        }
        Cubins += " " + Base + ".cubin";
        if (OwnCubin)
          Log << "#$ # " << Unit.ObjectName << ": its own " << O.Requested
              << " cubin, if this ptxas made it with these options; else:\n";
        Log << "#$ " << Ptxas;
        if (Options.PtxasOptions.empty()) // the options its object recorded, as nvcc compiled it
          for (const std::string &X : Unit.RecordedPtxasOptions)
            Log << " " << X;
        Log << " -c -o " << Base << ".cubin " << Base << ".ptx   # " << Unit.ObjectName
            << "'s part of the linked module; skipped if the compile cache has it\n";
      }
    }
    Log << "#$ nvlink -arch=" << O.Requested;
    for (const std::string &X : Options.NvlinkOptions)
      Log << " " << X;
    Log << " -o TMP/linked-" << O.Requested << ".cubin" << Cubins << (Runtime ? " -L<toolkit>/lib64 -lcudadevrt" : "")
        << "\n";
  }
}

/// The CUDA device runtime (device-side cudaMalloc/cudaFree, kernel launches from kernels) exists as SASS
/// only (libcudadevrt.a), and so does the code of an nvcc object whose cubin stands in for an arch its PTX
/// does not serve (addSassVariants): a fatbinary or device-link object of such a program needs SASS. Does
/// what nvcc -dlink does, compile SASS and let nvlink link them, rather than stop: sets Options.Sass (and
/// DeviceRuntime) where the program needs it and starts looking for ptxas. True where some input's SASS
/// stands in for its module.
static bool makeSassWhereNeeded(LinkOptions &Options, LinkState &State, DiagnosticEngine &Diags) {
  const bool SassStandIns =
      llvm::any_of(State.Inputs, [](const InputFile &In) { return In.Host && In.Host->SassVariants; });
  if (Options.Sass || Options.Dlto || !writesFatbin(Options.Emit))
    return SassStandIns;
  std::string Called = deviceRuntimeCalled(State.Inputs);
  if (Options.Verbose && !Called.empty()) // nvcc -dlink does the same without a word
    Diags.note("the program calls the CUDA device runtime (" + Called +
                   "), which NVIDIA ships as SASS only: compiling SASS for the linked architectures and letting "
                   "nvlink link the device runtime, as nvcc -dlink does (as with --sass -lcudadevrt)",
               std::vector<DiagSite>(), "device-runtime-sass");
  else if (Options.Verbose && SassStandIns)
    Diags.note("some nvcc objects have SASS and no PTX for a linked architecture: linking SASS with nvlink, as "
               "nvcc -dlink does (as with --sass)",
               std::vector<DiagSite>(), "sass-only-objects");
  if (!Called.empty() || SassStandIns) {
    Options.Sass = true;
    Options.DeviceRuntime |= !Called.empty();
    State.Program.Toolchain = Options.Exec->run([&Options] { return findSassToolchain(Options.LibraryPaths); });
  }
  return SassStandIns;
}

/// The link itself: of Options.Inputs read from files, or of Preloaded objects (linkObjects). A sequence
/// of passes, each saying what is fixed once it has run (docs/architecture.md, docs/linker.md).
/// Options: the options the link runs with, as requested, except that a program calling the CUDA device
/// runtime gets SASS (below). Taken by value: the tool moves its options in, since a copy of the input list
/// is a per-module cost (10^5 modules in one link).
static bool linkImpl(LinkOptions Options, DiagnosticEngine &Diags, raw_ostream &Out, LinkResult *Result,
                     std::vector<InputFile> *Preloaded) {
  std::optional<Executor> OwnExecutor;
  if (!Options.Exec)
    Options.Exec = &OwnExecutor.emplace(Options.Threads);
  PassTimes Times;
  // Every way out after the inputs are read: --time's rows, no stale output after a failure.
  auto Finish = [&](bool Ok) {
    if (!Options.TimeFile.empty() && !writePassTimes(Options.TimeFile, Times, Diags))
      Ok = false;
    if (!Ok)
      removeStaleOutput(Options);
    if (Options.Verbose && Options.Sass) { // ptxas and nvlink run as children: their memory is not counted here
      struct rusage Self;
      if (getrusage(RUSAGE_SELF, &Self) == 0)
        Diags.stream() << "ptxlink: peak RSS of ptxlink itself: " << Self.ru_maxrss << " KB\n";
    }
    return Ok;
  };

  auto State = std::make_unique<LinkState>(Options);
  auto Abandon = make_scope_exit([&] {
    if (State->Program.Toolchain.valid()) // its temporary file goes before the process does
      State->Program.Toolchain.wait();
    if (Options.ExitWithoutFreeing)
      (void)State.release();
  });

  // Nothing is read or removed before this check.
  if (!checkOutputsAreNotInputs(Options, Diags))
    return false;

  // --sass: `ptxas --version` (part of every cache key) runs beside the link, not after it.
  if (Options.Sass && writesFatbin(Options.Emit))
    State->Program.Toolchain = Options.Exec->run([&Options] { return findSassToolchain(Options.LibraryPaths); });

  // Inputs. After: State->Inputs holds every input in command-line order, then the archive members
  // extracted (lazily, as lld does) in extraction order; PTX is assembled, nvcc host objects' PTX read.
  if (Preloaded)
    State->Inputs = std::move(*Preloaded);
  else if (!loadInputs(Options, Diags, Times, State->Extractor, State->TextPages, State->Inputs, Out))
    return Finish(false);
  if (Options.Verbose && State->TextPages.detachedInputs())
    Diags.stream() << "ptxlink: gave back the text of " << State->TextPages.detachedInputs() << " objects ("
                   << State->TextPages.detachedBytes() << " bytes) until printing (--release-input-text-after)\n";
  // From here on the link works from State->Inputs; the command line's list is read again only to say why
  // no input gave device code (reportNoDeviceCode). A path and its record per input, 10^5 of them.
  if (!State->Inputs.empty())
    std::vector<LinkInput>().swap(Options.Inputs);

  // LTO-IR is never dropped silently (LtoLink.h). After: a warning for LTO-IR that goes unused, an error
  // for LTO-IR-only inputs without -dlto.
  if (!checkLtoInputs(Options, State->Inputs, Diags))
    return Finish(false);

  // The CUDA device runtime and nvcc objects' SASS standing in for their modules need SASS: the link makes
  // it, as nvcc -dlink does. After: Options.Sass is set where the program needs it.
  const bool SassStandIns = makeSassWhereNeeded(Options, *State, Diags);

  // A device link of objects that hold no device code to link (plain `nvcc -c` objects, nvcc archives none of
  // whose members anything needs) registers nothing, and the host link needs its object all the same:
  // nvcc -dlink writes one, and so does ptxlink, with an empty fatbinary and no module to register.
  if (!Preloaded && State->Inputs.empty() && Options.Emit == EmitKind::HostObject) {
    if (Options.Verbose)
      Diags.note("no input holds device code to link: the device-link object registers nothing",
                 std::vector<DiagSite>(), "nothing-to-register");
    if (Error E = writeEmbeddedFatbin(Options, {}, FatbinWriteOptions(), {}, Out)) {
      Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "cannot-write");
      return Finish(false);
    }
    return Finish(true);
  }

  // --emit host-object. After: the nvcc module ids to register, each once, in input order.
  if (Options.Emit == EmitKind::HostObject && !collectModuleIds(State->Inputs, State->Program.ModuleIds, Diags))
    return Finish(false);

  // A link of no module at all writes nothing usable (a `.version 0.0` module ptxas rejects): say what each
  // input is and why it gave no device code.
  if (!Preloaded && State->Inputs.empty() && Options.Emit != EmitKind::HostObject) {
    reportNoDeviceCode(Options, Diags);
    return Finish(false);
  }

  // Arches. After: the list linked for, in -arch order.
  std::vector<Target> Arches = archesToLink(Options, State->Inputs, Diags);
  if (Arches.empty())
    return Finish(false);
  // Cubin inputs (CubinInputs.h): SASS of one arch, no PTX. After: the link is one that can take them, and
  // its fatbinary holds no PTX image (nvcc -dlink's holds none either).
  if (llvm::any_of(State->Inputs, isCubinInput)) {
    if (!checkCubinInputs(Options, State->Inputs, Arches, Diags))
      return Finish(false);
    State->Program.SassOnly = true;
  }
  // So with an nvcc object whose SASS stands in for an arch its PTX does not serve: as nvcc -dlink's, the
  // fatbinary holds SASS only.
  if (SassStandIns)
    State->Program.SassOnly = true;

  // The per-arch link. After: State->Program holds one output module per distinct link and, per arch,
  // the module it gets and its `.target` header; every symbol is resolved, dead code dropped, locals
  // renamed apart, DWARF merged. The inputs are no longer changed (the modules refer to them).
  CallGraphDot Graph; // --callgraph-dot
  // -dlto: inputs that nvJitLink alone links for some arch (no PTX there) are named, and references into
  // them are left open (LtoChecks).
  noteInputsOnlyNvJitLinkSees(Options, State->Inputs, Arches, Diags);
  LinkOptions LtoChecks;
  linkEachArch(ltoCheckOptions(Options, State->Inputs, Arches, LtoChecks), Arches, *State, Graph, Diags, Times,
               Result);
  if (Diags.hasErrors())
    return Finish(false);

  // Reports over the linked modules (--map, --verify, --callgraph-dot). After: they are written; the
  // linked modules are unchanged.
  if (!writeLinkReports(Options, *State, Graph, Diags, Times))
    return Finish(false);
  if (Options.CheckAbiOnly)
    return Finish(!Diags.hasErrors());
  // --dryrun: what nvcc --dryrun is for, seeing what the link would do. Every check has run; the output and
  // the tools that would make it are named, nothing is run or written.
  if (Options.DryRun) {
    printDryRun(Options, Arches, State->Program, Diags.stream());
    return Finish(!Diags.hasErrors());
  }

  // Output (LinkOutput.cpp). After: the output file, or standard output, holds the linked program. The
  // printer gives back the inputs' text behind itself where the link gave it back after reading it or an
  // input is large (InputTextPages.h; ptxlink of 10^6 kept functions faulted it all back in).
  if (State->TextPages.active())
    State->Program.InputText = &State->TextPages;
  if (Options.Dlto) // the SASS is nvJitLink's, after the checks above ran on the PTX
    return Finish(writeLtoOutput(Options, State->Inputs, State->Program, Diags, Times, Out));
  return Finish(writeLinkOutput(Options, State->Program, Diags, Times, Out));
}

bool link(const LinkOptions &Options, DiagnosticEngine &Diags, raw_ostream &Out, LinkResult *Result) {
  return linkImpl(Options, Diags, Out, Result, nullptr);
}

bool link(LinkOptions &&Options, DiagnosticEngine &Diags, raw_ostream &Out, LinkResult *Result) {
  return linkImpl(std::move(Options), Diags, Out, Result, nullptr);
}

bool linkObjects(const LinkOptions &Options, std::vector<InputFile> Objects, DiagnosticEngine &Diags,
                 raw_ostream &Out) {
  LinkOptions InMemory = Options;
  InMemory.Output = "-";
  InMemory.MapFile.clear();
  InMemory.WhyExtractFile.clear();
  InMemory.TimeFile.clear();
  InMemory.Inputs.clear();
  return linkImpl(std::move(InMemory), Diags, Out, nullptr, &Objects);
}

// ptxlink's man page from its option table (LinkOptions.cpp); only the tool prints it, so it is not
// part of the library's API in Linker.h.
void printLinkerManPage(raw_ostream &OS);

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
  if (Informational == "help-man") {
    printLinkerManPage(Out);
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
  Executor Pool(Options->Threads);
  Options->Exec = &Pool;
  return link(std::move(*Options), Diags, Out) ? 0 : 1;
}

} // namespace ptxlink
