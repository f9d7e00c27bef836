// Target names and per-architecture variant selection (the first pass of each arch's link, LinkPasses.h).
//
// The problem: a fat input holds one module compiled for several targets, and `-arch sm_90,sm_80` asks
// for one linked module per architecture. For each requested arch we must pick, per input, the variant
// the driver could legally run there, preferring the most specific one. The rules come from the PTX ISA
// (.target, table 56 "Architecture Families") and are spelled out in docs/linker.md.
#include "LinkPasses.h"
#include "LtoLink.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ptxlink {

std::optional<Target> parseArch(StringRef Name) {
  std::optional<Target> A = Target::parse(Name.trim());
  if (!A || !minPtxVersion(*A))
    return std::nullopt;
  return A;
}

unsigned variantScore(const Target &V, const Target &R) {
  if (V == R)
    return 3000000;
  if (V.isFamilySpecific())
    return 2000000 + V.Sm;
  return 1000000 + V.Sm;
}

std::optional<std::pair<unsigned, unsigned>> minPtxVersion(const Target &A) {
  using V = std::pair<unsigned, unsigned>;
  auto Plain = [&]() -> std::optional<V> {
    switch (A.Sm) {
    case 10: case 11: return V{1, 0};
    case 12: case 13: return V{1, 2};
    case 20: return V{2, 0};
    case 30: return V{3, 0};
    case 35: return V{3, 1};
    case 32: case 50: return V{4, 0};
    case 37: case 52: return V{4, 1};
    case 53: return V{4, 2};
    case 60: case 61: case 62: return V{5, 0};
    case 70: return V{6, 0};
    case 72: return V{6, 1};
    case 75: return V{6, 3};
    case 80: return V{7, 0};
    case 86: return V{7, 1};
    case 87: return V{7, 4};
    case 88: return V{9, 0};
    case 89: case 90: return V{7, 8};
    case 100: return V{8, 6};
    case 103: return V{8, 8};
    case 110: return V{9, 0};
    case 120: return V{8, 7};
    case 121: return V{8, 8};
    default: return std::nullopt;
    }
  }();
  if (!Plain)
    return std::nullopt;
  if (A.isArchSpecific()) {
    if (A.Sm == 90)
      return V{8, 0};
    if (A.Sm < 90)
      return std::nullopt;
    return Plain;
  }
  if (A.isFamilySpecific()) {
    if (A.Sm < 100)
      return std::nullopt;
    return std::max(*Plain, V{8, 8});
  }
  return Plain;
}

int selectVariant(const ObjectFile &Object, const Target &Requested) {
  return bestForTarget(Object.Variants.size(), Requested, [&](size_t I) -> std::optional<Target> {
    std::optional<Target> V = parseArch(Object.Variants[I].Target.Arch);
    if (V && Object.Variants[I].Target.SassOnly && V->name() != Requested.name())
      return std::nullopt; // SASS runs on the arch it was compiled for (CubinInputs.h)
    return V;
  });
}

/// A variant's architecture as the "no variant usable" diagnostics name it. A module assembled without a
/// `.target` directive (the assembler warns, ptxas refuses it) has no architecture and suits none.
static std::string variantArchWords(StringRef Arch) {
  return Arch.empty() ? std::string("no .target") : Arch.str();
}

