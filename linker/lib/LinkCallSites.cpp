// Call sites made to agree with their callee's declared parameter alignment in the linked module.
//
// The problem: a call declares its arguments and return value in the caller's own text
// (`{ .param .align 8 .b8 retval0[16]; call.uni (retval0), make, (); ... }`), and ptxas compiling one module
// requires each such declaration to give the alignment of the callee's formal parameter ("Alignment of
// argument does not match formal parameter"). Compilers disagree on it for the same C++ type: clang writes
// a returned `__align__(16)` struct or `double4` as `.param .align 8 .b8 func_retval0[16]`, nvcc as
// `.align 16`. Compiled separately (ptxas -c, nvlink) the two link, since the value travels in registers
// and the declared alignment only says how the callee's body may access it; in one linked module ptxas
// refuses the call. The ABI check reports such a difference as a warning (AbiCheckCompare.cpp); this pass
// writes the callee's alignment at each direct call whose declaration differs, as a text edit the printer
// applies (ModuleVariant::TextEdits), so that the linked PTX is what ptxas accepts.
//
// Fixed after this pass: Out.TextEdits, sorted.
#include "LinkContext.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ptxlink {

namespace {

/// The formal parameter a call-site declaration named `retval<K>` or `param<K>` stands for, or null.
const ParamInfo *formalFor(StringRef Name, ArrayRef<ParamInfo> Returns, ArrayRef<ParamInfo> Params) {
  unsigned K = 0;
  if (Name.consume_front("retval"))
    return !Name.getAsInteger(10, K) && K < Returns.size() ? &Returns[K] : nullptr;
  if (Name.consume_front("param"))
    return !Name.getAsInteger(10, K) && K < Params.size() ? &Params[K] : nullptr;
  return nullptr;
}

} // namespace

void alignCallSiteParams(ModuleVariant &Out, function_ref<CalleeAbi(uint32_t)> DefinitionOf) {
  // Only a callee with an explicitly aligned parameter or return value can disagree with a call (nearly
  // every call has none): such callees are found once, by symbol, and a link without one reads no call.
  auto Aligned = [](const ParamInfo &P) { return P.Align != 0; };
  std::vector<bool> HasAlignedParam(Out.Symbols.size());
  bool Any = false;
  for (uint32_t I = 0; I < Out.Symbols.size(); ++I) {
    if (Out.Symbols[I].Kind != SymbolKind::Function)
      continue;
    auto [Owner, F] = DefinitionOf(I);
    if (Owner && F && (llvm::any_of(Owner->returns(*F), Aligned) || llvm::any_of(Owner->params(*F), Aligned))) {
      HasAlignedParam[I] = true;
      Any = true;
    }
  }
  if (!Any)
    return;
  for (uint32_t SI = 0; SI < Out.Sections.size(); ++SI) {
    const Section &S = Out.Sections[SI];
    if (S.Kind != SectionKind::Function)
      continue;
    StringRef Text = S.contents();
    uint32_t DoneUpTo = 0; // a call block is looked at once, even if it names the callee twice
    for (const Relocation &R : Out.relocs(S)) {
      if (R.Kind != RelocKind::NameRef || R.Symbol >= Out.Symbols.size() || !HasAlignedParam[R.Symbol] ||
          R.Offset < DoneUpTo || R.Offset > Text.size())
        continue;
      auto [Owner, F] = DefinitionOf(R.Symbol);
      // The call's block: from its `{` to the callee's name, holding `call` (not a `mov` of the address).
      StringRef Before = Text.take_front(R.Offset);
      size_t Open = Before.rfind('{');
      if (Open == StringRef::npos)
        continue;
      StringRef Block = Before.drop_front(Open);
      if (!Block.contains("call") || Block.contains('}'))
        continue;
      DoneUpTo = R.Offset;
      ArrayRef<ParamInfo> Returns = Owner->returns(*F), Params = Owner->params(*F);
      // Each `.param .align N .b8 NAME[...]` line of the block.
      for (size_t At = 0; (At = Block.find(".param", At)) != StringRef::npos; At += 6) {
        StringRef Decl = Block.drop_front(At).take_until([](char C) { return C == ';' || C == '\n'; });
        StringRef Rest = Decl.drop_front(6).ltrim();
        if (!Rest.consume_front(".align"))
          continue;
        Rest = Rest.ltrim();
        size_t Digits = Rest.find_if_not(isDigit);
        StringRef Number = Rest.take_front(Digits);
        unsigned Declared = 0;
        if (Number.empty() || Number.getAsInteger(10, Declared))
          continue;
        StringRef AfterNumber = Rest.drop_front(Digits).ltrim();
        size_t NameAt = AfterNumber.find_first_of(" \t");
        if (NameAt == StringRef::npos)
          continue;
        StringRef Name = AfterNumber.drop_front(NameAt).ltrim().take_until([](char C) { return C == '[' || C == ' '; });
        const ParamInfo *Formal = formalFor(Name, Returns, Params);
        if (!Formal || Formal->Align == 0 || Formal->Align == Declared)
          continue;
        uint32_t Offset = static_cast<uint32_t>(Open + (Number.data() - Block.data()));
        Out.rare().TextEdits.push_back({SI, Offset, static_cast<uint32_t>(Number.size()), std::to_string(Formal->Align)});
      }
    }
  }
  llvm::sort(Out.rare().TextEdits, [](const ModuleVariant::TextEdit &A, const ModuleVariant::TextEdit &B) {
    return std::tie(A.Section, A.Offset) < std::tie(B.Section, B.Offset);
  });
}

} // namespace ptxlink
