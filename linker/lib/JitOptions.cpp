// The options the driver's JIT compile of a linked PTX image gets: those its inputs were compiled with.
//
// The problem: nvcc records in each PTX entry of an object's fatbinary the ptxas options the code was
// compiled with (`-maxrregcount=32`, `-Xptxas -O1`, -lineinfo's `--generate-line-info`, -G's `-g
// --dont-merge-basicblocks --return-at-end`), and the CUDA driver hands them to ptxas when it
// JIT-compiles that PTX. A linked PTX image written without them is JIT-compiled without them: a kernel
// capped at 32 registers by its author came out with 56 (docs/compatibility.md, finding 27). The linked
// image records the options its nvcc inputs agree on (nvcc's `--compile-only` dropped: the linked module
// is a whole program), or the link's own -Xptxas/-maxrregcount where it gives them, as nvcc records
// -Xptxas for a whole-program object; where the inputs disagree, what they share, with a warning naming
// what is lost. Modules without a fatbinary entry (ptxlink objects, .ptx files) have no recorded options
// and take no part.
#include "LinkPasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace ptxlink {

namespace {

/// One input's recorded options as tokens, nvcc's --compile-only left out.
std::vector<std::string> jitTokens(llvm::StringRef Recorded) {
  llvm::SmallVector<llvm::StringRef, 8> Split;
  Recorded.split(Split, ' ', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Tokens;
  for (llvm::StringRef T : Split)
    if (T != "--compile-only" && T != "-c")
      Tokens.push_back(T.str());
  return Tokens;
}

/// The recorded options of M's selected variant, or null for a module without any.
const std::string *recordedOptions(const LinkModule &M, llvm::ArrayRef<InputFile> Inputs) {
  const InputFile &In = Inputs[M.Input];
  if (!In.Host || M.M->Target.SassOnly)
    return nullptr;
  const size_t Variant = static_cast<size_t>(M.M - In.Object->Variants.data());
  return Variant < In.Host->PtxJitOptions.size() ? &In.Host->PtxJitOptions[Variant] : nullptr;
}

} // namespace

std::vector<std::string> recordedPtxasOptions(const LinkModule &M, llvm::ArrayRef<InputFile> Inputs) {
  const std::string *Recorded = recordedOptions(M, Inputs);
  std::vector<std::string> Tokens = Recorded ? jitTokens(*Recorded) : std::vector<std::string>();
  llvm::erase_if(Tokens, [](const std::string &T) { return T == "-g" || T == "-v" || T == "--verbose"; });
  return Tokens;
}

std::string ptxJitOptions(const SymbolTable &Symtab, llvm::ArrayRef<InputFile> Inputs, const LinkOptions &Options,
                          DiagnosticEngine &Diags) {
  if (!Options.PtxasOptions.empty())
    return llvm::join(Options.PtxasOptions, " ");
  // The inputs' options, each distinct set once, with the first module that has it.
  std::vector<std::pair<std::vector<std::string>, llvm::StringRef>> Sets;
  for (const LinkModule &M : Symtab.Modules) {
    const std::string *Recorded = recordedOptions(M, Inputs);
    if (!Recorded)
      continue;
    std::vector<std::string> Tokens = jitTokens(*Recorded);
    if (llvm::none_of(Sets, [&](const auto &S) { return S.first == Tokens; }))
      Sets.push_back({std::move(Tokens), M.ObjectName});
  }
  if (Sets.empty())
    return {};
  std::vector<std::string> Shared = Sets.front().first;
  for (const auto &S : llvm::ArrayRef(Sets).drop_front())
    llvm::erase_if(Shared, [&](const std::string &T) { return !llvm::is_contained(S.first, T); });
  if (Sets.size() > 1) {
    std::string Each;
    for (const auto &S : llvm::ArrayRef(Sets).take_front(3))
      Each += (Each.empty() ? "" : "; ") + S.second.str() + ": " +
              (S.first.empty() ? std::string("none") : llvm::join(S.first, " "));
    Diags.warning("the inputs' PTX was compiled with different ptxas options (" + Each +
                      (Sets.size() > 3 ? "; ..." : "") + "), which the driver's JIT compile of the linked PTX image "
                      "cannot all have: it gets " + (Shared.empty() ? std::string("none of them") : llvm::join(Shared, " ")) +
                      ". Give the link the ones to use (-Xptxas, -maxrregcount), or link with --sass, whose SASS for "
                      "the linked arches keeps each module's own (its cubin as compiled, or compiled with them)",
                  std::vector<DiagSite>(), "jit-options");
  }
  return llvm::join(Shared, " ");
}

} // namespace ptxlink
