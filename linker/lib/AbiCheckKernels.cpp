// Per-module ABI rules that need no second module: kernel parameter space against the limit of the PTX
// version and target, `.reg` parameters narrower than 32 bits, and `.param` alignments that are not 1,
// 2, 4, 8 or 16.
//
// The problem: ptxas rejects these only when the *linked* module is compiled, naming a line of a file
// that no longer exists (the linker's output). Checked at link time, each one points at the input that
// declared it. Limits (seed ptx-directives.md, `.entry`): PTX ISA 1.4: 256 bytes, 1.5: 4352, 8.1 and
// later: 32764; the CUDA driver allows 256 bytes on sm_1x, 4096 on sm_2x..sm_6x, 32764 on sm_70 and
// later. The effective limit is the smaller of the two (ptxas 13 reports 0x1100 = 4352 for .version 8.0
// on sm_80, which agrees).

#include "ptxlink/AbiCheck.h"
#include "ptxlink/Target.h"

#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace ptxlink {

namespace {

std::string versionText(const TargetInfo &T) {
  return std::to_string(T.VersionMajor) + "." + std::to_string(T.VersionMinor);
}

StringRef functionName(const ModuleVariant &M, const FunctionAbi &F) {
  return F.Symbol < M.Symbols.size() ? M.Symbols[F.Symbol].name() : StringRef("<unnamed>");
}

bool isOpaque(StringRef Type) { return Type == ".texref" || Type == ".samplerref" || Type == ".surfref"; }

class KernelChecker {
public:
  KernelChecker(const ModuleVariant &M, StringRef Object, DiagnosticEngine &Diags)
      : M(M), Object(Object), Diags(Diags) {}

  DiagSite at(SourceLoc Where) { return DiagSite::at("at", describeSite(M, Object, Where)); }

  /// Whether P might break a rule of params(): a `.reg` parameter, or an explicit alignment that is no
  /// power of two up to 128. Nearly every parameter of every input breaks neither.
  static bool suspect(const ParamInfo &P) {
    return P.Space == StateSpace::Reg || (P.Align && (P.Align > 128 || !isPowerOf2_32(P.Align)));
  }

  /// The per-parameter rules shared by functions, kernels and call prototypes.
  void params(StringRef Owner, StringRef What, ArrayRef<ParamInfo> Params, SourceLoc OwnerWhere, bool Returns) {
    for (size_t I = 0; I < Params.size(); ++I) {
      const ParamInfo &P = Params[I];
      SourceLoc Where = P.Where.isValid() ? P.Where : OwnerWhere;
      // Spelled out only for a report (this runs for every parameter of every input).
      auto Label = [&] {
        std::string L = (Returns ? "return value " : "param ") + std::to_string(I + 1);
        if (!P.name().empty() && P.name() != "_")
          L += " '" + P.name().str() + "'";
        return L;
      };
      if (P.Space == StateSpace::Reg) {
        unsigned Bits = P.typeBytes() * 8 * (P.VectorWidth ? P.VectorWidth : 1);
        if (P.type() == ".pred" || Bits < 32)
          report("abi-reg-param-narrow",
                 (What + " " + Owner + ": " + Label() + " is " + formatParamPtx(P) +
                  ": under the ABI, .reg parameters must be at least 32 bits (promote it to .b32, or pass it "
                  "in .param)")
                     .str(),
                 Where);
      }
      // ptxas and nvlink accept every power of two up to 128 (`.param .align 128` is in LLVM's tests).
      if (P.Align && (P.Align > 128 || !isPowerOf2_32(P.Align)))
        report("abi-param-align-invalid",
               (What + " " + Owner + ": " + Label() + " is " + formatParamPtx(P) +
                ": .param alignment must be a power of two up to 128")
                   .str(),
               Where);
    }
  }

