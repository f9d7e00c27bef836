// ptxlink-dump on our own objects and on PTX text (assembled in memory into the same object model):
// module headers, symbols, the text relocations, the ABI of every function and kernel (with the
// parameter buffer a launcher must pack), the call graph and the debug sections.
#include "DumpInternal.h"

#include "ptxlink/Assembler.h"
#include "ptxlink/Cubin.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

using namespace llvm;

namespace ptxlink::dump {
namespace {

const char *bindingName(Binding B) {
  switch (B) {
  case Binding::Local: return "local";
  case Binding::Global: return "global";
  case Binding::Weak: return "weak";
  case Binding::Common: return "common";
  case Binding::Undefined: return "undefined";
  }
  return "?";
}

const char *kindName(SymbolKind K) {
  switch (K) {
  case SymbolKind::Function: return "function";
  case SymbolKind::Kernel: return "kernel";
  case SymbolKind::Variable: return "variable";
  case SymbolKind::Label: return "label";
  case SymbolKind::Section: return "section";
  }
  return "?";
}

const char *relocKindName(RelocKind K) {
  switch (K) {
  case RelocKind::NameRef: return "name";
  case RelocKind::FileIndex: return "file-index";
  case RelocKind::Data32: return "data32";
  case RelocKind::Data64: return "data64";
  case RelocKind::SectionOffset: return "section-offset";
  }
  return "?";
}

json::Object paramJson(const ParamInfo &P) {
  json::Object J{{"name", P.name().str()},
                 {"space", stateSpaceName(P.Space).str()},
                 {"type", P.type().str()},
                 {"size", P.sizeBytes()},
                 {"align", P.effectiveAlign()},
                 {"declaration", formatParamPtx(P)}};
  if (P.VectorWidth)
    J["vector"] = P.VectorWidth;
  if (!P.ArrayDims.empty()) {
    json::Array D;
    for (uint64_t X : P.ArrayDims)
      D.push_back(X);
    J["dims"] = std::move(D);
  }
  if (P.UnsizedArray)
    J["unsizedArray"] = true;
  if (P.IsPtr)
    J["ptrSpace"] = stateSpaceName(P.PtrSpace).str();
  return J;
}

json::Array paramsJson(llvm::ArrayRef<ParamInfo> List) {
  json::Array A;
  for (const ParamInfo &P : List)
    A.push_back(paramJson(P));
  return A;
}

std::string prototype(const ModuleVariant &V, const FunctionAbi &F) {
  const Symbol &S = V.Symbols[F.Symbol];
  std::string Out;
  raw_string_ostream OS(Out);
  printFunctionDeclPtx(OS, V.signature(F), S.name(), linkageDirective(S.Bind));
  return Out;
}

// The kernel parameter buffer a launcher packs: each parameter at the next multiple of its alignment.
json::Object kernelLayout(const ModuleVariant &V, const FunctionAbi &F) {
  json::Array Params;
  uint64_t Offset = 0;
  uint32_t MaxAlign = 1;
  for (const ParamInfo &P : V.params(F)) {
    uint32_t A = std::max<uint32_t>(1, P.effectiveAlign());
    Offset = alignTo(Offset, A);
    Params.push_back(json::Object{{"name", P.name().str()}, {"offset", Offset}, {"size", P.sizeBytes()}, {"align", A}});
    Offset += P.sizeBytes();
    MaxAlign = std::max(MaxAlign, A);
  }
  const TargetInfo &T = V.Target;
  uint32_t Sm = Target::parse(T.Arch).value_or(Target{}).Sm;
  bool NewLimit = (T.VersionMajor > 8 || (T.VersionMajor == 8 && T.VersionMinor >= 1)) && Sm >= 70;
  uint32_t Limit = NewLimit ? 32764 : 4096;
  std::string Why = NewLimit ? "PTX ISA 8.1+ on sm_70+: 32764 bytes"
                             : "PTX ISA before 8.1 or a target below sm_70: the CUDA driver's 4096 bytes";
  return json::Object{{"params", std::move(Params)}, {"totalSize", Offset},   {"maxAlign", MaxAlign},
                      {"limit", Limit},              {"limitRule", Why},      {"fits", Offset <= Limit}};
}

} // namespace

namespace {

std::string symbolName(const ModuleVariant &V, uint32_t I) {
  return I < V.Symbols.size() ? V.Symbols[I].name().str() : formatv("<symbol {0}>", I).str();
}

std::string sectionName(const ModuleVariant &V, uint32_t I) { return I < V.Sections.size() ? V.sectionName(I).str() : ""; }

// One record per symbol, relocation, function, prototype, variable or call edge, made when the output
// reaches it: these views grow with the object (10^5 functions took 1 GB as JSON arrays).
void symbolRecords(const ObjectFile &Object, Node::Emit Emit) {
  for (size_t VI = 0; VI < Object.Variants.size(); ++VI) {
    const ModuleVariant &V = Object.Variants[VI];
    for (size_t I = 0; I < V.Symbols.size(); ++I) {
      const Symbol &S = V.Symbols[I];
      Node Record;
      json::Object &J = Record.Fields;
      J = json::Object{{"variant", int64_t(VI)},
                       {"index", int64_t(I)},
                       {"name", S.name().str()},
                       {"binding", bindingName(S.Bind)},
                       {"kind", kindName(S.Kind)},
                       {"space", stateSpaceName(S.Space).str()},
                       {"size", S.size()},
                       {"section", S.Section == NoSection ? "UND" : sectionName(V, S.Section)}};
      if (S.align())
        J["align"] = S.align();
      if (S.Initialized)
        J["initialized"] = true;
      if (const uint32_t Aliasee = V.aliasOf(static_cast<uint32_t>(I)); Aliasee != NoSymbol)
        J["aliasOf"] = symbolName(V, Aliasee);
      if (std::string D = demangled(S.name()); !D.empty())
        J["demangled"] = D;
      // A weak definition's ODR hash, recorded at assembly (the resolver compares these).
      if (S.Section != NoSection && S.Section < V.Sections.size() && V.Sections[S.Section].Symbol == I)
        if (std::optional<uint64_t> H = V.odrHashOf(S.Section))
          J["odrHash"] = hex(*H);
      Emit(Record);
    }
  }
}

void relocRecords(const ObjectFile &Object, Node::Emit Emit) {
  for (size_t VI = 0; VI < Object.Variants.size(); ++VI) {
    const ModuleVariant &V = Object.Variants[VI];
    for (const Section &S : V.Sections)
      for (const Relocation &R : V.relocs(S)) {
        Node Record;
        json::Object &J = Record.Fields;
        J = json::Object{{"variant", int64_t(VI)}, {"section", V.sectionName(S).str()},       {"offset", hex(R.Offset)},
                         {"type", relocKindName(R.Kind)}, {"symbol", symbolName(V, R.Symbol)}};
        if (R.Kind == RelocKind::NameRef || R.Kind == RelocKind::FileIndex || R.Kind == RelocKind::SectionOffset)
          J["length"] = R.Length;
        if (R.Kind != RelocKind::NameRef && R.Kind != RelocKind::FileIndex)
          J["addend"] = R.Addend;
        if (R.Kind == RelocKind::FileIndex)
          J["symbol"] = int64_t(R.Symbol); // the .file index as written
        // The facts the assembler recorded about the name: the callee of a `call`, or an entry of a
        // `.calltargets` list (R_PTXLINK_CALL, R_PTXLINK_CALL_TARGET).
        if (R.isCall())
          J["call"] = true;
        if (R.isCallTarget())
          J["callTarget"] = true;
        Emit(Record);
      }
  }
}

// The labels each function defines besides its debug labels (ModuleVariant::PlainLabel, recorded at
// assembly: `.ptxlink.labels` in an object).
void labelRecords(const ObjectFile &Object, Node::Emit Emit) {
  for (size_t VI = 0; VI < Object.Variants.size(); ++VI) {
    const ModuleVariant &V = Object.Variants[VI];
    for (const ModuleVariant::PlainLabel &L : V.plainLabels()) {
      Node Record;
      Record.Fields = json::Object{{"variant", int64_t(VI)},
                                   {"section", sectionName(V, L.Section)},
                                   {"offset", hex(L.Offset)},
                                   {"name", V.plainLabelName(L).str()}};
      Emit(Record);
    }
  }
}

void functionRecords(const ObjectFile &Object, Node::Emit Emit) {
  for (size_t VI = 0; VI < Object.Variants.size(); ++VI) {
    const ModuleVariant &V = Object.Variants[VI];
    for (const FunctionAbi &F : V.Functions) {
      if (F.Symbol >= V.Symbols.size())
        continue;
      const Symbol &S = V.Symbols[F.Symbol];
      Node Record;
      json::Object &J = Record.Fields;
      J = json::Object{{"variant", int64_t(VI)},
                       {"name", S.name().str()},
                       {"kind", F.IsKernel ? "kernel" : "function"},
                       {"binding", bindingName(S.Bind)},
                       {"defined", F.HasBody},
                       {"prototype", prototype(V, F)},
                       {"returns", paramsJson(V.returns(F))},
                       {"params", paramsJson(V.params(F))}};
      if (std::string D = demangled(S.name()); !D.empty())
        J["demangled"] = D;
      if (F.NoReturn)
        J["noreturn"] = true;
      const TuningInfo &T = V.tuning(F);
      if (T.AbiPreserve)
        J["abiPreserve"] = *T.AbiPreserve;
      if (T.AbiPreserveControl)
        J["abiPreserveControl"] = *T.AbiPreserveControl;
      if (const Loc Where = V.functionWhere(F); Where.isValid())
        J["line"] = Where.Line;
      if (F.IsKernel)
        J["layout"] = kernelLayout(V, F);
      Emit(Record);
    }
  }
}

void prototypeRecords(const ObjectFile &Object, Node::Emit Emit) {
  for (size_t VI = 0; VI < Object.Variants.size(); ++VI) {
    const ModuleVariant &V = Object.Variants[VI];
    for (const PrototypeAbi &P : V.prototypes()) {
      json::Array Targets;
      for (uint32_t T : P.CallTargets)
        Targets.push_back(symbolName(V, T));
      Node Record;
      Record.Fields = json::Object{{"variant", int64_t(VI)}, {"label", P.Label.str()},
                                   {"function", symbolName(V, P.Function)}, {"returns", paramsJson(P.Returns)},
                                   {"params", paramsJson(P.Params)}, {"callTargets", std::move(Targets)}};
      Emit(Record);
    }
  }
}

void variableRecords(const ObjectFile &Object, Node::Emit Emit) {
  for (size_t VI = 0; VI < Object.Variants.size(); ++VI) {
    const ModuleVariant &V = Object.Variants[VI];
    for (const VariableAbi &Var : V.Variables) {
      if (Var.Symbol >= V.Symbols.size())
        continue;
      const Symbol &S = V.Symbols[Var.Symbol];
      Node Record;
      Record.Fields = json::Object{{"variant", int64_t(VI)}, {"name", S.name().str()},
                                   {"space", stateSpaceName(Var.Space).str()}, {"type", Var.Type.str()},
                                   {"size", S.size()}, {"align", S.align()}, {"binding", bindingName(S.Bind)}};
      Emit(Record);
    }
  }
}

void callEdgeRecords(const ObjectFile &Object, Node::Emit Emit) {
  for (size_t VI = 0; VI < Object.Variants.size(); ++VI) {
    const ModuleVariant &V = Object.Variants[VI];
    std::set<std::pair<std::string, std::string>> Seen;
    for (const Section &S : V.Sections) {
      if ((S.Kind != SectionKind::Function && S.Kind != SectionKind::Variable) || S.Symbol >= V.Symbols.size())
        continue;
      for (const Relocation &R : V.relocs(S)) {
        if (R.Kind != RelocKind::NameRef || R.Symbol >= V.Symbols.size() || R.Symbol == S.Symbol)
          continue;
        const Symbol &T = V.Symbols[R.Symbol];
        if (T.Kind != SymbolKind::Function && T.Kind != SymbolKind::Kernel)
          continue;
        std::string From = V.Symbols[S.Symbol].name().str(), To = T.name().str();
        if (!Seen.insert({From, To}).second)
          continue;
        StringRef Kind = S.Kind == SectionKind::Variable ? "initializer"
                         : R.isCall()                        ? "call"
                                                            : "reference";
        Node Record;
        Record.Fields = json::Object{{"variant", int64_t(VI)}, {"caller", From}, {"callee", To}, {"kind", Kind}};
        Emit(Record);
      }
    }
  }
}

} // namespace

void describeObjectModel(Context &C, const Origin &O, std::shared_ptr<const ObjectFile> Object, Node &N) {
  const Options &Opts = C.Opts;
  json::Object &Fields = N.Fields;
  json::Array Variants, Debug, Ptx;
  for (size_t VI = 0; VI < Object->Variants.size(); ++VI) {
    const ModuleVariant &V = Object->Variants[VI];
    const TargetInfo &T = V.Target;
    if (Opts.Headers) {
      json::Array TOpts;
      for (StringRef X : T.Options)
        TOpts.push_back(X.str());
      Variants.push_back(json::Object{{"variant", int64_t(VI)},
                                      {"source", V.SourceName.str()},
                                      {"target", T.Arch.str()},
                                      {"ptxVersion", formatv("{0}.{1}", T.VersionMajor, T.VersionMinor).str()},
                                      {"addressSize", T.AddressSize},
                                      {"debug", T.Debug},
                                      {"targetOptions", std::move(TOpts)},
                                      {"sections", int64_t(V.Sections.size())},
                                      {"symbols", int64_t(V.Symbols.size())},
                                      {"functions", int64_t(V.Functions.size())}});
    }
    if (Opts.Debug) {
      std::vector<std::pair<std::string, std::string>> DebugSections;
      for (const Section &S : V.Sections)
        if (S.Kind == SectionKind::Debug)
          DebugSections.emplace_back(V.sectionName(S).str(), S.contents().str());
      json::Object D = describeDwarfOfSections(C, O, DebugSections, uint8_t(T.AddressSize / 8));
      json::Array Files;
      for (const FileEntry &F : V.files())
        Files.push_back(json::Object{{"index", F.Index}, {"path", F.Path.str()}});
      D["variant"] = int64_t(VI);
      D["fileTable"] = std::move(Files);
      Debug.push_back(std::move(D));
    }
    if (Opts.Ptx && !Fields.get("ptx")) {
      std::string Text;
      raw_string_ostream OS(Text);
      printModule(V, OS);
      Ptx.push_back(json::Object{{"variant", int64_t(VI)}, {"target", T.Arch.str()}, {"text", Text}});
    }
  }
  // The views that grow with the object are streams over it (the object lives as long as they do).
  auto StreamOf = [&Object](void (*Records)(const ObjectFile &, Node::Emit)) {
    return [Object, Records](Node::Emit Emit) { Records(*Object, Emit); };
  };
  if (Opts.Headers)
    Fields["headers"] = json::Object{{"variants", std::move(Variants)}};
  if (Opts.Symbols)
    N.Streams.emplace_back("symbols", StreamOf(symbolRecords));
  if (Opts.Relocs)
    N.Streams.emplace_back("relocs", StreamOf(relocRecords));
  if (Opts.Abi) {
    Node Abi;
    Abi.Streams.emplace_back("functions", StreamOf(functionRecords));
    Abi.Streams.emplace_back("prototypes", StreamOf(prototypeRecords));
    Abi.Streams.emplace_back("variables", StreamOf(variableRecords));
    N.Objects.emplace_back("abi", std::move(Abi));
  }
  if (Opts.Callgraph)
    N.Streams.emplace_back("callgraph", StreamOf(callEdgeRecords));
  if (Opts.Labels)
    N.Streams.emplace_back("labels", StreamOf(labelRecords));
  if (Opts.Debug)
    Fields["debug"] = std::move(Debug);
  if (Opts.Ptx && !Fields.get("ptx"))
    Fields["ptx"] = std::move(Ptx);
}

void describePtxlinkObject(Context &C, const Origin &O, StringRef Bytes, Node &N) {
  if (C.Opts.Sections) {
    // Read now, so that the section table's warnings come in their place; written as a stream, one
    // record at a time (an object has a section per function).
    auto Sections = std::make_shared<std::vector<CubinSection>>(
        readElfSections(Bytes, [&](uint64_t Off, const Twine &M) { C.warn(O, Off, M); }));
    N.Streams.emplace_back("sections", [Sections, Base = O.Base](Node::Emit Emit) {
      for (const CubinSection &S : *Sections) {
        dump::Node Record;
        Record.Fields = json::Object{{"index", S.Index}, {"name", S.Name}, {"type", hex(S.Type)},
                                     {"flags", hex(S.Flags)}, {"offset", Base + S.Offset}, {"size", S.Size}};
        Emit(Record);
      }
    });
  }
  auto Object = readObject(MemoryBuffer::getMemBuffer(Bytes, O.Name, /*RequiresNullTerminator=*/false));
  if (!Object) {
    ReaderProblem P = readerProblem(O, Object.takeError());
    C.warn(O, P.Offset, P.Message);
    return;
  }
  describeObjectModel(C, O, std::shared_ptr<const ObjectFile>(std::move(*Object)), N);
}

void describePtxText(Context &C, const Origin &O, StringRef Text, Node &N) {
  json::Object &Node = N.Fields;
  auto Image = makePtxImage(Text);
  if (C.Opts.Headers && Image)
    Node["ptxHeader"] = json::Object{{"target", fatbinArchName(*Image).replace(0, 8, "sm_")},
                                     {"ptxVersion", formatv("{0}.{1}", Image->VersionMajor, Image->VersionMinor).str()},
                                     {"addressSize", Image->Is64Bit ? 64 : 32}};
  if (!Image)
    consumeError(Image.takeError());
  if (C.Opts.Ptx)
    Node["ptx"] = json::Array{json::Object{{"text", Text.str()}}};
  bool NeedModel = C.Opts.Headers || C.Opts.Symbols || C.Opts.Relocs || C.Opts.Abi || C.Opts.Callgraph || C.Opts.Labels ||
                   C.Opts.Debug;
  if (!NeedModel)
    return;
  auto Object = std::make_shared<ObjectFile>();
  std::string Diags;
  raw_string_ostream DiagOS(Diags);
  DiagnosticEngine Engine(DiagOS, "ptxlink-dump");
  if (!assembleInto(*Object, Text, O.Name, Engine)) {
    C.Err << Diags;
    C.warn(O, 0, "the PTX text does not assemble; only its header is shown");
    return;
  }
  describeObjectModel(C, O, std::move(Object), N);
}

} // namespace ptxlink::dump
