// `ptxlink-dump --abi-diff old new`: which exported symbols of a device library were removed, added or
// changed between two versions, and whether the new one is a drop-in replacement.
//
// The problem: the link-time checks see a mismatch only once a program is linked against the new
// library. Comparing the two versions' exported signatures directly, with the same comparison the
// linker uses (compareFunctionAbi / compareVariableAbi, so a change is judged exactly as a link would
// judge it), tells the library's author first. Judgement: a removed symbol, a changed kind, or a change
// with an error- or warning-level finding (calling convention, layout, or the meaning of the bits) is
// incompatible; additions and note-level changes are compatible ABI changes. Exit bits follow abidiff.

#include "ptxlink/InputFiles.h"
#include "AbiDiff.h"
#include "ptxlink/AbiCheck.h"
#include "ptxlink/Archive.h"
#include "ptxlink/Assembler.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

using namespace llvm;

namespace ptxlink {

namespace {

/// One exported (global, weak or common) definition: where it lives and what it is.
struct Export {
  const ModuleVariant *Module = nullptr;
  uint32_t Index = NoSymbol;
  std::string Object; // "lib.a(member.o)" or the file name
  const FunctionAbi *Function = nullptr;
  const VariableAbi *Variable = nullptr;

  const ptxlink::Symbol &sym() const { return Module->Symbols[Index]; }
  StringRef kind() const {
    if (Function)
      return Function->IsKernel ? "kernel" : "function";
    return sym().Kind == SymbolKind::Kernel ? "kernel" : sym().Kind == SymbolKind::Variable ? "variable" : "function";
  }
  SourceLoc where() const {
    if (Function && Module->functionWhere(*Function).isValid())
      return Module->functionWhere(*Function);
    if (Variable && Variable->Where.isValid())
      return Variable->Where;
    return sym().Where;
  }
  std::string site() const { return describeSite(*Module, Object, where()).str(); }
  std::string ptx() const {
    if (Function)
      return formatFunctionPtx(*Module, *Function);
    if (Variable)
      return formatVariablePtx(*Module, *Variable);
    return "(no signature recorded)";
  }
};

/// Everything one side (old or new) exports, plus the storage it points into.
struct Side {
  std::string Path;
  std::unique_ptr<StaticLibrary> Library;
  std::vector<std::unique_ptr<ObjectFile>> Objects;
  std::vector<std::string> ObjectNames;
  std::map<std::string, Export> Exports; // sorted by name: deterministic output
};

void fail(DiagnosticEngine &Diags, const Twine &Message) {
  Diags.report(Diagnostic{Severity::Error, "", {}, Message.str(), "", {}, "abi-diff-input"});
}

bool isExported(const Symbol &S) {
  if (S.Kind == SymbolKind::Label || S.Kind == SymbolKind::Section)
    return false;
  return S.Bind == Binding::Global || S.Bind == Binding::Weak || S.Bind == Binding::Common;
}

void collectExports(Side &S, const ObjectFile &Object, StringRef ObjectName) {
  if (Object.Variants.empty())
    return;
  // A fat object holds one module for several targets; they must export the same symbols (the assembler
  // checks), so the first variant speaks for the object.
  const ModuleVariant &M = Object.Variants.front();
  for (uint32_t I = 0; I < M.Symbols.size(); ++I) {
    const Symbol &Sym = M.Symbols[I];
    if (!isExported(Sym))
      continue;
    const FunctionAbi *F = findFunctionAbi(M, I);
    if (F && !F->HasBody)
      continue;
    auto [It, Inserted] = S.Exports.try_emplace(Sym.name().str());
    // The first definition wins, as in a link (members in archive order); a strong one beats a weak one.
    if (!Inserted && !(It->second.sym().Bind == Binding::Weak && Sym.Bind == Binding::Global))
      continue;
    It->second = Export{&M, I, ObjectName.str(), F, findVariableAbi(M, I)};
  }
}

bool looksLikePtx(StringRef Bytes) { return Bytes.contains(".version") && !Bytes.starts_with("\x7f" "ELF"); }

/// Loads one member or file (object or PTX) into S. Problems go to Diags; returns false on error.
bool loadBuffer(Side &S, MemoryBufferRef Buffer, StringRef ObjectName, DiagnosticEngine &Diags) {
  StringRef Bytes = Buffer.getBuffer();
  if (isPtxlinkObject(Bytes)) {
    Expected<std::unique_ptr<ObjectFile>> Obj =
        readObject(MemoryBuffer::getMemBufferCopy(Bytes, ObjectName));
    if (!Obj) {
      fail(Diags, toString(Obj.takeError()));
      return false;
    }
    S.Objects.push_back(std::move(*Obj));
  } else if (looksLikePtx(Bytes)) {
    auto Obj = std::make_unique<ObjectFile>();
    if (!assembleInto(*Obj, Bytes, ObjectName, Diags))
      return false;
    S.Objects.push_back(std::move(Obj));
  } else {
    fail(Diags, ObjectName + ": not a ptxlink object, archive or PTX file");
    return false;
  }
  collectExports(S, *S.Objects.back(), ObjectName);
  return true;
}

bool loadSide(Side &S, DiagnosticEngine &Diags) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(S.Path);
  if (!Buf) {
    fail(Diags, "cannot open " + S.Path + ": " + Buf.getError().message());
    return false;
  }
  if (!isArchive((*Buf)->getBuffer()))
    return loadBuffer(S, (*Buf)->getMemBufferRef(), S.Path, Diags);
  Expected<std::unique_ptr<StaticLibrary>> Lib = StaticLibrary::open(std::move(*Buf));
  if (!Lib) {
    fail(Diags, toString(Lib.takeError()));
    return false;
  }
  S.Library = std::move(*Lib);
  bool Ok = true;
  for (size_t I = 0; I < S.Library->memberCount(); ++I) {
    std::string Name = S.Path + "(" + S.Library->memberName(I).str() + ")";
    Expected<MemoryBufferRef> Member = S.Library->memberBuffer(I);
    if (!Member) {
      fail(Diags, toString(Member.takeError()));
      Ok = false;
      continue;
    }
    Ok &= loadBuffer(S, *Member, Name, Diags);
  }
  return Ok;
}

struct Change {
  std::string Name;
  const Export *Old = nullptr, *New = nullptr;
  std::vector<AbiFinding> Findings;
  bool Incompatible = false;
};

std::string quoted(StringRef Name) {
  std::string Dem = demangleCxx(Name);
  return Dem.empty() ? ("'" + Name + "'").str() : "'" + Dem + "' (" + Name.str() + ")";
}

std::vector<AbiFinding> compareExports(const Export &Old, const Export &New) {
  std::vector<AbiFinding> Findings;
  if (Old.kind() != New.kind()) {
    Findings.push_back({Severity::Error, "abi-kind",
                        ("kind: " + Old.kind() + " in old, " + New.kind() + " in new").str()});
    return Findings;
  }
  if (Old.Function && New.Function)
    Findings = compareFunctionAbi(Old.Module->signature(*Old.Function), New.Module->signature(*New.Function), "old", "new", AbiRelation::DeclarationVsDefinition);
  else if (Old.Variable && New.Variable)
    Findings = compareVariableAbi(*Old.Variable, *New.Variable, "old", "new");
  Binding OB = Old.sym().Bind, NB = New.sym().Bind;
  if (OB != NB) {
    // Exports are visible, weak or common: each has its PTX directive.
    auto Name = [](Binding B) { return linkageDirective(B).rtrim().str(); };
    // Clients link either way; a weak definition may now be overridden by theirs.
    Findings.push_back({Severity::Note, "abi-binding",
                        std::string("linkage: ") + Name(OB) + " in old, " + Name(NB) + " in new"});
  }
  return Findings;
}

StringRef severityName(Severity S) {
  return S == Severity::Error ? "error" : S == Severity::Warning ? "warning" : "note";
}

} // namespace

