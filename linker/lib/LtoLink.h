// Link-time optimisation: `ptxlink -dlto` for objects from `nvcc -dc -dlto` (docs/linker.md, "LTO").
//
// The problem: objects built for link-time optimisation carry LTO-IR, NVIDIA's private intermediate form,
// beside (by default) PTX. Linking only the PTX loses the optimisation across files without a word; an
// object with LTO-IR only cannot be linked from PTX at all. ptxlink never reads LTO-IR: with -dlto it
// runs its own link over the PTX the objects carry (resolution, undefined symbols, ABI agreement with
// both sites named, ODR, archive member selection, reports), exactly as without -dlto, and only then
// hands the selected objects to libnvJitLink (NvJitLinkLibrary.h) with `-lto`, once per architecture;
// nvJitLink's cubin becomes the output's SASS and the device-link object registers the same modules as
// `nvcc -dlink -dlto`. Without -dlto, objects carrying LTO-IR are reported (a warning, or an error where
// there is no PTX to link instead).
#pragma once

#include "LinkContext.h"
#include "LinkOutput.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace ptxlink {

/// Before the per-arch link: without -dlto, a warning naming the inputs whose LTO-IR goes unused and an
/// error for inputs with LTO-IR but no PTX; with -dlto and PTX output (--emit ptx, --lto-ptx), an error
/// for inputs without LTO-IR. Returns false if an error was reported.
bool checkLtoInputs(const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs, DiagnosticEngine &Diags);

/// True for an nvcc object that holds LTO-IR but no PTX (`-gencode arch=compute_80,code=lto_80`).
bool isLtoIrOnly(const InputFile &In);

/// Under -dlto, whether nvJitLink alone links In for Arch: an nvcc object with no PTX usable for Arch but
/// with LTO-IR, or with SASS for Arch, which nvJitLink links as it is (partial LTO, as `nvcc -dlink -dlto`
/// does: CMake makes such objects for a non-IPO target with "-real" architectures beside an IPO library).
/// The per-arch link leaves it out (selectVariants); its code is nvJitLink's to link.
bool linkedByNvJitLinkOnly(const InputFile &In, const Target &Arch);

/// Under -dlto, before the per-arch link: a note naming the inputs that nvJitLink alone links for some of
/// Arches (ptxlink's checks cannot see their code there).
void noteInputsOnlyNvJitLinkSees(const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs,
                                 llvm::ArrayRef<Target> Arches, DiagnosticEngine &Diags);

/// The options the per-arch link runs its checks with under -dlto: Options itself, or, where nvJitLink
/// alone links some input for some arch (its definitions are invisible to ptxlink), a copy in Storage that
/// does not require every reference to be defined (nvJitLink reports what is really undefined).
const LinkOptions &ltoCheckOptions(const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs,
                                   llvm::ArrayRef<Target> Arches, LinkOptions &Storage);

/// -dlto's output pass, instead of writeLinkOutput: per arch of Program.Outputs, nvJitLink links every
/// input (nvcc objects whole, so that it picks their LTO-IR; other modules as the PTX variant ptxlink
/// selected) with -lto, through the compile cache; the cubins (and with --lto-ptx the optimised PTX) are
/// written as a fatbinary, bare or in a host object or C source. Returns false after reporting.
bool writeLtoOutput(const LinkOptions &Options, llvm::ArrayRef<InputFile> Inputs, LinkedProgram &Program,
                    DiagnosticEngine &Diags, PassTimes &Times, llvm::raw_ostream &Out);

} // namespace ptxlink
