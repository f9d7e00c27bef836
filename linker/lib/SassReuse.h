// Using the SASS that the inputs carry instead of compiling their PTX again (`ptxlink --sass`).
//
// The problem: `nvcc -dc -gencode arch=compute_80,code=[sm_80,compute_80]` has already run ptxas on every
// file and put the relocatable cubin beside the PTX; compiling that PTX again made a cold device link
// several times slower than `nvcc -dlink`, which only runs nvlink. A module's own cubin may stand for its
// part of the link when the link leaves the module's code as it was compiled (sassReuseRefusal in LinkPasses.h,
// the link's half of the rule) and the cubin is what ptxlink's own ptxas run would have been asked for
// (usableInputCubin, this file: the arch, the ptxas release, and the ptxas options that change code,
// all read from the cubin's .note.nv.tkinfo). The rule in full: docs/linker.md "SASS".
#pragma once

#include "ptxlink/Fatbin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// What a cubin's .note.nv.tkinfo says about the tool that made it.
struct ToolkitNote {
  std::string Tool;    // "ptxas", "nvlink"
  std::string Version; // "Cuda compilation tools, release 13.0, V13.0.88"
  std::string Build;   // "Build cuda_13.0.r13.0/compiler.36424714_0"
  std::string Options; // the command line as the tool recorded it ("-arch sm_80 -m 64 -c")
};
/// The note of a cubin, or an error saying what is missing or malformed.
llvm::Expected<ToolkitNote> readToolkitNote(llvm::StringRef Cubin);
/// The number of the virtual arch whose PTX a cubin was compiled from, as its .note.nv.cuinfo records it
/// (75 for an sm_80 cubin of compute_75 PTX); std::nullopt without a readable note.
std::optional<uint32_t> cubinPtxArch(llvm::StringRef Cubin);

/// ptxas options as groups ("-maxrregcount 32"), spelled as ptxas records them in the note
/// (--maxrregcount=32, -O2 and --generate-line-info become "-maxrregcount 32", "-O 2", "-lineinfo"),
/// sorted, without those that do not change what ptxas makes of a module here: the input and output
/// files, -c, "-m 64", the default "-O 3", and -arch (checked on its own). An option ptxlink does not
/// know is kept as written, so that it can only make two lists differ.
std::vector<std::string> canonicalPtxasOptions(llvm::ArrayRef<llvm::StringRef> Tokens);

/// The cubin an input's SASS image holds, decompressed where it is stored compressed; an error saying why
/// not ("its sm_80 SASS is compressed in a way ptxlink does not read", "... is not a cubin").
llvm::Expected<std::string> cubinOfImage(const FatbinImage &Image);

/// The relocatable cubin among Images (an input's SASS, as stored) that nvlink may take for Arch instead
/// of `ptxas -c [-g] PtxasOptions` over the unit; an error saying why not otherwise. InputTarget is the
/// `.target` of the PTX variant the link used for the module (the cubin must have been compiled from that
/// PTX: its .note.nv.cuinfo names the PTX's virtual arch; without the note, it must be for the same arch),
/// Debug whether the unit would be compiled with -g, PtxasVersion the
/// output of `ptxas --version` of the toolkit that links (the cubin must come from the same release).
llvm::Expected<std::string> usableInputCubin(llvm::ArrayRef<FatbinImage> Images, llvm::StringRef InputTarget,
                                             llvm::StringRef Arch, bool Debug,
                                             llvm::ArrayRef<std::string> PtxasOptions, llvm::StringRef PtxasVersion);

} // namespace ptxlink
