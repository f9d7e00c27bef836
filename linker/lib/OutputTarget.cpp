// The target line of each arch's linked module: checkTargetVersion (which target its PTX can be written
// for: the requested arch, or an older one its inputs name) and outputTarget (the module's `.version`,
// `.target` and `.address_size`), LinkPasses.h.
//
// The problem: a module's `.version` is the highest of its inputs', and a PTX ISA version can name only
// the targets it knows; `-arch sm_100` over libraries compiled for sm_80 with an older toolkit must still
// give a module the driver and ptxas accept, and say why its `.target` is not the arch asked for.
#include "LinkPasses.h"

#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace ptxlink {

TargetChoice checkTargetVersion(ArrayRef<LinkModule> Modules, const Target &Arch, DiagnosticEngine &Diags) {
  TargetChoice Choice{Arch};
  // The linked module says `.version` = the highest of the inputs; it must be able to name the target.
  std::pair<unsigned, unsigned> MaxVersion{0, 0};
  const LinkModule *MaxModule = nullptr;
  for (const LinkModule &LM : Modules) {
    std::pair<unsigned, unsigned> V{LM.M->Target.VersionMajor, LM.M->Target.VersionMinor};
    if (V > MaxVersion || !MaxModule) {
      MaxVersion = std::max(MaxVersion, V);
      MaxModule = &LM;
    }
  }
  Choice.NewestInputVersion = MaxVersion;
  auto Need = minPtxVersion(Arch);
  if (!Need || !MaxModule || MaxVersion >= *Need)
    return Choice;
  // PTX is forward compatible: a module for sm_90 runs on any later GPU (the driver JIT-compiles it) and
  // ptxas compiles it for any later arch. So the module is written for the highest target the inputs
  // name (every selected variant is usable there), not for one its `.version` cannot express. Raising
  // `.version` instead would change what the module means to ptxas (an ISA version also changes rules,
  // e.g. the removal of non-`.sync` warp instructions in PTX ISA 6.4), which nothing here can check.
  std::optional<Target> Highest;
  for (const LinkModule &LM : Modules) {
    auto V = parseArch(LM.M->Target.Arch);
    if (!V)
      continue;
    if (!Highest || V->Sm > Highest->Sm || (V->Sm == Highest->Sm && V->Suffix && !Highest->Suffix))
      Highest = *V;
  }
  bool Valid = Highest && Highest->ptxUsableFor(Arch) && !(*Highest == Arch);
  if (Valid)
    for (const LinkModule &LM : Modules)
      if (auto V = parseArch(LM.M->Target.Arch); V && !V->ptxUsableFor(*Highest))
        Valid = false;
  if (Valid)
    if (auto HighestNeeds = minPtxVersion(*Highest); !HighestNeeds || MaxVersion < *HighestNeeds)
      Valid = false;
  if (Valid) {
    Choice.Fallback = *Highest;
    return Choice;
  }
  Diags.error("target " + Arch.name() + " needs PTX ISA " + std::to_string(Need->first) + "." +
                  std::to_string(Need->second) + ", but the newest input is PTX ISA " +
                  std::to_string(MaxVersion.first) + "." + std::to_string(MaxVersion.second),
              {DiagSite::at("newest input:", siteText(*MaxModule, {}))}, "version-too-old");
  return Choice;
}

std::string TargetChoice::ptxTargetReason(bool Sass) const {
  if (!Fallback)
    return {};
  auto Need = minPtxVersion(Arch);
  std::string Version = std::to_string(NewestInputVersion.first) + "." + std::to_string(NewestInputVersion.second);
  std::string Reason = "the newest input is PTX ISA " + Version + ", which cannot name " + Arch.name();
  if (Need)
    Reason += " (it needs " + std::to_string(Need->first) + "." + std::to_string(Need->second) + ")";
  Reason += ": the PTX is written for " + Fallback->name() + ", the highest target the inputs name, which the "
            "driver JIT-compiles on " + Arch.name() + " devices";
  if (Sass)
    Reason += "; the SASS is compiled for " + Arch.name() + " from it";
  return Reason;
}

TargetInfo outputTarget(ArrayRef<LinkModule> Modules, const Target &Written, ObjectFile &Storage) {
  // Header: the requested arch; `.version` the highest of the inputs; options merged.
  TargetInfo Target;
  std::string ArchName = Written.name();
  bool AnyFamily = false, AnyDebug = false, AnyMapF64 = false;
  StringRef Texmode;
  decltype(TargetInfo::Options) TargetOptions;
  StringSet<> SeenOptions;
  for (const LinkModule &LM : Modules) {
    const TargetInfo &T = LM.M->Target;
    if (auto V = parseArch(T.Arch); V && V->isFamilySpecific())
      AnyFamily = true;
    if (std::make_pair(T.VersionMajor, T.VersionMinor) > std::make_pair(Target.VersionMajor, Target.VersionMinor)) {
      Target.VersionMajor = T.VersionMajor;
      Target.VersionMinor = T.VersionMinor;
    }
    AnyDebug |= T.Debug;
    AnyMapF64 |= T.MapF64ToF32;
    if (!T.Texmode.empty() && Texmode.empty())
      Texmode = T.Texmode;
    for (StringRef O : T.Options)
      if (SeenOptions.insert(O).second)
        TargetOptions.push_back(Storage.save(O));
    if (T.AddressSizeGiven && !Target.AddressSizeGiven) {
      Target.AddressSize = T.AddressSize;
      Target.AddressSizeGiven = true;
    }
  }
  if (!Target.AddressSizeGiven && !Modules.empty())
    Target.AddressSize = Modules.front().M->Target.AddressSize;
  // Family-specific code selected for a plain arch needs the family target to assemble.
  if (AnyFamily && Written.Suffix == 0)
    ArchName += 'f';
  Target.Arch = Storage.save(ArchName);
  Target.Debug = AnyDebug;
  Target.MapF64ToF32 = AnyMapF64;
  Target.Texmode = Texmode.empty() ? StringRef() : Storage.save(Texmode);
  Target.Options = std::move(TargetOptions);
  return Target;
}

} // namespace ptxlink
