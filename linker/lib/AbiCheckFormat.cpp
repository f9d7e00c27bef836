// How ABI diagnostics show what they compare: signatures printed back as normalised PTX, sites as
// "file:line:col (object)", C++ names demangled.
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

static void formatParamList(raw_ostream &OS, ArrayRef<ParamInfo> Params) {
  OS << "(";
  for (size_t I = 0; I < Params.size(); ++I)
    OS << (I ? ", " : "") << formatParamPtx(Params[I]);
  OS << ")";
}

static void formatFunctionTail(raw_ostream &OS, bool NoReturn, const std::optional<uint32_t> &Preserve,
                               const std::optional<uint32_t> &PreserveControl) {
  if (NoReturn)
    OS << " .noreturn";
  if (Preserve)
    OS << " .abi_preserve " << *Preserve;
  if (PreserveControl)
    OS << " .abi_preserve_control " << *PreserveControl;
}

std::string formatFunctionPtx(const ModuleVariant &Module, const FunctionAbi &F) {
  std::string Out;
  raw_string_ostream OS(Out);
  StringRef Name = "<unnamed>";
  if (F.Symbol < Module.Symbols.size()) {
    const Symbol &S = Module.Symbols[F.Symbol];
    Name = S.Name;
    OS << linkageDirective(S.Bind);
  }
  OS << (F.IsKernel ? ".entry " : ".func ");
  for (StringRef Attr : F.Attributes)
    OS << ".attribute(" << Attr << ") ";
  if (!F.Returns.empty()) {
    formatParamList(OS, F.Returns);
    OS << " ";
  }
  OS << Name;
  // `.func f` and `.func f()` are the same prototype; print the list whenever there is one to show.
  if (!F.Params.empty() || !F.Returns.empty())
    formatParamList(OS, F.Params);
  formatFunctionTail(OS, F.NoReturn, F.AbiPreserve, F.AbiPreserveControl);
  return Out;
}

std::string formatPrototypePtx(const PrototypeAbi &P) {
  std::string Out;
  raw_string_ostream OS(Out);
  OS << P.Label << ": .callprototype ";
  if (!P.Returns.empty()) {
    formatParamList(OS, P.Returns);
    OS << " ";
  }
  OS << "_ ";
  formatParamList(OS, P.Params);
  formatFunctionTail(OS, P.NoReturn, P.AbiPreserve, P.AbiPreserveControl);
  return Out;
}

std::string formatVariablePtx(const ModuleVariant &Module, const VariableAbi &V) {
  std::string Out;
  raw_string_ostream OS(Out);
  StringRef Name = "<unnamed>";
  if (V.Symbol < Module.Symbols.size()) {
    const Symbol &S = Module.Symbols[V.Symbol];
    Name = S.Name;
    OS << linkageDirective(S.Bind);
  }
  printVariableDeclPtx(OS, V, Name);
  return Out;
}

// The linker asks once per declaration, so a linear scan would make a link with many declarations of a
// huge module quadratic. The assembler records signatures in symbol order, so a binary search finds them;
// a hand-built or reordered list still works through the linear fallback.
template <typename Abi> static const Abi *findAbi(const std::vector<Abi> &List, uint32_t Symbol) {
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
  return findAbi(Module.Functions, Symbol);
}

const VariableAbi *findVariableAbi(const ModuleVariant &Module, uint32_t Symbol) {
  return findAbi(Module.Variables, Symbol);
}

std::string demangleCxx(StringRef Name) {
  if (!Name.starts_with("_Z"))
    return "";
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Name.str().c_str()))
    return "";
  char *Buf = D.finishDemangle(nullptr, nullptr);
  if (!Buf)
    return "";
  std::string Result(Buf);
  std::free(Buf);
  return Result;
}

std::string describeSite(const ModuleVariant &Module, StringRef ObjectName, SourceLoc Where) {
  std::string Out;
  raw_string_ostream OS(Out);
  OS << (Module.SourceName.empty() ? StringRef("<unknown>") : Module.SourceName);
  if (Where.isValid())
    OS << ":" << Where.Line << ":" << Where.Column;
  if (!ObjectName.empty() && ObjectName != Module.SourceName)
    OS << " (" << ObjectName << ")";
  return Out;
}

} // namespace ptxlink
