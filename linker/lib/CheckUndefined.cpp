// The undefined-symbol check (checkUndefined, LinkPasses.h): every live reference must reach a
// definition.
//
// The problem: a name referenced from kept code and defined nowhere is an error the user must see with
// its uses (the first few, each with its place) and, where a definition of a similar name exists, the
// near miss (NearMiss.cpp); the names ptxas or the driver provide are not undefined, and the CUDA device
// runtime's get one error that says how to link it.
#include "LinkPasses.h"
#include "ptxlink/AbiCheck.h"
#include "SassBuild.h"

using namespace llvm;

namespace ptxlink {

/// Names that stay undefined in a complete program because ptxas or the driver provides them: the PTX
/// system calls (ptxas turns calls to them into the runtime's implementation; nvlink links cubins that
/// leave them undefined), the device-side CUDA graph functions of cuda_device_runtime_api.h that are not
/// in libcudadevrt.a but which ptxas resolves itself (found by compiling a kernel calling each of that
/// header's device functions with `ptxas -arch=sm_90`, CUDA 13.0: these six are accepted undefined, the
/// rest are libcudadevrt's or unresolved; NVIDIA's cuda-samples graphConditionalNodes calls
/// cudaGraphSetConditional), and `.extern .shared` arrays, which are the kernel's dynamic shared memory.
bool providedOutsideTheLink(const Symbol &S) {
  if (S.Kind == SymbolKind::Variable)
    return S.Space == StateSpace::Shared;
  static constexpr StringLiteral Provided[] = {
      "vprintf", "malloc", "free", "__assertfail",
      "cudaGraphSetConditional", "cudaGraphLaunch", "cudaGraphKernelNodeSetEnabled",
      "cudaGraphKernelNodeSetGridDim", "cudaGraphKernelNodeSetParam", "cudaGraphKernelNodeUpdatesApply"};
  return is_contained(Provided, S.name());
}

void checkUndefined(const SymbolTable &Symtab, const LinkOptions &Options, DiagnosticEngine &Diags) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  const std::vector<GlobalSymbol> &Globals = Symtab.Globals;
  // Every live reference to a name with no definition, in input order.
  struct RefSite {
    uint32_t Module, Sec;
    uint64_t Offset;
  };
  // Only names without a definition get a list (Slot: global -> its list in Refs): a list per global
  // would cost 24 bytes for every visible name of the link (2.4 MB for 10^5 functions) to report none.
  std::vector<std::vector<RefSite>> Refs;
  DenseMap<uint32_t, uint32_t> Slot;
  std::vector<uint32_t> Order;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const ModuleVariant &M = *Modules[MI].M;
    for (uint32_t SI = 0; SI < M.Sections.size(); ++SI) {
      if (!Modules[MI].SectionLive[SI])
        continue;
      for (const Relocation &R : M.relocs(M.Sections[SI])) {
        if (R.Kind == RelocKind::FileIndex || R.Symbol >= M.Symbols.size())
          continue;
        uint32_t G = Modules[MI].Global[R.Symbol];
        // Defined: NumDefs says so without reading where (Sites, a table as large as the link's names).
        if (G == NoGlobal || Globals[G].NumDefs != 0 || providedOutsideTheLink(M.Symbols[R.Symbol]) ||
            ((Options.Emit == EmitKind::Ptx || Options.Sass || Options.Dlto) && isDeviceRuntimeName(M.Symbols[R.Symbol].name())))
          continue;
        auto [It, Inserted] = Slot.try_emplace(G, uint32_t(Refs.size()));
        if (Inserted) {
          Order.push_back(G);
          Refs.emplace_back();
        }
        Refs[It->second].push_back({MI, SI, R.Offset});
      }
    }
  }
  std::vector<StringRef> Defined;
  if (!Order.empty())
    for (const GlobalSymbol &G : Globals)
      if (Symtab.def(G).valid())
        Defined.push_back(Symtab.name(G));
  auto referencedBy = [&](StringRef Words, const RefSite &RS) {
    const LinkModule &LM = Modules[RS.Module];
    const Section &S = LM.M->Sections[RS.Sec];
    const StringRef Name = LM.M->sectionName(S);
    std::string In = S.Kind == SectionKind::Debug ? Name.str() : displayName(Name);
    return DiagSite::at(Words, siteText(LM, Symtab.locationIn(RS.Module, RS.Sec, RS.Offset)), " in " + In);
  };
  // Dynamic parallelism (a kernel launching kernels) calls into the CUDA device runtime, which NVIDIA
  // ships only as SASS (libcudadevrt.a): a PTX-only link cannot include it; with --sass nvlink links it
  // (and this check lets its names through). A program that launches from the device calls five to ten
  // of its functions: one error names them all, each with its first use, and says once what to do.
  std::vector<DiagSite> RuntimeSites;
  std::vector<std::string> RuntimeNames;
  bool Launches = false; // kernels launched from kernels (dynamic parallelism), not only cudaMalloc & co
  for (uint32_t Index = 0; Index < Order.size(); ++Index) {
    uint32_t G = Order[Index];
    const std::vector<RefSite> &Uses = Refs[Index];
    if (isDeviceRuntimeName(Symtab.name(Globals[G]))) {
      Launches |= isDeviceRuntimeLaunch(Symtab.name(Globals[G]));
      RuntimeNames.push_back(displayName(Symtab.name(Globals[G])));
      RuntimeSites.push_back(referencedBy(RuntimeNames.back() + " referenced by", Uses.front()));
      continue;
    }
    std::vector<DiagSite> Sites;
    const size_t Shown = 3;
    for (size_t I = 0; I < Uses.size() && I < Shown; ++I)
      Sites.push_back(referencedBy("referenced by", Uses[I]));
    if (Uses.size() > Shown)
      Sites.push_back({"referenced " + std::to_string(Uses.size() - Shown) + " more times"});
    suggestNearMisses(Symtab.name(Globals[G]), Defined, Sites);
    Diags.error("undefined symbol: " + displayName(Symtab.name(Globals[G])), std::move(Sites), "undefined-symbol");
  }
  if (!RuntimeNames.empty()) {
    std::string Which = RuntimeNames.front();
    if (RuntimeNames.size() > 1)
      Which += " and " + std::to_string(RuntimeNames.size() - 1) +
               (RuntimeNames.size() > 2 ? " more functions" : " more function") + " of the CUDA device runtime";
    RuntimeSites.push_back({std::string(RuntimeNames.size() > 1 ? "the CUDA device runtime (libcudadevrt, nvcc "
                                                                  "-lcudadevrt) defines them"
                                                                : "the CUDA device runtime (libcudadevrt, nvcc "
                                                                  "-lcudadevrt) defines it") +
                            "; NVIDIA ships it as SASS only, which a PTX-only link cannot include: link with --sass "
                            "(nvlink then links the device runtime), or --emit ptx for ptxas -c and nvlink -lcudadevrt"});
    Diags.error("undefined symbol: " + Which +
                    (Launches ? " (dynamic parallelism needs the CUDA device runtime: link with --sass)"
                              : " (device-side runtime API calls, e.g. cudaMalloc in a kernel, need the CUDA device "
                                "runtime: link with --sass)"),
                std::move(RuntimeSites), "device-runtime");
  }
}

} // namespace ptxlink