  void kernelSpace(const FunctionAbi &F) {
    StringRef Name = F.Symbol < M.Symbols.size() ? M.Symbols[F.Symbol].name() : StringRef("<unnamed>");
    const ArrayRef<ParamInfo> Params = M.params(F);
    const SourceLoc Where = M.functionWhere(F);
    // The layout is spelled out (second pass) only when it does not fit.
    uint64_t Offset = 0;
    std::vector<DiagSite> Layout;
    auto layOut = [&](bool Describe) {
      Offset = 0;
      for (size_t I = 0; I < Params.size(); ++I) {
        const ParamInfo &P = Params[I];
        if (!Describe && P.Space == StateSpace::Reg)
          report("abi-kernel-reg-param",
                 ("kernel " + Name + ": param " + std::to_string(I + 1) + " is " + formatParamPtx(P) +
                  ": kernel parameters are passed in .param space")
                     .str(),
                 P.Where.isValid() ? P.Where : Where);
        if (isOpaque(P.type())) // the limit counts "normal (non-opaque type) parameters" only
          continue;
        uint64_t Align = P.effectiveAlign() ? P.effectiveAlign() : 1;
        uint64_t Start = alignTo(Offset, Align);
        uint64_t Size = P.sizeBytes();
        Offset = SaturatingAdd(Start, Size);
        if (Describe)
          Layout.push_back({"param " + std::to_string(I + 1) + ": " + formatParamPtx(P) + " at offset " +
                            std::to_string(Start) + ", " + std::to_string(Size) + " bytes"});
      }
    };
    layOut(false);
    if (!Limit)
      Limit = kernelParamLimit(M.Target); // the module's, worked out at its first kernel
    if (Offset <= Limit)
      return;
    layOut(true);
    std::vector<DiagSite> Sites{at(Where)};
    // The biggest contributors are what to shrink; a long list helps nobody.
    if (Layout.size() > 8) {
      Layout.resize(8);
      Layout.push_back({"... " + std::to_string(Params.size() - 8) + " more"});
    }
    for (DiagSite &S : Layout)
      Sites.push_back(std::move(S));
    Diagnostic D;
    D.Level = Severity::Error;
    D.Code = "abi-kernel-param-space";
    D.Message = "kernel " + Name.str() + " needs " + std::to_string(Offset) +
                " bytes of parameter space, more than the " + std::to_string(Limit) + " bytes allowed for .version " +
                versionText(M.Target) + " on " + (M.Target.Arch.empty() ? std::string("this target") : M.Target.Arch.str());
    D.Sites = std::move(Sites);
    Diags.report(std::move(D));
  }

  void report(StringRef Code, std::string Message, SourceLoc Where) {
    Diagnostic D;
    D.Level = Severity::Error;
    D.Code = Code.str();
    D.Message = std::move(Message);
    D.Sites.push_back(at(Where));
    Diags.report(std::move(D));
  }

  const ModuleVariant &M;
  StringRef Object;
  DiagnosticEngine &Diags;
  uint32_t Limit = 0; // kernelParamLimit(M.Target), once known (never 0)
};

} // namespace

uint32_t kernelParamLimit(const TargetInfo &T) {
  uint32_t Version = T.VersionMajor * 10 + std::min<uint32_t>(T.VersionMinor, 9);
  uint32_t PtxLimit = Version >= 81 ? 32764 : Version >= 15 ? 4352 : 256;
  unsigned Sm = Target::parse(T.Arch).value_or(Target{}).Sm; // 0: no .target
  uint32_t DriverLimit = Sm == 0 ? 32764 : Sm < 20 ? 256 : Sm < 70 ? 4096 : 32764;
  return std::min(PtxLimit, DriverLimit);
}

bool checkKernels(const ModuleVariant &Module, StringRef ObjectName, DiagnosticEngine &Diags) {
  unsigned Before = Diags.errorCount();
  KernelChecker C(Module, ObjectName, Diags);
  for (const FunctionAbi &F : Module.Functions) {
    if (Diags.limitReached())
      break;
    const ArrayRef<ParamInfo> Returns = Module.returns(F), Params = Module.params(F);
    if (llvm::any_of(Returns, KernelChecker::suspect) || llvm::any_of(Params, KernelChecker::suspect)) {
      StringRef Name = functionName(Module, F);
      StringRef What = F.IsKernel ? "kernel" : "function";
      const SourceLoc Where = Module.functionWhere(F);
      C.params(Name, What, Returns, Where, true);
      C.params(Name, What, Params, Where, false);
    }
    if (F.IsKernel)
      C.kernelSpace(F);
  }
  for (const PrototypeAbi &P : Module.prototypes()) {
    std::string Owner;
    Owner.append("'").append(P.Label.data(), P.Label.size()).append("'");
    C.params(Owner, "call prototype", P.Returns, P.Where, true);
    C.params(Owner, "call prototype", P.Params, P.Where, false);
  }
  return Diags.errorCount() != Before;
}

} // namespace ptxlink
