// Small queries on the object model (ObjectModel.h) that every component needs the same answer to: the
// spelling of a state space, the storage size of a PTX type, the size and ABI alignment of a parameter.
// Keeping them in one place means the assembler's layout, the linker's ABI check and the printer agree.

#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"

#include <array>
#include <cstring>
#include <iterator>
#include <string_view>

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

/// Bits one element of a PTX scalar type occupies, from its spelling without the dot and without a packing
/// suffix ("b32", "e4m3"); 0 for a name that is no sized scalar type.
static unsigned elementBits(llvm::StringRef Element) {
  return llvm::StringSwitch<unsigned>(Element)
      .Cases("b8", "u8", "s8", 8)
      .Cases("b16", "u16", "s16", "f16", "bf16", 16)
      .Cases("b32", "u32", "s32", "f32", "tf32", 32)
      .Cases("b64", "u64", "s64", "f64", 64)
      .Case("b128", 128)
      // The narrow floats of the tensor instructions. .e2m3/.e3m2 hold 6 bits in a byte (two zero bits
      // on top), .e2m1 is the only one that packs two values into a byte.
      .Cases("e4m3", "e5m2", "ue8m0", "ue4m3", 8)
      .Cases("e2m3", "e3m2", 8)
      .Case("e2m1", 4)
      .Default(0);
}

unsigned typeSizeBytes(llvm::StringRef Type) {
  if (unsigned Common = commonScalarTypeSize(Type))
    return Common;
  // A predicate lives only in registers and has no memory form; where a size is asked of one anyway (a
  // `.reg .pred` parameter, a stray `.global .pred`) it counts as one byte, as LLVM stores an i1 as i8.
  if (Type == ".pred")
    return 1;
  if (!Type.consume_front("."))
    return 0;
  // An element type, then an optional packing factor: .f16x2, .u16x2, .f32x2, .e4m3x4, .e2m1x2. No
  // element name contains an 'x'.
  auto [Element, PackText] = Type.split('x');
  unsigned Pack = 1;
  if (Element.size() != Type.size()) {
    if (PackText != "2" && PackText != "4") // spelled as PTX spells them: not "x02" (PtxTypeNames)
      return 0;
    Pack = unsigned(PackText[0] - '0');
  }
  unsigned Bits = elementBits(Element);
  return (Bits * Pack + 7) / 8; // 0 for opaque (.texref, .samplerref, .surfref) and unknown types
}

namespace {

/// A spelling's first eight bytes as one word (the first byte lowest, zeros beyond its end), with its size:
/// every spelling but ".samplerref" fits in eight bytes, and the readers look one up per parameter, so the
/// lookup compares words.
struct TypeKey {
  uint64_t Word = 0;
  size_t Size = 0;
  constexpr bool operator==(const TypeKey &) const = default;
};
constexpr size_t LongestTypeName = 11; // ".samplerref"
constexpr TypeKey typeKey(std::string_view S) {
  TypeKey Key{0, S.size()};
  for (size_t I = 0; I < S.size() && I < 8; ++I)
    Key.Word |= uint64_t(uint8_t(S[I])) << (8 * I);
  return Key;
}
constexpr auto PtxTypeKeys = [] {
  std::array<TypeKey, std::size(PtxTypeNames)> Keys{};
  for (size_t I = 0; I < Keys.size(); ++I)
    Keys[I] = typeKey(std::string_view(PtxTypeNames[I].data(), PtxTypeNames[I].size()));
  return Keys;
}();
} // namespace

uint8_t ptxTypeId(llvm::StringRef Type) {
  if (Type.empty() || Type.size() > LongestTypeName)
    return 0;
  // typeKey's word, from at most two loads rather than a loop over the bytes.
  TypeKey Key{0, Type.size()};
  if (Type.size() >= 8) {
    std::memcpy(&Key.Word, Type.data(), 8);
    Key.Word = llvm::support::endian::byte_swap(Key.Word, llvm::endianness::little);
  } else {
    uint32_t Low = 0, High = 0; // bytes 0-3 and 4-7 (the two may overlap; High's are shifted into place)
    if (Type.size() >= 4) {
      std::memcpy(&Low, Type.data(), 4);
      if (Type.size() > 4) {
        std::memcpy(&High, Type.data() + Type.size() - 4, 4);
        High = llvm::support::endian::byte_swap(High, llvm::endianness::little) >> (8 * (8 - Type.size()));
      }
      Low = llvm::support::endian::byte_swap(Low, llvm::endianness::little);
    } else {
      for (size_t I = 0; I < Type.size(); ++I)
        Low |= uint32_t(uint8_t(Type[I])) << (8 * I);
    }
    Key.Word = uint64_t(Low) | (uint64_t(High) << 32);
  }
  for (size_t I = 1; I < PtxTypeKeys.size(); ++I)
    if (PtxTypeKeys[I] == Key)
      // Beyond eight bytes the word holds only a prefix: compare the whole spelling.
      return Type.size() <= 8 || Type == PtxTypeNames[I] ? static_cast<uint8_t>(I) : 0;
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
  uint64_t Size = typeSizeBytes(type());
  Size *= VectorWidth ? VectorWidth : 1;
  for (uint64_t Dim : ArrayDims)
    Size *= Dim;
  return Size;
}

uint32_t ParamInfo::effectiveAlign() const {
  if (Align)
    return Align;
  uint32_t Element = typeSizeBytes(type()) * (VectorWidth ? VectorWidth : 1);
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