bool selectVariants(const LinkOptions &Options, ArrayRef<InputFile> Inputs, const Target &Arch, DiagnosticEngine &Diags,
                    SymbolTable &Symtab) {
  std::vector<LinkModule> &Modules = Symtab.Modules;
  ModuleTablePool &TablePool = Symtab.TablePool;
  bool Ok = true;
  Modules.clear();
  Modules.reserve(Inputs.size()); // a LinkModule per input at most: no slack in a per-module table
  // Inputs without a usable variant, grouped by the targets they do have (in order of first appearance).
  std::vector<std::pair<std::string, std::vector<uint32_t>>> Unusable;
  for (uint32_t I = 0; I < Inputs.size(); ++I) {
    const ObjectFile &Obj = *Inputs[I].Object;
    const HostOrigin *Host = Inputs[I].Host.get();
    if (Obj.Variants.empty() && !Host)
      continue; // an empty module (e.g. only comments) contributes nothing
    int V = selectVariant(Obj, Arch);
    if (V < 0 && Options.Dlto && linkedByNvJitLinkOnly(Inputs[I], Arch))
      continue; // LTO-IR, or SASS for Arch: nvJitLink links it (LtoLink.h), which said what is not checked
    if (V < 0 && Host) {
      // An nvcc object compiled without PTX for this arch: say which option keeps it.
      std::vector<DiagSite> Sites;
      for (const ModuleVariant &MV : Obj.Variants)
        Sites.push_back({MV.Target.Arch.empty() ? std::string("has PTX without a .target directive")
                                                : "has PTX for " + MV.Target.Arch.str()});
      for (const std::string &A : Host->CubinArches)
        Sites.push_back({"has SASS only for " + A});
      for (const std::string &A : Host->LtoIrArches)
        Sites.push_back({"has LTO-IR only for " + A + " (nvcc -dlto: link with -dlto)"});
      std::string Number = Arch.name().substr(3); // "90a"
      // PTX kept, but for a newer architecture only: PTX runs on its own architecture and newer ones, so
      // the advice is about the architecture compiled for, not about keeping PTX.
      bool NewerPtxOnly = !Obj.Variants.empty() && llvm::all_of(Obj.Variants, [&](const ModuleVariant &MV) {
        auto A = parseArch(MV.Target.Arch);
        return A && A->name() != Arch.name();
      });
      // Where it has SASS for the arch, when that SASS could have served instead.
      const std::string StandIn = llvm::is_contained(Host->CubinArches, Arch.name())
                                      ? "its " + Arch.name() + " SASS stands in only in a link that makes SASS with "
                                        "nvlink (not -r, --emit ptx, --whole-program, --recompile-sass, "
                                        "--kernels-used, nor -gencode without code=" + Arch.name() + "); "
                                      : std::string();
      std::string Advice =
          NewerPtxOnly ? " in this nvcc object: its PTX is for a newer architecture, which cannot run on " + Arch.name() +
                             "; " + StandIn + "link for that architecture, or compile for " + Arch.name() +
                             " too, e.g. -gencode arch=compute_" + Number + ",code=[sm_" + Number + ",compute_" + Number + "]"
                       : " in this nvcc object; " + StandIn + "compile it with PTX kept, e.g. -gencode arch=compute_" +
                             Number + ",code=[sm_" + Number + ",compute_" + Number + "]";
      Diags.error(Inputs[I].Name + ": no PTX usable for " + Arch.name() + Advice, std::move(Sites), "no-usable-variant");
      Ok = false;
      continue;
    }
    if (V < 0) {
      // The cause is the set of targets the input has; inputs with the same cause are reported together.
      SmallVector<StringRef, 4> Targets;
      for (const ModuleVariant &MV : Obj.Variants)
        if (!llvm::is_contained(Targets, MV.Target.Arch))
          Targets.push_back(MV.Target.Arch);
      // Inputs without a .target have the empty architecture; "" is their cause, said in words below.
      std::string Cause = join(map_range(Targets, variantArchWords), ", ");
      if (Targets.size() == 1 && Targets.front().empty())
        Cause.clear();
      auto It = llvm::find_if(Unusable, [&](const auto &U) { return U.first == Cause; });
      if (It == Unusable.end())
        Unusable.push_back({Cause, {I}});
      else
        It->second.push_back(I);
      Ok = false;
      continue;
    }
    LinkModule LM;
    LM.Input = I;
    LM.M = &Obj.Variants[V];
    LM.ObjectName = Inputs[I].Name;
    LM.Global.assign(TablePool, LM.M->Symbols.size(), NoGlobal);
    LM.SectionLive.assign(TablePool, LM.M->Sections.size(), 0);
    // The first record of a symbol counts (a valid object has at most one); a function's record over a
    // variable's (see AbiOf). Records in strictly increasing symbol order need no table.
    const bool Ordered = inSymbolOrder(LM.M->Functions) &&
                         inSymbolOrder(LM.M->Variables) &&
                         LM.M->Functions.size() < LinkModule::VariableAbiTag &&
                         LM.M->Variables.size() < LinkModule::VariableAbiTag;
    if (!Ordered) {
      LM.AbiOf.assign(TablePool, LM.M->Symbols.size(), LinkModule::NoAbi);
      for (uint32_t V = std::min<size_t>(LM.M->Variables.size(), LinkModule::VariableAbiTag - 1); V-- > 0;)
        if (uint32_t S = LM.M->Variables[V].Symbol; S < LM.AbiOf.size())
          LM.AbiOf[S] = LinkModule::VariableAbiTag | V;
      for (uint32_t F = std::min<size_t>(LM.M->Functions.size(), LinkModule::VariableAbiTag); F-- > 0;)
        if (uint32_t S = LM.M->Functions[F].Symbol; S < LM.AbiOf.size())
          LM.AbiOf[S] = F;
    }
    Modules.push_back(std::move(LM));
  }
  for (const auto &[Cause, Which] : Unusable) {
    if (Which.size() == 1) {
      // One input: its variants, one per line, each with the file it came from.
      const InputFile &In = Inputs[Which.front()];
      std::vector<DiagSite> Sites;
      for (const ModuleVariant &MV : In.Object->Variants)
        Sites.push_back(DiagSite::at(MV.Target.Arch.empty()
                                         ? std::string("has a variant without a .target directive, usable for "
                                                       "no architecture, from")
                                         : "has a variant for " + MV.Target.Arch.str() + " from",
                                     SiteLocation{MV.SourceName.empty() ? In.Name : MV.SourceName.str(), {}, ""}));
      Diags.error(In.Name + ": no variant usable for " + Arch.name(), std::move(Sites), "no-usable-variant");
      continue;
    }
    // Many inputs for one reason (a library built for another arch): said once, with the count and a
    // few of them, as lld lists a few references and counts the rest.
    constexpr size_t MaxSites = 3;
    std::vector<DiagSite> Sites;
    for (size_t K = 0; K < Which.size() && K < MaxSites; ++K)
      Sites.push_back(DiagSite::at("", SiteLocation{Inputs[Which[K]].Name, {}, ""}));
    if (Which.size() > MaxSites)
      Sites.push_back({"and " + std::to_string(Which.size() - MaxSites) + " more"});
    std::string Have = Cause.empty() ? std::string(" inputs have no .target directive")
                                     : " inputs have only " + Cause + " variants";
    Diags.error("no variant usable for " + Arch.name() + ": " + std::to_string(Which.size()) + Have,
                std::move(Sites), "no-usable-variant");
  }
  return Ok;
}

std::vector<const ModuleVariant *> selectedVariants(ArrayRef<LinkModule> Modules) {
  std::vector<const ModuleVariant *> Out;
  Out.reserve(Modules.size());
  for (const LinkModule &LM : Modules)
    Out.push_back(LM.M);
  return Out;
}

} // namespace ptxlink
