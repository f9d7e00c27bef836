// Small queries on the object model (ObjectModel.h) that every component needs the same answer to: the
// spelling of a state space, the storage size of a PTX type, the size and ABI alignment of a parameter.
// Keeping them in one place means the assembler's layout, the linker's ABI check and the printer agree.

#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/StringSwitch.h"

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

unsigned typeSizeBytes(llvm::StringRef Type) {
  if (unsigned Common = commonScalarTypeSize(Type))
    return Common;
  return llvm::StringSwitch<unsigned>(Type)
      .Cases(".b8", ".u8", ".s8", 1)
      .Cases(".e2m1x2", ".e2m3x2", ".e3m2x2", 1) // packed pairs of narrow floats: one byte per pair
      .Case(".pred", 1)                           // only in registers; counted as one byte
      .Cases(".b16", ".u16", ".s16", ".f16", ".bf16", 2)
      .Cases(".e4m3x2", ".e5m2x2", ".ue8m0x2", 2)
      .Cases(".b32", ".u32", ".s32", ".f32", ".f16x2", ".bf16x2", ".tf32", 4)
      .Cases(".b64", ".u64", ".s64", ".f64", 8)
      .Case(".b128", 16)
      .Default(0); // opaque (.texref, .samplerref, .surfref) or unknown
}

uint64_t ParamInfo::sizeBytes() const {
  if (UnsizedArray)
    return 0;
  uint64_t Size = typeSizeBytes(Type);
  Size *= VectorWidth ? VectorWidth : 1;
  for (uint64_t Dim : ArrayDims)
    Size *= Dim;
  return Size;
}

uint32_t ParamInfo::effectiveAlign() const {
  if (Align)
    return Align;
  uint32_t Element = typeSizeBytes(Type) * (VectorWidth ? VectorWidth : 1);
  return Element ? Element : 1;
}

uint32_t ModuleVariant::findSymbol(llvm::StringRef Name) const {
  for (size_t I = 0, E = Symbols.size(); I != E; ++I)
    if (Symbols[I].Name == Name)
      return static_cast<uint32_t>(I);
  return NoSymbol;
}

bool isCallee(llvm::StringRef Text, uint64_t Offset) {
  size_t Begin = Text.substr(0, Offset).find_last_of(";{}:");
  llvm::StringRef Stmt = Text.slice(Begin == llvm::StringRef::npos ? 0 : Begin + 1, Offset).ltrim();
  if (Stmt.starts_with("@")) {
    size_t Space = Stmt.find_first_of(" \t\r\n");
    Stmt = Space == llvm::StringRef::npos ? llvm::StringRef() : Stmt.substr(Space).ltrim();
  }
  return Stmt.starts_with("call");
}

} // namespace ptxlink
