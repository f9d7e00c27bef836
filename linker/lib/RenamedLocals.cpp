// The module-local kernels and variables that emit renamed apart (LinkPasses.h): the list a caller of
// link() gets (LinkResult::Renamed), and the --emit host-object check that an nvcc object's host code
// still finds what it registers by name.
//
// The problem: two inputs may each define a module-local kernel or variable of one name; the linked
// module can hold only one of that name, so emit renames the others (`name$<input number>`). Host code
// that looks such a symbol up by name (cudaMemcpyToSymbol, an nvcc object's registration) would then
// miss it: the caller must be told, and a host object's link refused.
#include "LinkPasses.h"

using namespace llvm;

namespace ptxlink {

void forEachRenamedRegistrable(const SymbolTable &Symtab, const ModuleVariant &Output,
                               function_ref<void(uint32_t, uint32_t, StringRef)> F) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  for (uint32_t MI = 0; MI < Modules.size(); ++MI) {
    const LinkModule &LM = Modules[MI];
    for (uint32_t SI = 0; SI < LM.M->Symbols.size() && SI < LM.SymOut.size(); ++SI) {
      const Symbol &S = LM.M->Symbols[SI];
      // Only what host code can name: kernels, and variables in the spaces cudaMemcpyToSymbol reaches.
      bool Registrable = S.Kind == SymbolKind::Kernel ||
                         (S.Kind == SymbolKind::Variable && (S.Space == StateSpace::Global || S.Space == StateSpace::Const));
      if (!Registrable || LM.SymOut[SI] == NoSymbol)
        continue;
      StringRef Linked = Output.Symbols[LM.SymOut[SI]].name();
      if (Linked != S.name())
        F(MI, SI, Linked);
    }
  }
}

std::vector<LocalRename> renamedLocals(const SymbolTable &Symtab, const ModuleVariant &Output, StringRef ArchName) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  std::vector<LocalRename> Renamed;
  forEachRenamedRegistrable(Symtab, Output, [&](uint32_t MI, uint32_t SI, StringRef Linked) {
    const LinkModule &LM = Modules[MI];
    const Symbol &S = LM.M->Symbols[SI];
    Renamed.push_back({ArchName.str(), LM.Input, LM.ObjectName.str(), S.Kind == SymbolKind::Kernel, S.name().str(),
                       Linked.str()});
  });
  return Renamed;
}

void checkHostRegisteredNames(const SymbolTable &Symtab, const ModuleVariant &Output, ArrayRef<InputFile> Inputs,
                              DiagnosticEngine &Diags) {
  const std::vector<LinkModule> &Modules = Symtab.Modules;
  // An nvcc object's static initializer registers each of its kernels and device variables with the CUDA
  // runtime by its PTX name (`__cudaRegisterFunction(handle, stub, "name", ...)`); the runtime finds it in
  // the linked module by that name. A module-local one renamed to keep it apart from another module's
  // would be registered under a name the module no longer has. Only names the host code really registers
  // count: CUDA's math tables (`__cudart_i2opi_f`, module-local in every file that calls sinf/cosf) come
  // from its headers' device code and are never registered, so they are renamed like any other local.
  forEachRenamedRegistrable(Symtab, Output, [&](uint32_t MI, uint32_t SI, StringRef OutName) {
    const LinkModule &LM = Modules[MI];
    const Symbol &S = LM.M->Symbols[SI];
    if (!Inputs[LM.Input].Host || !Inputs[LM.Input].Host->registers(S.name()))
      return;
    Diags.error(Twine(S.Kind == SymbolKind::Kernel ? "kernel " : "variable ") + displayName(S.name()) + " of " +
                    LM.ObjectName + " would be renamed to " + OutName +
                    " in the linked module, but an nvcc object's host code registers its kernels and device "
                    "variables with the CUDA runtime by name (" +
                    S.name() + "); give the clashing module-local definitions different names",
                {DiagSite::at("defined at", Symtab.site({MI, SI}))}, "host-name-clash");
  });
}

} // namespace ptxlink
