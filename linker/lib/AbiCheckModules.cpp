// Cross-module checks on what `.version`, `.target` and `.address_size` said: settings that must agree
// because the linked module has one header, and targets that no single GPU supports together.
//
// The problem: every module of a link ends up under one `.target` line. Address sizes, map_f64_to_f32 and
// texture modes cannot differ there, and architecture-specific (`sm_90a`: that GPU only) or family
// (`sm_100f`: later members of the sm_10x family) code cannot meet code that needs another GPU. Each
// finding lists every module with what it said, grouped by value, so the odd one out is plain to see.

#include "ptxlink/AbiCheck.h"
#include "LinkContext.h"

#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace llvm;

namespace ptxlink {

namespace {

SiteLocation siteOf(const ModuleSite &S) { return describeSite(*S.Module, S.ObjectName, SourceLoc{}); }

/// Reports a setting that must be the same everywhere, listing the modules by value.
bool reportDisagreement(DiagnosticEngine &Diags, Severity Level, StringRef Code, StringRef Message,
                        ArrayRef<ModuleSite> Modules, function_ref<std::string(const ModuleVariant &)> Value) {
  std::map<std::string, std::vector<const ModuleSite *>> ByValue;
  for (const ModuleSite &S : Modules)
    ByValue[Value(*S.Module)].push_back(&S);
  if (ByValue.size() < 2)
    return false;
  std::vector<DiagSite> Sites;
  std::string Summary;
  for (auto &[V, List] : ByValue) {
    Summary += (Summary.empty() ? "" : ", ") + V + " in " + std::to_string(List.size()) +
               (List.size() == 1 ? " module" : " modules");
    size_t Shown = 0;
    for (const ModuleSite *S : List) {
      if (++Shown > 4) {
        Sites.push_back({"... and " + std::to_string(List.size() - 4) + " more with " + V});
        break;
      }
      Sites.push_back(DiagSite::at("", siteOf(*S), ": " + V));
    }
  }
  Diagnostic D;
  D.Level = Level;
  D.Code = Code.str();
  D.Message = Message.str() + " (" + Summary + ")";
  D.Sites = std::move(Sites);
  unsigned Before = Diags.errorCount();
  Diags.report(std::move(D));
  return Diags.errorCount() != Before;
}

std::string addressSizeText(const ModuleVariant &M) {
  return ".address_size " + std::to_string(M.Target.AddressSize) + (M.Target.AddressSizeGiven ? "" : " (default)");
}

/// Why no GPU runs all targets, or "" if one does.
std::string targetConflict(ArrayRef<ModuleSite> Modules, const ModuleSite *&Culprit1, const ModuleSite *&Culprit2) {
  const ModuleSite *Highest = nullptr;
  Target HighestInfo;
  const ModuleSite *Specific = nullptr; // first `a` target
  Target SpecificInfo;
  const ModuleSite *Family = nullptr; // first `f` target
  Target FamilyInfo;
  for (const ModuleSite &S : Modules) {
    std::optional<Target> A = parseArch(S.Module->Target.Arch);
    if (!A)
      continue;
    if (!Highest || A->Sm > HighestInfo.Sm) {
      Highest = &S;
      HighestInfo = *A;
    }
    if (A->isArchSpecific()) {
      if (Specific && SpecificInfo.Sm != A->Sm) {
        Culprit1 = Specific;
        Culprit2 = &S;
        return "code for " + Specific->Module->Target.Arch.str() + " runs only on sm_" +
               std::to_string(SpecificInfo.Sm) + ", code for " + S.Module->Target.Arch.str() + " only on sm_" +
               std::to_string(A->Sm);
      }
      if (!Specific) {
        Specific = &S;
        SpecificInfo = *A;
      }
    }
    if (A->isFamilySpecific()) {
      if (Family && FamilyInfo.family() != A->family()) {
        Culprit1 = Family;
        Culprit2 = &S;
        return "code for " + Family->Module->Target.Arch.str() + " runs only in the sm_" +
               std::to_string(FamilyInfo.family()) + "x family, code for " + S.Module->Target.Arch.str() +
               " only in the sm_" + std::to_string(A->family()) + "x family";
      }
      if (!Family) {
        Family = &S;
        FamilyInfo = *A;
      }
    }
  }
  if (Specific && HighestInfo.Sm > SpecificInfo.Sm) {
    Culprit1 = Specific;
    Culprit2 = Highest;
    return "code for " + Specific->Module->Target.Arch.str() + " runs only on sm_" +
           std::to_string(SpecificInfo.Sm) + ", code for " + Highest->Module->Target.Arch.str() + " needs sm_" +
           std::to_string(HighestInfo.Sm) + " or later";
  }
  if (Specific && Family && SpecificInfo.family() != FamilyInfo.family()) {
    Culprit1 = Family;
    Culprit2 = Specific;
    return "code for " + Family->Module->Target.Arch.str() + " runs only in the sm_" +
           std::to_string(FamilyInfo.family()) + "x family, code for " + Specific->Module->Target.Arch.str() +
           " only on sm_" + std::to_string(SpecificInfo.Sm);
  }
  if (Family && !Specific && HighestInfo.family() > FamilyInfo.family()) {
    Culprit1 = Family;
    Culprit2 = Highest;
    return "code for " + Family->Module->Target.Arch.str() + " runs only in the sm_" +
           std::to_string(FamilyInfo.family()) + "x family, code for " + Highest->Module->Target.Arch.str() +
           " needs sm_" + std::to_string(HighestInfo.Sm) + " or later";
  }
  return "";
}

} // namespace

bool checkModuleCompatibility(ArrayRef<ModuleSite> Modules, DiagnosticEngine &Diags) {
  return checkModuleCompatibility(Modules, Diags, AbiCheckOptions{});
}

bool checkModuleCompatibility(ArrayRef<ModuleSite> Input, DiagnosticEngine &Diags, const AbiCheckOptions &Options) {
  std::vector<ModuleSite> Modules;
  for (const ModuleSite &S : Input)
    if (S.Module)
      Modules.push_back(S);
  if (Modules.size() < 2)
    return false;
  bool Error = false;
  Error |= reportDisagreement(Diags, Severity::Error, "abi-address-size",
                              "modules disagree on the address size: pointers would have two widths", Modules,
                              addressSizeText);

  const ModuleSite *C1 = nullptr, *C2 = nullptr;
  std::string Conflict = targetConflict(Modules, C1, C2);
  if (!Conflict.empty()) {
    Diagnostic D;
    D.Level = Severity::Error;
    D.Code = "abi-target-incompatible";
    D.Message = "no GPU can run all modules: " + Conflict;
    D.Sites = {DiagSite::at("", siteOf(*C1), ": .target " + C1->Module->Target.Arch.str()),
               DiagSite::at("", siteOf(*C2), ": .target " + C2->Module->Target.Arch.str())};
    unsigned Before = Diags.errorCount();
    Diags.report(std::move(D));
    Error |= Diags.errorCount() != Before;
  }

  Error |= reportDisagreement(
      Diags, Severity::Error, "abi-map-f64-to-f32",
      "modules disagree on map_f64_to_f32: the linked module has one .target line, so .f64 arithmetic would "
      "change meaning in some of them",
      Modules, [](const ModuleVariant &M) {
        return M.Target.MapF64ToF32 ? std::string("map_f64_to_f32") : std::string("no map_f64_to_f32");
      });

  // An explicit texmode against another explicit one is a contradiction; against the default (unified)
  // it only matters if the module uses textures, which the model cannot see, so a warning.
  bool AllExplicit = all_of(Modules, [](const ModuleSite &S) { return !S.Module->Target.Texmode.empty(); });
  Error |= reportDisagreement(
      Diags, AllExplicit ? Severity::Error : Severity::Warning, "abi-texmode",
      "modules disagree on the texturing mode, which is one setting for the whole linked module", Modules,
      [](const ModuleVariant &M) {
        return M.Target.Texmode.empty() ? std::string("texmode_unified (default)") : M.Target.Texmode.str();
      });

  if (Options.ReportUncheckable)
    // Not an ABI break: the linked module takes the highest version. Worth knowing when an old ptxas or
    // driver is the consumer.
    reportDisagreement(Diags, Severity::Note, "abi-ptx-version",
                       "modules use different PTX ISA versions; the linked module takes the highest", Modules,
                       [](const ModuleVariant &M) {
                         return ".version " + std::to_string(M.Target.VersionMajor) + "." +
                                std::to_string(M.Target.VersionMinor);
                       });
  return Error;
}

} // namespace ptxlink
