// The passes of one architecture's link, in the order the driver runs them (linkEachArch, LinkDriver.cpp).
//
// The problem: linking for one arch is a sequence of steps over one symbol table (SymbolTable,
// LinkContext.h), each reading what the earlier ones fixed. As lld's passes are (`markLive(ctx)`), each
// is a free function taking only the state it reads and writes, in a file named after it, so that what
// a pass may touch is in its signature and the contract of the whole sequence is on this page: each
// declaration says what the pass reads and what is fixed after it. Timing (--time) is the driver's.
#pragma once

#include "LinkContext.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxlink {

class CallGraphDot;

// ---- pass 1, per arch: which variant of each input serves the arch (SelectVariants.cpp) ----

/// Picks each input's variant for Arch (Target::ptxUsableFor, the most specific first); an input
/// without a usable one is reported (no-usable-variant) and false returned. Fixed after: Symtab.Modules,
/// one per input with a usable variant, in input order, with each module's per-symbol and per-section
/// tables sized in Symtab.TablePool (Global all NoGlobal, SectionLive all 0, AbiOf where the records are
/// out of order).
bool selectVariants(const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs, const Target &Arch,
                    DiagnosticEngine &Diags, SymbolTable &Symtab);
/// The variant each input contributes (after selectVariants), in input order.
std::vector<const ModuleVariant *> selectedVariants(llvm::ArrayRef<LinkModule> Modules);

// ---- pass 2, per arch: the `.target` the arch's module can be written for (OutputTarget.cpp) ----

/// Which target one arch's linked PTX names: the requested arch, or the older one its inputs can name.
struct TargetChoice {
  Target Arch;                    // the arch requested (-arch)
  std::optional<Target> Fallback; // set when the newest input's PTX version cannot name Arch
  std::pair<unsigned, unsigned> NewestInputVersion{0, 0};

  /// The target the linked PTX module is written for.
  Target ptxTarget() const { return Fallback.value_or(Arch); }
  bool ptxTargetIsOlder() const { return Fallback.has_value(); }
  /// One line for -v saying why the PTX is written for an older target (empty if it is not); Sass: the
  /// link compiles SASS from it.
  std::string ptxTargetReason(bool Sass) const;
};
/// The decision that depends on the arch: the newest input's PTX version must be able to name it. When
/// it cannot (libraries compiled for an older GPU, the everyday case), the PTX is written for the highest
/// target the inputs name instead, which the driver JIT-compiles for the newer GPU and ptxas compiles
/// for it; an error (version-too-old) only when no input names a usable target. Reads: Modules.
TargetChoice checkTargetVersion(llvm::ArrayRef<LinkModule> Modules, const Target &Arch, DiagnosticEngine &Diags);
/// The linked module's `.version`/`.target`/`.address_size` for an arch whose PTX is written for
/// Written (TargetChoice::ptxTarget), strings saved in Storage. Reads: the selected modules' headers.
TargetInfo outputTarget(llvm::ArrayRef<LinkModule> Modules, const Target &Written, ObjectFile &Storage);

/// The ptxas options a linked PTX image records for the driver's JIT compile (JitOptions.cpp): the link's
/// -Xptxas/-maxrregcount if given, else those the selected nvcc modules' PTX entries record and agree on
/// (nvcc's --compile-only left out); where they disagree, the options they share, and a warning
/// (jit-options). Reads: the selected modules, the inputs' HostOrigin::PtxJitOptions.
std::string ptxJitOptions(const SymbolTable &Symtab, llvm::ArrayRef<InputFile> Inputs, const LinkOptions &Options,
                          DiagnosticEngine &Diags);
/// The ptxas options an nvcc module's object recorded for the PTX variant the link selected, as ptxas
/// arguments: nvcc's --compile-only, and -g and -v (the link's own to give), left out; empty for a module
/// from anything else. A --sass unit of that module alone is compiled with them where the link gives no
/// ptxas options (SassBuild.cpp), as nvcc compiled it.
std::vector<std::string> recordedPtxasOptions(const LinkModule &M, llvm::ArrayRef<InputFile> Inputs);

// ---- passes 3-6, once per group of arches that select the same variants ----

/// Pass 3 (ResolveSymbols.cpp): one GlobalSymbol per visible name, its definitions and declarations in
/// Sites, the winner of each by the rules of docs/linker.md ("Resolution"); module-local symbols are kept
/// apart. Reads: Modules, and each symbol's name id that Names recorded at load (Inputs: the link's, whose
/// numbers the modules' Input are). Fixed after: Globals (each one's sites, winner, binding), Sites,
/// GlobalIndex, CommonSizes, WeakCopiesDiffer, every module's Global table.
void resolveSymbols(SymbolTable &Symtab, LinkNames &Names, llvm::ArrayRef<InputFile> Inputs, DiagnosticEngine &Diags);

/// Pass 4 (CheckAbi.cpp): kernels, module compatibility, every declaration and losing definition against
/// its winner, aliases and `.calltargets` (the same for every arch of a group). Reads the resolved table;
/// writes diagnostics only.
void checkAbi(const SymbolTable &Symtab, const LinkOptions &Options, DiagnosticEngine &Diags);

/// Pass 5 (MarkLive.cpp): liveness from the roots (kernels, visible variables, debug sections, a
/// module-local kernel or a registered variable; everything with --no-gc or -r), along relocations to
/// their winning definitions. Fixed after: every module's SectionLive, GlobalSymbol::Live.
void markLive(SymbolTable &Symtab, const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs);

