// Helpers every link pass uses: naming sites in diagnostics, demangling, following a reference to its
// definition, pass timing, and variant selection (pass 1).
#include "LinkContext.h"
#include "ptxlink/AbiCheck.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Format.h"

#include <cstring>

using namespace llvm;

namespace ptxlink {

SiteLocation siteText(const LinkModule &Module, SourceLoc Where) {
  return describeSite(*Module.M, Module.ObjectName, Where);
}

std::string displayName(StringRef Name) {
  std::string D = llvm::demangle(Name);
  if (D == Name)
    return Name.str();
  return D + " (" + Name.str() + ")";
}

void PassTimes::add(StringRef Pass, StringRef Arch, std::chrono::steady_clock::time_point Start) {
  double Ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  Entries.push_back({Pass.str(), Arch.str(), Ms});
}

void PassTimes::printCsv(raw_ostream &OS, bool Headings) const {
  double Total = 0;
  if (Headings)
    OS << "pass,arch,milliseconds\n";
  for (const Entry &E : Entries) {
    Total += E.Millis;
    OS << E.Pass << ',' << E.Arch << ',' << format("%.3f", E.Millis) << '\n';
  }
  OS << "total,," << format("%.3f", Total) << '\n';
}

/// A variant's architecture as the "no variant usable" diagnostics name it. A module assembled without a
/// `.target` directive (the assembler warns, ptxas refuses it) has no architecture and suits none.
static std::string variantArchWords(StringRef Arch) {
  return Arch.empty() ? std::string("no .target") : Arch.str();
}

ArchLink::ArchLink(const LinkOptions &Options, ArrayRef<InputFile> Inputs, Target Arch, DiagnosticEngine &Diags,
                   PassTimes &Times)
    : Options(Options), Inputs(Inputs), Arch(Arch), Diags(Diags), Times(Times) {}

bool ArchLink::selectVariants() {
  PassTimes::Scope Timed = Times.scope("select variants", Arch.name());
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
    if (V < 0 && Host && Options.Dlto && !Host->LtoIrArches.empty())
      continue; // LTO-IR only: nvJitLink links it (LtoLink.h); checkLtoInputs said what is not checked
    if (V < 0 && Host) {
      // An nvcc object compiled without PTX for this arch: say which option keeps it.
      std::vector<DiagSite> Sites;
      for (const ModuleVariant &MV : Obj.Variants)
        Sites.push_back({MV.Target.Arch.empty() ? std::string("has PTX without a .target directive")
                                                : "has PTX for " + MV.Target.Arch.str()});
      for (const std::string &A : Host->CubinArches)
        Sites.push_back({"has SASS only for " + A + " (ptxlink links PTX)"});
      for (const std::string &A : Host->LtoIrArches)
        Sites.push_back({"has LTO-IR only for " + A + " (nvcc -dlto; ptxlink links PTX)"});
      std::string Number = Arch.name().substr(3); // "90a"
      // PTX kept, but for a newer architecture only: PTX runs on its own architecture and newer ones, so
      // the advice is about the architecture compiled for, not about keeping PTX.
      bool NewerPtxOnly = !Obj.Variants.empty() && llvm::all_of(Obj.Variants, [&](const ModuleVariant &MV) {
        auto A = parseArch(MV.Target.Arch);
        return A && A->name() != Arch.name();
      });
      std::string Advice =
          NewerPtxOnly ? " in this nvcc object: its PTX is for a newer architecture, which cannot run on " + Arch.name() +
                             "; link for that architecture, or compile for " + Arch.name() + " too, e.g. -gencode arch=compute_" +
                             Number + ",code=[sm_" + Number + ",compute_" + Number + "]"
                       : " in this nvcc object; compile it with PTX kept, e.g. -gencode arch=compute_" + Number + ",code=[sm_" +
                             Number + ",compute_" + Number + "]";
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

std::vector<const ModuleVariant *> ArchLink::selectedVariants() const {
  std::vector<const ModuleVariant *> Out;
  Out.reserve(Modules.size());
  for (const LinkModule &LM : Modules)
    Out.push_back(LM.M);
  return Out;
}

uint32_t SymbolTable::aliaseeSection(SymRef R) const {
  const ModuleVariant &M = *Modules[R.Module].M;
  // Follow .alias chains (bounded: a malformed object could loop).
  for (unsigned Depth = 0; Depth < 8 && R.Symbol < M.Symbols.size(); ++Depth) {
    const Symbol &S = M.Symbols[R.Symbol];
    const uint32_t Aliasee = M.aliasOf(R.Symbol);
    if (Aliasee == NoSymbol || Aliasee >= M.Symbols.size())
      return S.Section < M.Sections.size() ? S.Section : NoSection;
    R.Symbol = Aliasee;
  }
  return NoSection;
}

SourceLoc SymbolTable::locationIn(uint32_t Module, uint32_t SecIdx, uint64_t Offset) const {
  const Section &S = Modules[Module].M->Sections[SecIdx];
  SourceLoc Rel = locate(S.contents(), Offset);
  const SourceLoc Where = Modules[Module].M->sectionWhere(S);
  if (!Where.isValid())
    return {};
  if (Rel.Line == 1)
    return SourceLoc{Where.Line, Where.Column + Rel.Column - 1};
  return SourceLoc{Where.Line + Rel.Line - 1, Rel.Column};
}

const FunctionAbi *SymbolTable::functionAbi(SymRef R) const {
  const LinkModule &LM = Modules[R.Module];
  if (LM.AbiOf.empty())
    return bySymbol(LM.M->Functions, R.Symbol);
  uint32_t F = R.Symbol < LM.AbiOf.size() ? LM.AbiOf[R.Symbol] : LinkModule::NoAbi;
  return F & LinkModule::VariableAbiTag ? nullptr : &LM.M->Functions[F]; // NoAbi has the tag bit too
}

const VariableAbi *SymbolTable::variableAbi(SymRef R) const {
  const LinkModule &LM = Modules[R.Module];
  if (LM.AbiOf.empty())
    return bySymbol(LM.M->Functions, R.Symbol) ? nullptr : bySymbol(LM.M->Variables, R.Symbol);
  uint32_t V = R.Symbol < LM.AbiOf.size() ? LM.AbiOf[R.Symbol] : LinkModule::NoAbi;
  return V == LinkModule::NoAbi || !(V & LinkModule::VariableAbiTag)
             ? nullptr
             : &LM.M->Variables[V & ~LinkModule::VariableAbiTag];
}

} // namespace ptxlink
