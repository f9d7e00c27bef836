// The last pass of a link: writing the linked program as the output the command line asked for.
//
// The problem: a link ends in one of several containers (a fatbinary, with SASS from ptxas when --sass
// asks; the linked PTX module; a relocatable object; a host object or C source embedding the
// fatbinary), each written atomically, and the per-arch passes should not care which. They produce a
// LinkedProgram (the linked modules and, per requested arch, which module it gets and with which
// `.target` header); writeLinkOutput turns that into bytes.
#pragma once

#include "LinkContext.h"
#include "SassBuild.h"
#include "ptxlink/Executor.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <vector>

namespace ptxlink {

/// What goes into the output, per arch: a linked module and the header it is printed with.
struct ArchOutput {
  size_t Variant; // index in Linked.Variants
  TargetInfo Target;
  std::string Requested; // the arch asked for: what SASS is compiled for (Target may name an older one)
  std::string JitOptions; // what its PTX image records for the driver's JIT compile (ptxJitOptions)
};

/// What the per-arch passes hand to the output pass.
struct LinkedProgram {
  ObjectFile Linked;               // the output modules, one per linked arch; their strings live here
  std::vector<ArchOutput> Outputs; // per requested arch, in -arch order (several may share a module)
  // --sass, per linked module: its code generation units (empty: compiled whole) and whether it calls
  // the device runtime.
  std::vector<std::vector<CodegenUnit>> UnitsOf;
  std::vector<bool> DeviceRuntimeOf;
  std::vector<std::string> ModuleIds; // --emit host-object: the nvcc module ids to register, each once
  // A cubin input is linked (CubinInputs.h): the fatbinary holds the linked SASS only, no PTX image (which
  // would lack the cubin's code).
  bool SassOnly = false;
  // The inputs' text as the link left it (InputTextPages.h): the printer gives back what it has passed and
  // reads declaration parts kept apart. The linked modules' sections are views of the inputs. Null:
  // nothing was or is given back.
  const InputTextPages *InputText = nullptr;
  // --sass: ptxas and nvlink, looked for (`ptxas --version` runs) while the link runs.
  Executor::Future<llvm::Expected<SassToolchain>> Toolchain;
};

/// The outputs that hold a fatbinary (and so SASS, with --sass).
inline bool writesFatbin(EmitKind E) {
  return E == EmitKind::Fatbin || E == EmitKind::HostObject || E == EmitKind::CSource;
}

/// Writes the output file through Write, atomically, or Write's bytes to Stdout for `-o -`.
llvm::Error writeOutput(const LinkOptions &O, llvm::raw_ostream &Stdout,
                        const std::function<llvm::Error(llvm::raw_ostream &)> &Write);

/// --emit host-object and --emit c: the fatbinary of Images, built in memory, inside the device-link object
/// that registers ModuleIds (none: an object that registers nothing) or inside C source, written as
/// writeOutput writes.
llvm::Error writeEmbeddedFatbin(const LinkOptions &O, llvm::ArrayRef<FatbinImage> Images,
                                const FatbinWriteOptions &Write, llvm::ArrayRef<std::string> ModuleIds,
                                llvm::raw_ostream &Stdout);

/// Writes Program as Options asks: `-r` an object, `--emit ptx` the module, otherwise a fatbinary (with
/// cubins from ptxas and nvlink for --sass), bare or inside a host object or C source. Reports what goes
/// wrong to Diags and returns false; a failed write leaves no output file.
bool writeLinkOutput(const LinkOptions &Options, LinkedProgram &Program, DiagnosticEngine &Diags, PassTimes &Times,
                     llvm::raw_ostream &Out);

} // namespace ptxlink