/// Pass 5b (CheckUndefined.cpp): every live reference must reach a definition, but for what ptxas or the
/// driver provides (providedOutsideTheLink) and, where ptxas or nvlink links later, the CUDA device
/// runtime. Not run for -r, whose output keeps undefined names for a later link. Reads: the resolved table
/// and SectionLive; writes diagnostics only.
void checkUndefined(const SymbolTable &Symtab, const LinkOptions &Options, DiagnosticEngine &Diags);

/// What emit made: the output module and where each of its symbols came from.
struct OutputModule {
  const ModuleVariant *Module = nullptr; // null until emit has run
  std::vector<SymRef> Origin;            // per output symbol, the input symbol it came from
};

/// Pass 6 (EmitModule.cpp, DwarfMerge.cpp): builds the output module into Out, whose strings live in
/// Storage: live sections by reference, module-local names renamed apart, debug sections merged with one
/// abbreviation table and `.file` list, relocations mapped, the ABI records the output needs, call-site
/// alignment. Target: the arch's (its header, and its name in messages). Fixed after: Out; every
/// module's SymOut/SecOut and every GlobalSymbol's Out; GlobalIndex released (no name is looked up after).
OutputModule emitModule(SymbolTable &Symtab, const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs,
                        const TargetChoice &Target, DiagnosticEngine &Diags, ModuleVariant &Out, ObjectFile &Storage);

// ---- after emit (RenamedLocals.cpp) ----

/// Calls F(module, symbol, linked name) for every kernel and .global/.const variable (what host code
/// registers by name) whose name in Output differs from its own. One scan for the callers below and
/// splitDebugInputs.
void forEachRenamedRegistrable(const SymbolTable &Symtab, const ModuleVariant &Output,
                               llvm::function_ref<void(uint32_t, uint32_t, llvm::StringRef)> F);
/// The module-local kernels and variables that were renamed (LinkResult::Renamed), for arch ArchName.
std::vector<LocalRename> renamedLocals(const SymbolTable &Symtab, const ModuleVariant &Output,
                                       llvm::StringRef ArchName);
/// For --emit host-object: every kernel and device variable of an nvcc object keeps its name in the
/// linked module, since the object's host code registers it by that name (docs/host-link.md).
void checkHostRegisteredNames(const SymbolTable &Symtab, const ModuleVariant &Output,
                              llvm::ArrayRef<InputFile> Inputs, DiagnosticEngine &Diags);

// ---- --sass: the units ptxas compiles (SplitForCodegen.cpp, SassReuse.cpp) ----

/// The linked module cut into one CodegenUnit per input that kept code; inputs with less code than
/// BatchBelowBytes are batched with neighbours (0: never). Empty if the module cannot be compiled in
/// parts; the caller then compiles it whole. With DWARF sections (whose merge ties the modules together),
/// one unit per input module as assembled (splitDebugInputs). Unless --recompile-sass, a module whose
/// input carries SASS and that the link leaves as compiled (sassReuseRefusal) is a unit of its own, with
/// InputSass set; ReuseNotes (if given) gets one line per module with SASS that cannot be used as it is,
/// saying why.
std::vector<CodegenUnit> splitForCodegen(const SymbolTable &Symtab, const OutputModule &Output,
                                         const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs,
                                         uint64_t BatchBelowBytes, std::vector<std::string> *ReuseNotes = nullptr);
/// The units of a link with debug info: every input's own module, for ptxas -c -g and nvlink -g; empty
/// where the link changed what a module means (renamed locals, --kernels-used/--variables-used).
std::vector<CodegenUnit> splitDebugInputs(const SymbolTable &Symtab, const ModuleVariant &Output,
                                          const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs);
/// Why module MI's own cubin cannot stand for its part of this link (SassReuse.cpp): empty if it can.
/// The link-side half of the rule in docs/linker.md "SASS"; the tool-side half (arch, ptxas version and
/// options recorded in the cubin) is checked where the cubin is used (SassReuse.h). Output: the linked
/// module (null before emit).
std::string sassReuseRefusal(const SymbolTable &Symtab, const ModuleVariant *Output, const LinkOptions &Options,
                             uint32_t MI);

// ---- reports (LinkReports.cpp, CallGraphReports.cpp) ----

/// --print-gc: each function and variable that liveness removed (after markLive).
void printGc(const SymbolTable &Symtab, llvm::StringRef ArchName, llvm::raw_ostream &OS);
/// --trace-symbol: every definition and reference of each of Names, and which definition won (after
/// resolution, before emit releases the name index).
void traceSymbols(const SymbolTable &Symtab, llvm::ArrayRef<std::string> Names, llvm::StringRef ArchName,
                  llvm::raw_ostream &OS);
/// --map: what each kept symbol came from and its size, what was dropped and why (after emit; Output null
/// if emit did not run).
void writeMap(const SymbolTable &Symtab, const ModuleVariant *Output, llvm::StringRef ArchName,
              llvm::raw_ostream &OS);
/// --dump-callgraph: the live functions numbered in output order, with their callees (after markLive).
void dumpCallgraph(const SymbolTable &Symtab, llvm::StringRef ArchName, llvm::raw_ostream &OS);
/// --callgraph-dot: this arch's call graph (after markLive) added to G: one cluster per input module,
/// removed code kept but marked, tables of function pointers and indirect-call sets. Group: the outer
/// cluster (the arch name in a multi-arch link, else "").
void addCallGraph(const SymbolTable &Symtab, CallGraphDot &G, llvm::StringRef Group);

} // namespace ptxlink
