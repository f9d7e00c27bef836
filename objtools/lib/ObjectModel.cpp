// Small queries on the object model (ObjectModel.h) that every component needs the same answer to: the
// spelling of a state space, the storage size of a PTX type, the size and ABI alignment of a parameter.
// Keeping them in one place means the assembler's layout, the linker's ABI check and the printer agree.

#include "ptxlink/ObjectModel.h"


#include <iterator>

#include <xxhash.h>

namespace ptxlink {

llvm::StringRef stateSpaceName(StateSpace S) {
  switch (S) {
  case StateSpace::None:
    return "";
  case StateSpace::Reg:
    return ".reg";
  case StateSpace::Param:
    return ".param";
  case StateSpace::Global:
    return ".global";
  case StateSpace::Const:
    return ".const";
  case StateSpace::Shared:
    return ".shared";
  case StateSpace::Local:
    return ".local";
  case StateSpace::Tex:
    return ".tex";
  case StateSpace::Generic:
    // PTX has no spelling for the generic space: `.ptr .align 8` without a space means generic.
    return "";
  }
  return "";
}

/// Size of the scalar types nearly every parameter and variable uses (.b8/.u8/.s8, and .b/.u/.s/.f with
/// 16, 32 or 64 bits), read from the spelling without string comparisons; 0 for any other type, which
/// typeSizeBytes then sizes by the general rule. (The assembler and the ABI checks ask for every
/// parameter.)
static unsigned commonScalarTypeSize(llvm::StringRef T) {
  if (T.size() < 3 || T.size() > 4 || T[0] != '.')
    return 0;
  char K = T[1];
  if (T.size() == 3)
    return T[2] == '8' && (K == 'b' || K == 'u' || K == 's') ? 1 : 0;
  if (K != 'b' && K != 'u' && K != 's' && K != 'f')
    return 0;
  if (T[2] == '1' && T[3] == '6')
    return 2;
  if (T[2] == '3' && T[3] == '2')
    return 4;
  if (T[2] == '6' && T[3] == '4')
    return 8;
  return 0;
}

unsigned typeSizeBytes(llvm::StringRef Type) {
  if (unsigned Common = commonScalarTypeSize(Type))
    return Common;
  return ptxTypeBytes(ptxTypeId(Type)); // 0 for the opaque types and for any spelling that is no type
}

uint8_t ptxTypeId(llvm::StringRef Type) {
  // A walk (a reader looks each string up once per string-table place, ElfReader.cpp), comparing the size
  // and the letter after the dot before the bytes: most spellings differ there, and a memcmp call per
  // entry cost the 100-module link 1% of its instructions.
  if (Type.size() < 2)
    return 0;
  for (size_t I = 1; I < std::size(PtxTypeNames); ++I) {
    const PtxTypeSpelling &S = PtxTypeNames[I];
    if (S.Size == Type.size() && S.Text[1] == Type[1] && S.str() == Type)
      return static_cast<uint8_t>(I);
  }
  return 0;
}

void DimList::push_back(uint64_t Dim) {
  if (!isBlock()) { // none, or one held in the word
    if (empty()) {
      assign(llvm::ArrayRef<uint64_t>(Dim));
    } else {
      const uint64_t Both[2] = {(*this)[0], Dim};
      assign(Both);
    }
    return;
  }
  const size_t N = size();
  if (N == capacityFor(N)) { // full: a block with the room assign would give N + 1
    uint64_t *Grown = new uint64_t[1 + capacityFor(N + 1)];
    std::copy(block(), block() + 1 + N, Grown);
    freeBlock();
    Word = reinterpret_cast<uintptr_t>(Grown);
  }
  uint64_t *Block = reinterpret_cast<uint64_t *>(Word);
  Block[1 + N] = Dim;
  Block[0] = N + 1;
}

void DimList::assign(llvm::ArrayRef<uint64_t> Dims) {
  freeBlock();
  if (Dims.empty())
    return;
  if (Dims.size() == 1 && Dims[0] < (uint64_t(1) << 63)) {
    Word = uintptr_t(Dims[0] << 1 | 1);
    return;
  }
  auto *Block = new uint64_t[1 + capacityFor(Dims.size())];
  Block[0] = Dims.size();
  std::copy(Dims.begin(), Dims.end(), Block + 1);
  Word = reinterpret_cast<uintptr_t>(Block);
}

uint64_t ParamInfo::sizeBytes() const {
  if (UnsizedArray)
    return 0;
  uint64_t Size = typeBytes();
  Size *= VectorWidth ? VectorWidth : 1;
  for (uint64_t Dim : ArrayDims)
    Size *= Dim;
  return Size;
}

uint32_t ParamInfo::effectiveAlign() const {
  if (Align)
    return Align;
  uint32_t Element = typeBytes() * (VectorWidth ? VectorWidth : 1);
  return Element ? Element : 1;
}

uint64_t ModuleVariant::plainLabelNameHash(llvm::StringRef Name) { return XXH3_64bits(Name.data(), Name.size()); }

uint32_t ModuleVariant::findAlias(uint32_t Index) const {
  // A copied symbol keeps its hint (Symbol::MaybeAlias) in a variant that may have no alias at all.
  const RareTables *R = Rare.get();
  if (!R)
    return NoSymbol;
  auto It = R->Aliases.find(Index);
  return It == R->Aliases.end() ? NoSymbol : It->second;
}

void ModuleVariant::setAliasOf(uint32_t Index, uint32_t Target) {
  assert(Index < Symbols.size() && "an alias is one of the variant's symbols");
  Symbols[Index].MaybeAlias = Target != NoSymbol;
  if (Target == NoSymbol) {
    if (Rare.get())
      rare().Aliases.erase(Index);
  } else {
    rare().Aliases[Index] = Target;
  }
}

uint32_t ModuleVariant::findSymbol(llvm::StringRef Name) const {
  for (size_t I = 0, E = Symbols.size(); I != E; ++I)
    if (Symbols[I].name() == Name)
      return static_cast<uint32_t>(I);
  return NoSymbol;
}

FunctionAbi &ModuleVariant::copyFunction(const ModuleVariant &From, const FunctionAbi &F, uint32_t Sym) {
  FunctionAbi N;
  N.Symbol = Sym;
  N.IsKernel = F.IsKernel;
  N.HasBody = F.HasBody;
  N.NoReturn = F.NoReturn;
  const Loc Where = From.functionWhere(F);
  if (&From == this) {
    // The lists would be read from the table they are appended to.
    llvm::SmallVector<ParamInfo, 0> Returns(returns(F)), Ps(params(F));
    appendSignature(N, Returns, Ps);
  } else {
    appendSignature(N, From.returns(F), From.params(F));
  }
  if (const TuningInfo &T = From.tuning(F); !T.empty()) {
    TuningInfo Copy = T; // before editTuning, which may move the table T is in when From is this variant
    editTuning(N) = std::move(Copy);
  }
  Functions.push_back(N);
  setFunctionWhere(Functions.back(), Where);
  return Functions.back();
}

} // namespace ptxlink
