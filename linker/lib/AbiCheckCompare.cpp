// The comparison at the heart of every ABI check: two structured signatures in, a list of differences
// out, each with a severity and a stable code (docs/abi-checks.md has the table).
//
// The problem: a difference matters only if it changes how a call passes its arguments or how memory is
// laid out. So the rules below order the facts from "breaks the calling convention" (counts, sizes,
// alignment, shapes) down to "same bits, other reading" (int vs float: a warning; signed vs unsigned: a
// note; .b32 vs .u32 or a parameter's name: nothing). Once a parameter's size differs, the lesser facts
// about it (alignment follows size) are not repeated. The same function serves the link-time checks and
// `ptxlink-dump --abi-diff`, so both judge a change alike.

#include "ptxlink/AbiCheck.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ptxlink {

namespace {

/// What a PTX type's bits mean, as far as an ABI check can tell.
enum class TypeClass { Bits, Unsigned, Signed, Float, Pred, Opaque, Unknown };

TypeClass classify(StringRef Type) {
  if (Type == ".pred")
    return TypeClass::Pred;
  if (Type == ".texref" || Type == ".samplerref" || Type == ".surfref")
    return TypeClass::Opaque;
  if (Type.starts_with(".b"))
    return Type.starts_with(".bf") ? TypeClass::Float : TypeClass::Bits;
  if (Type.starts_with(".u"))
    return Type.starts_with(".ue") ? TypeClass::Float : TypeClass::Unsigned;
  if (Type.starts_with(".s"))
    return TypeClass::Signed;
  if (Type.starts_with(".f") || Type.starts_with(".tf") || Type.starts_with(".e"))
    return TypeClass::Float;
  return TypeClass::Unknown;
}

bool isInteger(TypeClass C) {
  return C == TypeClass::Bits || C == TypeClass::Unsigned || C == TypeClass::Signed;
}

/// How two same-sized element types differ: nothing (.b32/.u32), signedness (.u32/.s32), or meaning.
enum class TypeDiff { None, Signedness, Meaning };

TypeDiff compareTypes(StringRef A, StringRef B) {
  if (A == B)
    return TypeDiff::None;
  TypeClass CA = classify(A), CB = classify(B);
  if (isInteger(CA) && isInteger(CB))
    return (CA == TypeClass::Bits || CB == TypeClass::Bits) ? TypeDiff::None : TypeDiff::Signedness;
  return TypeDiff::Meaning;
}

/// ".v2 .f32[4]" style: the element, vector width and dimensions, no names.
std::string shapeText(StringRef Type, uint8_t Vector, const DimList &Dims, bool Unsized) {
  std::string Out;
  raw_string_ostream OS(Out);
  if (Vector)
    OS << ".v" << unsigned(Vector) << " ";
  OS << Type;
  for (uint64_t Dim : Dims) {
    if (Dim == 0 && Unsized)
      continue;
    OS << "[" << Dim << "]";
  }
  if (Unsized)
    OS << "[]";
  return Out;
}

std::string paramText(const ParamInfo &P, bool WithSpace) {
  std::string Out = WithSpace ? (stateSpaceName(P.Space).str() + " ") : std::string();
  Out += shapeText(P.type(), P.VectorWidth, P.ArrayDims, P.UnsizedArray);
  if (!P.UnsizedArray) {
    uint64_t Size = P.sizeBytes();
    Out += " (" + std::to_string(Size) + (Size == 1 ? " byte)" : " bytes)");
  }
  return Out;
}

std::string both(StringRef What, StringRef InA, StringRef NameA, StringRef InB, StringRef NameB) {
  return (What + ": " + InA + " in " + NameA + ", " + InB + " in " + NameB).str();
}

class Comparer {
public:
  Comparer(StringRef NameA, StringRef NameB) : NameA(NameA), NameB(NameB) {}

  void add(Severity Level, StringRef Code, std::string Detail) {
    Findings.push_back(AbiFinding{Level, Code.str(), std::move(Detail)});
  }