int runAbiDiff(ArrayRef<std::string> Args, raw_ostream &Out, raw_ostream &Err) {
  std::vector<std::string> Paths;
  bool Json = false;
  for (const std::string &A : Args) {
    if (A == "--json")
      Json = true;
    else if (!A.empty() && A[0] == '-' && A != "-") {
      Err << "ptxlink-dump: error: --abi-diff: unknown option '" << A << "'\n";
      return AbiDiffError | AbiDiffUsageError;
    } else
      Paths.push_back(A);
  }
  if (Paths.size() != 2) {
    Err << "ptxlink-dump: error: usage: ptxlink-dump --abi-diff OLD NEW [--json] (archives, objects or .ptx)\n";
    return AbiDiffError | AbiDiffUsageError;
  }
  DiagnosticEngine Diags(Err, "ptxlink-dump");
  Side Old, New;
  Old.Path = Paths[0];
  New.Path = Paths[1];
  bool Loaded = loadSide(Old, Diags);
  Loaded &= loadSide(New, Diags);
  if (!Loaded || Diags.hasErrors())
    return AbiDiffError;

  std::vector<const Export *> Removed, Added;
  std::vector<Change> Changed;
  for (const auto &[Name, E] : Old.Exports) {
    auto It = New.Exports.find(Name);
    if (It == New.Exports.end()) {
      Removed.push_back(&E);
      continue;
    }
    std::vector<AbiFinding> Findings = compareExports(E, It->second);
    if (Findings.empty())
      continue;
    bool Incompatible = std::any_of(Findings.begin(), Findings.end(),
                                    [](const AbiFinding &F) { return F.Level != Severity::Note; });
    Changed.push_back({Name, &E, &It->second, std::move(Findings), Incompatible});
  }
  for (const auto &[Name, E] : New.Exports)
    if (!Old.Exports.count(Name))
      Added.push_back(&E);

  size_t IncompatibleChanges = Removed.size();
  for (const Change &C : Changed)
    IncompatibleChanges += C.Incompatible;
  int Status = AbiDiffOk;
  if (!Removed.empty() || !Added.empty() || !Changed.empty())
    Status |= AbiDiffChange;
  if (IncompatibleChanges)
    Status |= AbiDiffIncompatibleChange;

  if (Json) {
    auto ExportJson = [](const Export &E) {
      json::Object O{{"name", E.sym().name()}, {"kind", E.kind()}, {"site", E.site()}, {"ptx", E.ptx()}};
      if (std::string Dem = demangleCxx(E.sym().name()); !Dem.empty())
        O["demangled"] = Dem;
      return O;
    };
    json::Array RemovedJ, AddedJ, ChangedJ;
    for (const Export *E : Removed)
      RemovedJ.push_back(ExportJson(*E));
    for (const Export *E : Added)
      AddedJ.push_back(ExportJson(*E));
    for (const Change &C : Changed) {
      json::Array Diffs;
      for (const AbiFinding &F : C.Findings)
        Diffs.push_back(json::Object{{"severity", severityName(F.Level)}, {"code", F.Code}, {"detail", F.Detail}});
      json::Object O{{"name", C.Name},
                     {"kind", C.New->kind()},
                     {"compatible", !C.Incompatible},
                     {"old", ExportJson(*C.Old)},
                     {"new", ExportJson(*C.New)},
                     {"differences", std::move(Diffs)}};
      ChangedJ.push_back(std::move(O));
    }
    json::Object Doc{{"old", Old.Path},
                     {"new", New.Path},
                     {"removed", std::move(RemovedJ)},
                     {"added", std::move(AddedJ)},
                     {"changed", std::move(ChangedJ)},
                     {"compatible", (Status & AbiDiffIncompatibleChange) == 0},
                     {"exitStatus", Status}};
    Out << formatv("{0:2}", json::Value(std::move(Doc))) << "\n";
    return Status;
  }

  Out << "ABI of " << New.Path << " against " << Old.Path << ": " << Removed.size() << " removed, " << Added.size()
      << " added, " << Changed.size() << " changed\n";
  for (const Export *E : Removed)
    Out << "\nremoved " << E->kind() << " " << quoted(E->sym().name()) << " [incompatible]\n"
        << "  old: " << E->site() << ": " << E->ptx() << "\n";
  for (const Change &C : Changed) {
    Out << "\nchanged " << C.New->kind() << " " << quoted(C.Name) << " ["
        << (C.Incompatible ? "incompatible" : "compatible") << "]\n"
        << "  old: " << C.Old->site() << ": " << C.Old->ptx() << "\n"
        << "  new: " << C.New->site() << ": " << C.New->ptx() << "\n";
    for (const AbiFinding &F : C.Findings)
      Out << "  " << F.Detail << " [" << severityName(F.Level) << ": " << F.Code << "]\n";
  }
  for (const Export *E : Added)
    Out << "\nadded " << E->kind() << " " << quoted(E->sym().name()) << "\n"
        << "  new: " << E->site() << ": " << E->ptx() << "\n";
  Out << "\n";
  if (Status == AbiDiffOk)
    Out << "verdict: no ABI change (exit status 0)\n";
  else if (Status & AbiDiffIncompatibleChange)
    Out << "verdict: NOT a drop-in replacement: " << IncompatibleChanges << " incompatible change"
        << (IncompatibleChanges == 1 ? "" : "s") << " (exit status " << Status << ")\n";
  else
    Out << "verdict: compatible ABI change, a drop-in replacement (exit status " << Status << ")\n";
  return Status;
}

} // namespace ptxlink
