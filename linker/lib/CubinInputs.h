// Relocatable cubins as link inputs (`nvcc -cubin -rdc=true`, `ptxas -c`), for `ptxlink --sass`.
//
// The problem: a cubin holds SASS only, and everything ptxlink does before code generation works on PTX.
// nvlink, though, takes such cubins beside the others, and a build may have some modules only as SASS
// (a vendor's library, a file compiled by hand with ptxas). So a cubin takes part in the link the way
// nvlink takes it: a module known by its ELF symbol table alone (what it defines, visible or weak, and
// what it refers to), which resolution, dead-code removal and the undefined-symbol check treat as any
// other, and whose bytes go to nvlink unchanged as its code-generation unit. What needs its PTX cannot
// be done: the ABI checks against it (skipped, with a note under -v), and any output that holds PTX
// (refused, naming the cubin). docs/linker.md "SASS" has the rule in full.
#pragma once

#include "LinkContext.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <vector>

namespace ptxlink {

/// True for an input read from a cubin.
inline bool isCubinInput(const InputFile &In) { return In.Host && In.Host->CubinInput; }

/// Reads a cubin as a module of the link: one variant for its arch whose symbols are the cubin's global and
/// weak ones (functions, kernels, variables, defined or not), each definition a section of its own, and one
/// module-text section that refers to every name the cubin leaves undefined (so that what it uses is kept
/// and must be defined). Its bytes are kept in Host->Sass for nvlink. An executable cubin, a damaged one,
/// or one with a .common variable is refused (Problems).
std::unique_ptr<ObjectFile> cubinObjectFromBuffer(std::unique_ptr<llvm::MemoryBuffer> Buffer,
                                                  llvm::StringRef DisplayName, std::optional<HostOrigin> &Host,
                                                  std::vector<Diagnostic> &Problems);

/// What keeps a link from taking a module as SASS, a cubin input or an nvcc object's cubin standing in for its
/// module: nvlink joins such SASS as it is, so the link's output must be SASS made per unit, one nvlink
/// link of the units for each arch. Whether the link makes SASS at all (--sass, or -dlto, whose nvJitLink
/// takes SASS too) is the caller's question: the two callers answer it differently.
enum class SassInputBar : uint8_t {
  None,
  RelocatableOutput, // -r, --emit object: an object holds PTX
  PtxOutput,         // --emit ptx
  WholeProgram,      // --whole-program: one ptxas run over the linked PTX
  RecompileSass,     // --recompile-sass: every unit compiled again
  UsedLists,         // --kernels-used/--variables-used: dead code nvlink would not remove from SASS
};
SassInputBar sassInputBar(const LinkOptions &Options);

/// An nvcc object (or fatbinary input) Obj with SASS but no usable PTX for an arch the link is for (-arch's,
/// or any without one), in a link that sassInputBar does not bar, not -dlto (nor for an arch -gencode asks no
/// SASS for): a variant
/// per such arch made of its cubin's symbol table, as for a cubin input, marked Target.SassOnly (usable for
/// that arch alone), so that its cubin goes to nvlink as it is, as nvcc -dlink does (the link is then made
/// one with --sass). NVIDIA's Makefile template compiles every arch as code=sm_XX and keeps PTX for
/// the newest only. Sets Host.SassVariants where it adds one. Problems: a cubin that cannot be linked from
/// SASS (a .common variable).
void addSassVariants(const LinkOptions &Options, ObjectFile &Obj, HostOrigin &Host, llvm::StringRef DisplayName,
                     std::vector<Diagnostic> &Problems);

/// Once every input is loaded: gives the cubins' symbols the ABI records that the other inputs' PTX has for
/// the same names (their definitions' or declarations'), so that a unit calling into a cubin declares the
/// function with its prototype, and the same ODR hash as another input's weak copy (a cubin's copy cannot
/// be compared: nvlink chooses between them, as between cubins). Nothing is done without cubin inputs.
void completeCubinInputs(std::vector<InputFile> &Inputs);

/// The options and architectures a link with cubin inputs must have: --sass (or -dlto, which gives the
/// cubin to nvJitLink as SASS), nothing sassInputBar bars, and every linked arch the cubin's own (with
/// SASS). Reports each cubin that cannot be linked; false if any.
bool checkCubinInputs(const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs, llvm::ArrayRef<Target> Arches,
                      DiagnosticEngine &Diags);

/// After the split into units: marks each cubin's unit (its bytes go to nvlink as they are) and reports a
/// cubin module that has none (the link changed what it means, e.g. a weak copy of it differs from
/// another input's). Notes (-v) get one line per cubin. False if a cubin cannot be linked.
/// Symtab and Output: the group's symbol table and linked module.
bool markCubinUnits(const SymbolTable &Symtab, const ModuleVariant &Output, const LinkOptions &Options,
                    llvm::ArrayRef<InputFile> Inputs, std::vector<CodegenUnit> &Units, DiagnosticEngine &Diags,
                    std::vector<std::string> *Notes);

} // namespace ptxlink