  // Label is spelled out only when something differs (this runs for every parameter of every pair).
  void param(llvm::function_ref<std::string()> Label, const ParamInfo &A, const ParamInfo &B) {
    bool SpaceDiffers = A.Space != B.Space;
    if (SpaceDiffers)
      // The seed (7.1): the choice of .reg or .param "has no impact on whether the parameter is
      // ultimately passed in physical registers or on the stack": same convention, so only a note.
      add(Severity::Note, "abi-param-space",
          both(Label(), stateSpaceName(A.Space), NameA, stateSpaceName(B.Space), NameB));
    if (A.UnsizedArray != B.UnsizedArray) {
      add(Severity::Error, "abi-param-unsized",
          both(Label(), paramText(A, SpaceDiffers), NameA, paramText(B, SpaceDiffers), NameB));
      return;
    }
    // Nearly every pair is spelled alike: then size, alignment, shape and type agree without being worked
    // out (sizeBytes and effectiveAlign parse the type's spelling; a 100-module link compares 10,000 pairs).
    const bool SameSpelling = A.sameType(B) && A.VectorWidth == B.VectorWidth && A.Align == B.Align &&
                              A.ArrayDims == B.ArrayDims;
    if (!SameSpelling && !layoutAgrees(Label, A, B, SpaceDiffers))
      return;
    if (A.IsPtr != B.IsPtr || A.PtrSpace != B.PtrSpace || A.PtrAlign != B.PtrAlign)
      add(Severity::Note, "abi-param-ptr", both(Label(), ptrText(A), NameA, ptrText(B), NameB));
  }

  /// param()'s checks of two parameters spelled differently: false after an error that makes the rest moot.
  bool layoutAgrees(llvm::function_ref<std::string()> Label, const ParamInfo &A, const ParamInfo &B,
                    bool SpaceDiffers) {
    if (A.sizeBytes() != B.sizeBytes()) {
      add(Severity::Error, "abi-param-size",
          both(Label(), paramText(A, SpaceDiffers), NameA, paramText(B, SpaceDiffers), NameB));
      return false;
    }
    if (A.effectiveAlign() != B.effectiveAlign() && InReturns && A.sizeBytes() == B.sizeBytes()) {
      // A return value travels in registers: its declared alignment says only how the callee's body may
      // access it, and compilers differ there for one C++ type (clang's .align 8 for a returned
      // __align__(16) struct or double4, nvcc's .align 16). nvlink links such modules; so does the link,
      // writing the callee's alignment at the calls (LinkCallSites.cpp).
      add(Severity::Warning, "abi-return-align",
          both(Label(), ".align " + std::to_string(A.effectiveAlign()) + " " + paramText(A, false), NameA,
               ".align " + std::to_string(B.effectiveAlign()) + " " + paramText(B, false), NameB) +
              " (the same bytes, returned in registers: linked, each call given the definition's alignment; "
              "clang and nvcc write a returned 16-byte-aligned type this way)");
    } else if (A.effectiveAlign() != B.effectiveAlign()) {
      add(Severity::Error, "abi-param-align",
          both(Label(), ".align " + std::to_string(A.effectiveAlign()) + " " + paramText(A, false), NameA,
               ".align " + std::to_string(B.effectiveAlign()) + " " + paramText(B, false), NameB));
      return false;
    }
    bool ShapeDiffers = A.VectorWidth != B.VectorWidth || A.ArrayDims != B.ArrayDims;
    if (ShapeDiffers) {
      bool BothArrays = !A.ArrayDims.empty() && !B.ArrayDims.empty() && !A.VectorWidth && !B.VectorWidth;
      // Two .param arrays with the same size and alignment occupy the same bytes; their element type is
      // only how the body reads them, so that is a warning. Scalar vs array vs vector is a different
      // way of passing the value: an error.
      add(BothArrays ? Severity::Warning : Severity::Error, BothArrays ? "abi-param-element" : "abi-param-shape",
          both(Label(), paramText(A, false), NameA, paramText(B, false), NameB));
      return false;
    }
    switch (compareTypes(A.type(), B.type())) {
    case TypeDiff::None:
      break;
    case TypeDiff::Signedness:
      add(Severity::Note, "abi-param-signedness", both(Label(), A.type(), NameA, B.type(), NameB));
      break;
    case TypeDiff::Meaning: {
      bool Opaque = classify(A.type()) == TypeClass::Opaque || classify(B.type()) == TypeClass::Opaque;
      add(Opaque ? Severity::Error : Severity::Warning, "abi-param-type",
          both(Label(), paramText(A, false), NameA, paramText(B, false), NameB));
      break;
    }
    }
    return true;
  }

  static std::string ptrText(const ParamInfo &P) {
    if (!P.IsPtr)
      return "no .ptr";
    std::string Out;
    raw_string_ostream OS(Out);
    OS << ".ptr";
    if (P.PtrSpace != StateSpace::None && P.PtrSpace != StateSpace::Generic)
      OS << " " << stateSpaceName(P.PtrSpace);
    if (P.PtrAlign)
      OS << " .align " << P.PtrAlign;
    return Out;
  }

