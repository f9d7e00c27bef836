// How ABI diagnostics show what they compare: signatures printed back as normalised PTX (the printer's
// printFunctionDeclPtx), sites as places (SiteLocation: "file:line:col (object)"), C++ names demangled.
//
// The problem: nvlink's "Prototype doesn't match for 'f'" names neither prototype nor where each came
// from. Every ABI finding instead prints both sides in the one notation a PTX author reads, rebuilt from
// the structured signature (so declaration and definition print alike and differ only where they differ).

#include "ptxlink/AbiCheck.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {

std::string formatFunctionPtx(const ModuleVariant &Module, const FunctionAbi &F) {
  std::string Out;
  raw_string_ostream OS(Out);
  if (F.Symbol < Module.Symbols.size()) {
    const Symbol &S = Module.Symbols[F.Symbol];
    printFunctionDeclPtx(OS, Module.signature(F), S.name(), linkageDirective(S.Bind));
  } else {
    printFunctionDeclPtx(OS, Module.signature(F), "<unnamed>", "");
  }
  return Out;
}

std::string formatPrototypePtx(const PrototypeAbi &P) {
  std::string Out;
  raw_string_ostream OS(Out);
  printCallPrototypePtx(OS, P);
  return Out;
}

std::string formatVariablePtx(const ModuleVariant &Module, const VariableAbi &V) {
  std::string Out;
  raw_string_ostream OS(Out);
  StringRef Name = "<unnamed>";
  if (V.Symbol < Module.Symbols.size()) {
    const Symbol &S = Module.Symbols[V.Symbol];
    Name = S.name();
    OS << linkageDirective(S.Bind);
  }
  printVariableDeclPtx(OS, V, Name);
  return Out;
}

// The linker asks once per declaration, so a linear scan would make a link with many declarations of a
// huge module quadratic. The assembler records signatures in symbol order, so a binary search finds them;
// a hand-built or reordered list still works through the linear fallback.
template <typename Abi> static const Abi *findAbi(llvm::ArrayRef<Abi> List, uint32_t Symbol) {
  auto It = std::lower_bound(List.begin(), List.end(), Symbol,
                             [](const Abi &A, uint32_t S) { return A.Symbol < S; });
  if (It != List.end() && It->Symbol == Symbol)
    return &*It;
  for (const Abi &A : List)
    if (A.Symbol == Symbol)
      return &A;
  return nullptr;
}

const FunctionAbi *findFunctionAbi(const ModuleVariant &Module, uint32_t Symbol) {
  return findAbi<FunctionAbi>(Module.Functions, Symbol);
}

const VariableAbi *findVariableAbi(const ModuleVariant &Module, uint32_t Symbol) {
  return findAbi<VariableAbi>(Module.Variables, Symbol);
}

std::string demangleCxx(StringRef Name) {
  if (!Name.starts_with("_Z"))
    return "";
  // The demangler keeps pointers into the mangled text until finishDemangle: it must outlive D (a
  // temporary's c_str() here printed freed memory for names past the small-string size).
  std::string Mangled = Name.str();
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Mangled.c_str()))
    return "";
  char *Buf = D.finishDemangle(nullptr, nullptr);
  if (!Buf)
    return "";
  std::string Result(Buf);
  std::free(Buf);
  return Result;
}

SiteLocation describeSite(const ModuleVariant &Module, StringRef ObjectName, SourceLoc Where) {
  StringRef File = !Module.SourceName.empty() ? Module.SourceName
                   : !ObjectName.empty()      ? ObjectName
                                              : StringRef("<unknown>");
  return SiteLocation{File.str(), Where, ObjectName.str()};
}

} // namespace ptxlink