  void count(bool Returns, ArrayRef<ParamInfo> A, ArrayRef<ParamInfo> B) {
    if (A.size() != B.size())
      add(Severity::Error, Returns ? "abi-return-count" : "abi-param-count",
          both(Returns ? "return values" : "params", std::to_string(A.size()), NameA, std::to_string(B.size()),
               NameB));
  }

  /// Whether A and B are declared alike in everything param() compares (nearly every pair): then it
  /// would find nothing.
  static bool declaredAlike(const ParamInfo &A, const ParamInfo &B) {
    return A.Space == B.Space && A.VectorWidth == B.VectorWidth && A.UnsizedArray == B.UnsizedArray &&
           A.IsPtr == B.IsPtr && A.PtrSpace == B.PtrSpace && A.Align == B.Align && A.PtrAlign == B.PtrAlign &&
           A.sameType(B) && A.ArrayDims == B.ArrayDims;
  }

  void params(bool Returns, ArrayRef<ParamInfo> A, ArrayRef<ParamInfo> B) {
    size_t N = std::min(A.size(), B.size());
    for (size_t I = 0; I < N; ++I) {
      if (declaredAlike(A[I], B[I]))
        continue;
      auto Label = [&]() -> std::string {
        if (Returns)
          return (A.size() == 1 && B.size() == 1) ? "return value" : "return " + std::to_string(I + 1);
        return "param " + std::to_string(I + 1);
      };
      InReturns = Returns;
      param(Label, A[I], B[I]);
    }
    InReturns = false;
  }

  void tail(bool NoReturnA, bool NoReturnB, const std::optional<uint32_t> &PreserveA,
            const std::optional<uint32_t> &PreserveB, const std::optional<uint32_t> &ControlA,
            const std::optional<uint32_t> &ControlB) {
    if (NoReturnA != NoReturnB)
      // A caller that believes .noreturn keeps nothing alive after the call; if the callee does return,
      // execution runs into whatever follows. The other way round only wastes the caller's effort.
      add(NoReturnA ? Severity::Error : Severity::Warning, "abi-noreturn",
          both(".noreturn", NoReturnA ? "present" : "absent", NameA, NoReturnB ? "present" : "absent", NameB));
    auto Text = [](const std::optional<uint32_t> &V) { return V ? std::to_string(*V) : std::string("absent"); };
    if (PreserveA != PreserveB)
      add(Severity::Error, "abi-preserve", both(".abi_preserve", Text(PreserveA), NameA, Text(PreserveB), NameB));
    if (ControlA != ControlB)
      add(Severity::Error, "abi-preserve-control",
          both(".abi_preserve_control", Text(ControlA), NameA, Text(ControlB), NameB));
  }

  StringRef NameA, NameB;
  std::vector<AbiFinding> Findings;
  bool InReturns = false; // params() is comparing return values
};

std::string joinAttributes(ArrayRef<StringRef> Attrs) {
  if (Attrs.empty())
    return "none";
  std::string Out;
  for (StringRef A : Attrs) {
    if (!Out.empty())
      Out += ' ';
    Out.append(".attribute(").append(A.data(), A.size()).append(")");
  }
  return Out;
}

} // namespace

std::vector<AbiFinding> compareFunctionAbi(const FunctionSignature &A, const FunctionSignature &B, StringRef NameA,
                                           StringRef NameB, AbiRelation Relation) {
  Comparer C(NameA, NameB);
  if (A.IsKernel != B.IsKernel)
    C.add(Severity::Error, "abi-kind",
          both("kind", A.IsKernel ? ".entry" : ".func", NameA, B.IsKernel ? ".entry" : ".func", NameB));
  C.count(true, A.Returns, B.Returns);
  C.count(false, A.Params, B.Params);
  C.params(true, A.Returns, B.Returns);
  C.params(false, A.Params, B.Params);
  const TuningInfo &TA = *A.Tuning, &TB = *B.Tuning; // the `.abi_preserve` counts
  C.tail(A.NoReturn, B.NoReturn, TA.AbiPreserve, TB.AbiPreserve, TA.AbiPreserveControl, TB.AbiPreserveControl);
  if (TA.Attributes != TB.Attributes)
    C.add(Severity::Warning, "abi-attribute",
          both("attributes", joinAttributes(TA.Attributes), NameA, joinAttributes(TB.Attributes), NameB));
  return std::move(C.Findings);
}

uint64_t variableSizeBytes(const VariableAbi &V) {
  if (V.UnsizedArray)
    return 0;
  uint64_t Size = uint64_t(typeSizeBytes(V.Type)) * (V.VectorWidth ? V.VectorWidth : 1);
  for (uint64_t Dim : V.ArrayDims) {
    if (Dim != 0 && Size > UINT64_MAX / Dim)
      return UINT64_MAX; // absurd but representable: it will differ from any real definition
    Size *= Dim;
  }
  return Size;
}

static uint32_t variableAlign(const VariableAbi &V) {
  if (V.Align)
    return V.Align;
  uint32_t Element = typeSizeBytes(V.Type) * (V.VectorWidth ? V.VectorWidth : 1);
  return Element ? Element : 1;
}

std::vector<AbiFinding> compareVariableAbi(const VariableAbi &A, const VariableAbi &B, StringRef NameA,
                                           StringRef NameB) {
  Comparer C(NameA, NameB);
  auto Layout = [](const VariableAbi &V) {
    std::string Shape = shapeText(V.Type, V.VectorWidth, V.ArrayDims, V.UnsizedArray);
    if (V.UnsizedArray)
      return Shape + " (size not given)";
    uint64_t Size = variableSizeBytes(V);
    return Shape + " (" + std::to_string(Size) + (Size == 1 ? " byte)" : " bytes)");
  };
  if (A.Space != B.Space)
    C.add(Severity::Error, "abi-var-space",
          both("state space", stateSpaceName(A.Space), NameA, stateSpaceName(B.Space), NameB));
  // An unsized `extern T x[];` promises nothing about the size, so only the element is compared.
  bool SizesKnown = !A.UnsizedArray && !B.UnsizedArray;
  if (SizesKnown && variableSizeBytes(A) != variableSizeBytes(B)) {
    C.add(Severity::Error, "abi-var-size", both("size", Layout(A), NameA, Layout(B), NameB));
  } else {
    uint32_t ElemA = typeSizeBytes(A.Type) * (A.VectorWidth ? A.VectorWidth : 1);
    uint32_t ElemB = typeSizeBytes(B.Type) * (B.VectorWidth ? B.VectorWidth : 1);
    // `.b8 x[N]` is a byte view with no element type: nvcc declares every aggregate that way, and defines
    // the same object as `.u64 x[N/8]` once its initializer holds addresses (a struct array with function
    // pointers). Same bytes seen as bytes is no disagreement; only typed elements of other sizes are.
    auto IsByteView = [](const VariableAbi &V) { return V.Type == ".b8" && !V.VectorWidth; };
    if (IsByteView(A) || IsByteView(B)) {
      // nothing: the size (above) and the alignment (below) are what a byte view promises
    } else if (ElemA != ElemB || A.VectorWidth != B.VectorWidth) {
      // Same bytes (or a size nobody promised), other element: `.b8 x[16]` vs `.b32 x[4]`.
      C.add(Severity::Warning, "abi-var-element", both("element", Layout(A), NameA, Layout(B), NameB));
    } else {
      switch (compareTypes(A.Type, B.Type)) {
      case TypeDiff::None:
        break;
      case TypeDiff::Signedness:
        C.add(Severity::Note, "abi-var-signedness", both("element type", A.Type, NameA, B.Type, NameB));
        break;
      case TypeDiff::Meaning: {
        bool Opaque = classify(A.Type) == TypeClass::Opaque || classify(B.Type) == TypeClass::Opaque;
        C.add(Opaque ? Severity::Error : Severity::Warning, "abi-var-type",
              both("element type", A.Type, NameA, B.Type, NameB));
        break;
      }
      }
    }
  }
  // Code compiled against the stricter alignment may use wider accesses than the other placement allows;
  // only a stricter A (the user's view) than B (the storage) is a problem.
  if (variableAlign(A) > variableAlign(B))
    C.add(Severity::Error, "abi-var-align",
          both("alignment", std::to_string(variableAlign(A)), NameA, std::to_string(variableAlign(B)), NameB));
  if (A.Attributes != B.Attributes)
    C.add(Severity::Error, "abi-var-attribute",
          both("attributes", joinAttributes(A.Attributes), NameA, joinAttributes(B.Attributes), NameB));
  return std::move(C.Findings);
}

} // namespace ptxlink
