// Printing one module variant of the object model back as a PTX module that ptxas accepts.
//
// The problem: the model keeps each definition's text without its linkage directive, and marks every byte
// range that names a symbol or a `.file` index; the linker renames symbols and renumbers files by editing
// the model, not the text. So the printer splices: it copies text between relocations and prints the
// current name or index at each one, adds the linkage prefix that Symbol::Bind says, and arranges the
// pieces in an order ptxas accepts (prototypes first, so definitions and initializers may refer to any
// function regardless of order). Debug sections are binary in the model and are printed as `.b8` lists
// with `.b32`/`.b64` entries at relocations and labels where they are defined.

#include "ptxlink/PtxChars.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace ptxlink {
namespace {

/// Ends a declaration printed from a definition's header. The assembler trims comments from the header,
/// but a model from elsewhere might end in a `// comment`, which would swallow the `;`.
void endDeclaration(llvm::raw_ostream &OS, llvm::StringRef Header) {
  llvm::StringRef LastLine = Header.substr(Header.rfind('\n') + 1);
  OS << (LastLine.contains("//") ? "\n;\n" : ";\n");
}


class Printer {
public:
  Printer(const ModuleVariant &V, const TargetInfo &Target, llvm::raw_ostream &OS) : V(V), Target(Target), OS(OS) {
    for (size_t I = 0; I < V.Functions.size(); ++I)
      if (V.Functions[I].Symbol != NoSymbol)
        FunctionOf.try_emplace(V.Functions[I].Symbol, I);
    for (size_t I = 0; I < V.Variables.size(); ++I)
      if (V.Variables[I].Symbol != NoSymbol)
        VariableOf.try_emplace(V.Variables[I].Symbol, I);
  }

  void print();
  PrintedLayout *Layout = nullptr; // where each section's text went, if the caller wants it
  TextReleaser Behind;             // gives the inputs' text back behind each pass over the sections
  GatherStream *Gather = nullptr;  // OS itself, where it takes long runs of text by reference
  /// A function section's declaration part kept apart from its text (InputTextAccess::Header), if any.
  llvm::function_ref<llvm::StringRef(const Section &, uint32_t &)> HeaderCopy;
  mutable uint32_t HeaderHint = 0; // HeaderCopy's cursor

private:
  /// Notes that what is printed next is Section's text (NoSection: the printer's own).
  void beginSpan(uint32_t Section) {
    if (Layout)
      Layout->Spans.push_back({OS.tell(), Section});
  }
  const ModuleVariant &V;
  const TargetInfo &Target; // V.Target, or what the caller prints in its place
  llvm::raw_ostream &OS;
  llvm::DenseMap<uint32_t, size_t> FunctionOf, VariableOf;

  llvm::StringRef symbolName(uint32_t I) const { return I < V.Symbols.size() ? V.Symbols[I].name() : "<bad-symbol>"; }
  void header();
  /// Prints S's text up to End from C (S's contents, or a copy of their first bytes).
  void text(const Section &S, uint64_t End, llvm::StringRef C);
  void text(const Section &S, uint64_t End) { text(S, End, S.contents()); }
  /// S's declaration part (its first HeaderLength bytes), and whether it is a copy (reading it reads no
  /// input text).
  std::pair<llvm::StringRef, bool> declarationPart(const Section &S) const {
    if (HeaderCopy)
      if (llvm::StringRef Copy = HeaderCopy(S, HeaderHint); Copy.size() == S.HeaderLength && !Copy.empty())
        return {Copy, true};
    return {S.contents().take_front(S.HeaderLength), false};
  }
  /// Writes a run of a section's text: by reference where OS takes it so and the run is long enough for
  /// lending it (a vector of its own in a writev, the calls that put it there) to cost less than copying
  /// it: at 256 bytes the 100-module link ran 1.3M more instructions than with copies, at 1024 0.1M fewer.
  void put(llvm::StringRef Run) {
    if (Gather && Run.size() >= MinLentRun)
      Gather->writeBorrowed(Run);
    else
      OS << Run;
  }
  static constexpr size_t MinLentRun = 1024;
  /// Whether R replaces text (rather than debug data), and the text it stands for.
  static bool isTextReloc(const Relocation &R) {
    return R.Kind == RelocKind::NameRef || R.Kind == RelocKind::FileIndex || R.Kind == RelocKind::SectionOffset;
  }
  void relocatedText(const Relocation &R, llvm::StringRef Name);
  void linkage(const Symbol &S, bool Kernel);
  void functionDeclaration(const Symbol &S, const FunctionAbi &F, llvm::StringRef Prefix);
  void variableDeclaration(const Symbol &S, const VariableAbi &Var);
  /// One debug section; Labels: the labels it defines, as (offset, symbol index), by offset.
  void debugSection(const Section &S, llvm::ArrayRef<std::pair<uint64_t, uint32_t>> Labels);
  /// The debug sections, each with its labels (DebugLabels).
  void debugSections();
  /// The labels the debug sections define, gathered by the walk over the symbols that declares the
  /// externs: a linked module has a few debug sections and all the link's symbols, and a walk of their
  /// own (or one per debug section) would read a table larger than the cache once more.
  struct DebugLabel {
    uint32_t Section;
    uint64_t Offset;
    uint32_t Symbol;
  };
  std::vector<DebugLabel> DebugLabels;
  void aliasDeclaration(uint32_t Alias);
};

/// PTX wants `fAlias` declared as a function without body before `.alias fAlias, fAliasee;`, with the
/// aliasee's prototype. The aliasee's own header (its name replaced) is exactly that prototype.
void Printer::aliasDeclaration(uint32_t Alias) {
  const Symbol &A = V.Symbols[Alias];
  uint32_t Target = V.aliasOf(Alias);
  const Symbol &T = V.Symbols[Target];
  if (T.Section < V.Sections.size()) {
    const Section &S = V.Sections[T.Section];
    if (S.Kind == SectionKind::Function && S.Symbol == Target && S.HeaderLength) {
      linkage(A, false);
      const llvm::StringRef C = declarationPart(S).first; // only the header is read
      uint64_t Pos = 0;
      for (const Relocation &R : V.relocs(S)) {
        if (!isTextReloc(R))
          continue;
        if (R.Offset < Pos || uint64_t(R.Offset) + R.Length > S.HeaderLength)
          continue;
        OS << C.slice(Pos, R.Offset);
        relocatedText(R, R.Symbol == Target ? A.name() : symbolName(R.Symbol));
        Pos = uint64_t(R.Offset) + R.Length;
      }
      OS << C.slice(Pos, S.HeaderLength);
      endDeclaration(OS, C);
      return;
    }
  }
  if (auto It = FunctionOf.find(Alias); It != FunctionOf.end()) {
    functionDeclaration(A, V.Functions[It->second], linkageDirective(A.Bind));
  }
}

void Printer::header() {
  beginSpan(NoSection);
  const TargetInfo &T = Target;
  OS << "//\n// Generated by ptxlink\n//\n\n";
  OS << ".version " << T.VersionMajor << '.' << T.VersionMinor << '\n';
  OS << ".target " << T.Arch;
  llvm::SmallVector<llvm::StringRef, 4> Options(T.Options.begin(), T.Options.end());
  auto addOption = [&](llvm::StringRef O) {
    if (!O.empty() && !llvm::is_contained(Options, O))
      Options.push_back(O);
  };
  if (T.Texmode.size())
    addOption(T.Texmode);
  if (T.MapF64ToF32)
    addOption("map_f64_to_f32");
  if (T.Debug)
    addOption("debug");
  for (llvm::StringRef O : Options)
    OS << ", " << O;
  OS << '\n';
  if (T.AddressSizeGiven)
    OS << ".address_size " << T.AddressSize << '\n';
  OS << '\n';
}

void Printer::relocatedText(const Relocation &R, llvm::StringRef Name) {
  switch (R.Kind) {
  case RelocKind::NameRef:
    OS << Name;
    break;
  case RelocKind::FileIndex:
    OS << R.Symbol;
    break;
  case RelocKind::SectionOffset:
    OS << Name;
    if (R.Addend)
      OS << '+' << R.Addend;
    break;
  case RelocKind::Data32:
  case RelocKind::Data64:
    break;
  }
}

/// Copies C[0, End) with every relocation and text edit inside it applied.
void Printer::text(const Section &S, uint64_t End, llvm::StringRef C) {
  End = std::min<uint64_t>(End, C.size());
  uint64_t Pos = 0;
  // The edits of this section (nearly always none), merged with the relocations by offset.
  const uint32_t Index = static_cast<uint32_t>(&S - V.Sections.data());
  const llvm::ArrayRef<ModuleVariant::TextEdit> Edits = V.textEdits();
  auto Edit = llvm::lower_bound(Edits, Index, [](const ModuleVariant::TextEdit &E, uint32_t I) { return E.Section < I; });
  auto applyEditsBefore = [&](uint64_t Limit) {
    for (; Edit != Edits.end() && Edit->Section == Index && Edit->Offset < Limit; ++Edit) {
      if (Edit->Offset < Pos || uint64_t(Edit->Offset) + Edit->Length > End)
        continue;
      put(C.slice(Pos, Edit->Offset));
      OS << Edit->Replacement;
      Pos = uint64_t(Edit->Offset) + Edit->Length;
    }
  };
  for (const Relocation &R : V.relocs(S)) {
    if (R.Offset >= End)
      break; // relocations are sorted by offset: the rest are outside the printed range
    if (!isTextReloc(R) || R.spelledAsIs())
      continue; // a name spelled as it is stays inside the run
    applyEditsBefore(R.Offset);
    if (R.Offset < Pos || uint64_t(R.Offset) + R.Length > End)
      continue; // outside the printed range (or overlapping, which a valid model never has)
    put(C.slice(Pos, R.Offset));
    relocatedText(R, symbolName(R.Symbol));
    Pos = uint64_t(R.Offset) + R.Length;
  }
  applyEditsBefore(End);
  put(C.slice(Pos, End));
}

void Printer::linkage(const Symbol &S, bool Kernel) { OS << linkageDirective(S.Bind); }

void Printer::functionDeclaration(const Symbol &S, const FunctionAbi &F, llvm::StringRef Prefix) {
  printFunctionDeclPtx(OS, V.signature(F), S.name(), Prefix);
  OS << ";\n";
}

void Printer::variableDeclaration(const Symbol &S, const VariableAbi &Var) {
  OS << ".extern ";
  printVariableDeclPtx(OS, Var, S.name());
  OS << ";\n";
}

void Printer::debugSections() {
  // By section, then offset (stable: model order among equal offsets).
  std::vector<DebugLabel> &Labels = DebugLabels;
  std::stable_sort(Labels.begin(), Labels.end(), [](const DebugLabel &A, const DebugLabel &B) {
    return std::tie(A.Section, A.Offset) < std::tie(B.Section, B.Offset);
  });
  std::vector<std::pair<uint64_t, uint32_t>> Mine; // one section's
  size_t Next = 0;
  for (uint32_t I = 0; I < V.Sections.size(); ++I) {
    if (V.Sections[I].Kind != SectionKind::Debug)
      continue;
    Mine.clear();
    for (; Next < Labels.size() && Labels[Next].Section <= I; ++Next)
      if (Labels[Next].Section == I)
        Mine.push_back({Labels[Next].Offset, Labels[Next].Symbol});
    debugSection(V.Sections[I], Mine);
    Behind.passed(V.Sections[I].contents());
  }
  Behind.finish();
}

/// `.section .debug_x { ... }`: bytes in `.b8` rows, data relocations as `.b32`/`.b64` entries, and the
/// labels defined in the section at their offsets.
void Printer::debugSection(const Section &S, llvm::ArrayRef<std::pair<uint64_t, uint32_t>> Labels) {
  beginSpan(NoSection); // its lines are bytes the printer spelled, not the input's lines

  static const std::array<std::string, 256> Decimal = [] {
    std::array<std::string, 256> T;
    for (unsigned I = 0; I < 256; ++I)
      T[I] = std::to_string(I);
    return T;
  }();

  OS << ".section " << V.sectionName(S) << "\n{\n";
  llvm::StringRef C = S.contents();
  uint64_t Pos = 0, End = C.size();
  size_t NextLabel = 0, NextReloc = 0;
  const llvm::ArrayRef<Relocation> Relocs = V.relocs(S);
  auto printLabelsAt = [&](uint64_t At) {
    while (NextLabel < Labels.size() && Labels[NextLabel].first <= At) {
      OS << symbolName(Labels[NextLabel].second) << ":\n";
      ++NextLabel;
    }
  };
  while (Pos < End) {
    printLabelsAt(Pos);
    while (NextReloc < Relocs.size() &&
           (Relocs[NextReloc].Offset < Pos || (Relocs[NextReloc].Kind != RelocKind::Data32 &&
                                                 Relocs[NextReloc].Kind != RelocKind::Data64)))
      ++NextReloc;
    if (NextReloc < Relocs.size() && Relocs[NextReloc].Offset == Pos) {
      const Relocation &R = Relocs[NextReloc++];
      unsigned Width = R.Kind == RelocKind::Data32 ? 4 : 8;
      if (Pos + Width <= End) {
        OS << (Width == 4 ? "\t.b32 " : "\t.b64 ") << symbolName(R.Symbol);
        if (R.Addend > 0)
          OS << '+' << R.Addend;
        else if (R.Addend < 0)
          OS << R.Addend;
        OS << '\n';
        Pos += Width;
        continue;
      }
    }
    // A run of plain bytes up to the next label or relocation.
    uint64_t Stop = End;
    if (NextLabel < Labels.size())
      Stop = std::min(Stop, std::max(Labels[NextLabel].first, Pos + 1));
    if (NextReloc < Relocs.size())
      Stop = std::min(Stop, std::max<uint64_t>(Relocs[NextReloc].Offset, Pos + 1));
    while (Pos < Stop) {
      uint64_t RowEnd = std::min<uint64_t>(Stop, Pos + 32);
      OS << "\t.b8 ";
      for (uint64_t I = Pos; I < RowEnd; ++I) {
        if (I != Pos)
          OS << ',';
        OS << Decimal[static_cast<uint8_t>(C[I])];
      }
      OS << '\n';
      Pos = RowEnd;
    }
  }
  printLabelsAt(~0ull);
  OS << "}\n";
}

void Printer::print() {
  header();

  for (const FileEntry &F : V.files()) {
    OS << ".file " << F.Index << " \"" << F.Path << '"';
    if (F.Timestamp || F.Size)
      OS << ", " << F.Timestamp.value_or(0);
    if (F.Size)
      OS << ", " << *F.Size;
    OS << '\n';
  }
  if (!V.files().empty())
    OS << '\n';

  for (uint32_t I = 0; I < V.Sections.size(); ++I)
    if (const Section &S = V.Sections[I]; S.Kind == SectionKind::Module) {
      beginSpan(I);
      text(S, S.contents().size());
      Behind.passed(S.contents());
      OS << '\n';
    }
  Behind.finish();

  // Declarations: prototypes of defined functions (so that any definition or initializer may refer to
  // any function), declarations of aliases (PTX wants `fAlias` declared before `.alias`), externs.
  // Kernels get a prototype only where other code takes their address (a dynamic-parallelism launch of
  // a kernel defined further down), so that plain modules print as before.
  std::vector<bool> KernelUsed(V.Symbols.size(), false);
  for (const Section &S : V.Sections)
    for (const Relocation &R : V.relocs(S))
      if (R.Kind == RelocKind::NameRef && R.Symbol < V.Symbols.size() && R.Symbol != S.Symbol &&
          V.Symbols[R.Symbol].Kind == SymbolKind::Kernel)
        KernelUsed[R.Symbol] = true;
  bool Any = false;
  for (uint32_t I = 0; I < V.Sections.size(); ++I) {
    const Section &S = V.Sections[I];
    if (S.Kind != SectionKind::Function || S.Symbol >= V.Symbols.size() || S.HeaderLength == 0)
      continue;
    const Symbol &Sym = V.Symbols[S.Symbol];
    if (Sym.Kind != SymbolKind::Function && !(Sym.Kind == SymbolKind::Kernel && KernelUsed[S.Symbol]))
      continue;
    linkage(Sym, false);
    beginSpan(I);
    const auto [Header, IsCopy] = declarationPart(S);
    text(S, S.HeaderLength, Header);
    endDeclaration(OS, Header);
    // The whole section: fault-around brings a header's neighbours in with it. A copy reads no input text.
    if (!IsCopy)
      Behind.passed(S.contents());
    Any = true;
  }
  Behind.finish();
  beginSpan(NoSection);
  const bool AnyDebug = llvm::any_of(V.Sections, [](const Section &S) { return S.Kind == SectionKind::Debug; });
  for (uint32_t I = 0; I < V.Symbols.size(); ++I) {
    const Symbol &Sym = V.Symbols[I];
    if (Sym.Kind == SymbolKind::Label) {
      if (AnyDebug && Sym.Section < V.Sections.size() && V.Sections[Sym.Section].Kind == SectionKind::Debug)
        DebugLabels.push_back({Sym.Section, Sym.value(), I});
      continue;
    }
    if (Sym.Kind == SymbolKind::Section)
      continue;
    if (V.aliasOf(I) != NoSymbol) {
      aliasDeclaration(I);
      Any = true;
      continue;
    }
    if (Sym.Bind != Binding::Undefined)
      continue;
    if (auto It = FunctionOf.find(I); It != FunctionOf.end()) {
      functionDeclaration(Sym, V.Functions[It->second], ".extern ");
      Any = true;
    } else if (auto It = VariableOf.find(I); It != VariableOf.end()) {
      variableDeclaration(Sym, V.Variables[It->second]);
      Any = true;
    }
  }
  if (Any)
    OS << '\n';

  for (uint32_t I = 0; I < V.Sections.size(); ++I)
    if (const Section &S = V.Sections[I]; S.Kind == SectionKind::Variable) {
      if (S.Symbol < V.Symbols.size())
        linkage(V.Symbols[S.Symbol], false);
      beginSpan(I);
      text(S, S.contents().size());
      Behind.passed(S.contents());
      OS << '\n';
    }
  Behind.finish();
  OS << '\n';

  for (uint32_t I = 0; I < V.Sections.size(); ++I)
    if (const Section &S = V.Sections[I]; S.Kind == SectionKind::Function) {
      if (S.Symbol < V.Symbols.size())
        linkage(V.Symbols[S.Symbol], V.Symbols[S.Symbol].Kind == SymbolKind::Kernel);
      beginSpan(I);
      text(S, S.contents().size());
      Behind.passed(S.contents());
      OS << "\n\n";
    }
  Behind.finish();

  beginSpan(NoSection);
  const bool HasAliases = !V.aliases().empty();
  for (uint32_t I = 0; HasAliases && I < V.Symbols.size(); ++I) // in symbol order
    if (const uint32_t Aliasee = V.aliasOf(I); Aliasee != NoSymbol && Aliasee < V.Symbols.size())
      OS << ".alias " << V.Symbols[I].name() << ", " << V.Symbols[Aliasee].name() << ";\n";

  debugSections();
}

} // namespace

void TextReleaser::record(llvm::StringRef Text) {
  if (Text.empty())
    return;
  const char *B = Text.data(), *E = B + Text.size();
  if (Lo && (B < Lo || B > Hi + RunGap || size_t(Hi - Lo) >= RunBytes))
    releaseRun(); // elsewhere (the next input) or a run large enough
  if (!Lo)
    Lo = B;
  Hi = std::max(Hi, E);
}

void TextReleaser::releaseRun() {
  if (Lo)
    Release(llvm::StringRef(Lo, size_t(Hi - Lo)));
  Lo = Hi = nullptr;
}

void printModule(const ModuleVariant &Variant, llvm::raw_ostream &OS) { Printer(Variant, Variant.Target, OS).print(); }

void printModule(const ModuleVariant &Variant, const TargetInfo &Target, llvm::raw_ostream &OS) {
  Printer(Variant, Target, OS).print();
}

void printModule(const ModuleVariant &Variant, const TargetInfo &Target, llvm::raw_ostream &OS,
                 const InputTextAccess &Inputs) {
  Printer P(Variant, Target, OS);
  P.Behind = TextReleaser(Inputs.Release);
  P.HeaderCopy = Inputs.Header;
  P.print();
}

void printModule(const ModuleVariant &Variant, const TargetInfo &Target, GatherStream &OS,
                 const InputTextAccess &Inputs) {
  Printer P(Variant, Target, OS);
  // Text lent to OS is given back only once OS has written it: given back earlier, writev would fault it
  // back in, and it would stay.
  auto ReleaseWritten = [&OS, &Inputs](llvm::StringRef Range) { OS.releaseWhenWritten(Range, Inputs.Release); };
  if (Inputs.Release)
    P.Behind = TextReleaser(ReleaseWritten);
  P.HeaderCopy = Inputs.Header;
  P.Gather = &OS;
  P.print();
}

void printParamPtx(llvm::raw_ostream &OS, const ParamInfo &P) {
  OS << (P.Space == StateSpace::Reg ? ".reg" : ".param");
  if (P.Align)
    OS << " .align " << P.Align;
  if (P.VectorWidth)
    OS << " .v" << unsigned(P.VectorWidth);
  OS << ' ' << (P.hasType() ? P.type() : llvm::StringRef(".b8"));
  // Pointer attributes follow the type: `.param .u64 .ptr .global .align 16 p` (ptxas rejects them first).
  if (P.IsPtr) {
    OS << " .ptr";
    if (!stateSpaceName(P.PtrSpace).empty())
      OS << ' ' << stateSpaceName(P.PtrSpace);
    if (P.PtrAlign)
      OS << " .align " << P.PtrAlign;
  }
  if (!P.name().empty())
    OS << ' ' << P.name();
  for (uint64_t Dim : P.ArrayDims) {
    // Some producers record the unsized trailing dimension as a 0; it is printed once as `[]` below.
    if (Dim == 0 && P.UnsizedArray)
      continue;
    OS << '[' << Dim << ']';
  }
  if (P.UnsizedArray)
    OS << "[]";
}

std::string formatParamPtx(const ParamInfo &P) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printParamPtx(OS, P);
  return Text;
}

static void printParamListPtx(llvm::raw_ostream &OS, llvm::ArrayRef<ParamInfo> Params) {
  OS << '(';
  for (size_t I = 0; I < Params.size(); ++I) {
    if (I)
      OS << ", ";
    printParamPtx(OS, Params[I]);
  }
  OS << ')';
}

/// What follows a function's or prototype's parameter list.
static void printSignatureTailPtx(llvm::raw_ostream &OS, bool NoReturn, const std::optional<uint32_t> &Preserve,
                                  const std::optional<uint32_t> &PreserveControl) {
  if (NoReturn)
    OS << " .noreturn";
  if (Preserve)
    OS << " .abi_preserve " << *Preserve;
  if (PreserveControl)
    OS << " .abi_preserve_control " << *PreserveControl;
}

void printFunctionDeclPtx(llvm::raw_ostream &OS, const FunctionSignature &F, llvm::StringRef Name, llvm::StringRef Linkage) {
  OS << Linkage << (F.IsKernel ? ".entry " : ".func ");
  for (llvm::StringRef A : F.Tuning->Attributes)
    OS << ".attribute(" << A << ") ";
  if (!F.Returns.empty()) {
    printParamListPtx(OS, F.Returns);
    OS << ' ';
  }
  OS << Name;
  // `.func f` and `.func f()` are the same prototype; the list is printed whenever there is one to show.
  if (!F.Params.empty() || !F.Returns.empty()) {
    OS << ' ';
    printParamListPtx(OS, F.Params);
  }
  printSignatureTailPtx(OS, F.NoReturn, F.Tuning->AbiPreserve, F.Tuning->AbiPreserveControl);
}

void printCallPrototypePtx(llvm::raw_ostream &OS, const PrototypeAbi &P) {
  OS << P.Label << ": .callprototype ";
  if (!P.Returns.empty()) {
    printParamListPtx(OS, P.Returns);
    OS << ' ';
  }
  OS << "_ ";
  printParamListPtx(OS, P.Params);
  printSignatureTailPtx(OS, P.NoReturn, P.AbiPreserve, P.AbiPreserveControl);
}

void printVariableDeclPtx(llvm::raw_ostream &OS, const VariableAbi &V, llvm::StringRef Name) {
  // PTX puts a variable's attributes after its state space: `.global .attribute(.managed) .b32 v`.
  OS << stateSpaceName(V.Space);
  for (llvm::StringRef Attr : V.Attributes)
    OS << " .attribute(" << Attr << ')';
  if (V.Align)
    OS << " .align " << V.Align;
  if (V.VectorWidth)
    OS << " .v" << unsigned(V.VectorWidth);
  OS << ' ' << V.Type << ' ' << Name;
  for (uint64_t Dim : V.ArrayDims) {
    if (Dim == 0 && V.UnsizedArray) // an unsized trailing dimension recorded as 0 prints as `[]` below
      continue;
    OS << '[' << Dim << ']';
  }
  if (V.UnsizedArray)
    OS << "[]";
}


void printModule(const ModuleVariant &Variant, const TargetInfo &Target, llvm::raw_ostream &OS, PrintedLayout &Layout) {
  Layout.Spans.clear();
  Printer P(Variant, Target, OS);
  P.Layout = &Layout;
  P.print();
}

std::optional<PrintedLineOrigin> locatePrintedLine(const ModuleVariant &V, const PrintedLayout &Layout,
                                                   llvm::StringRef Printed, unsigned Line) {
  if (Line == 0)
    return std::nullopt;
  // The byte where the line starts.
  uint64_t LineStart = 0;
  for (unsigned L = 1; L < Line; ++L) {
    size_t NL = Printed.find('\n', LineStart);
    if (NL == llvm::StringRef::npos)
      return std::nullopt;
    LineStart = NL + 1;
  }
  auto It = llvm::upper_bound(Layout.Spans, LineStart,
                              [](uint64_t Offset, const PrintedLayout::Span &S) { return Offset < S.Offset; });
  if (It == Layout.Spans.begin())
    return std::nullopt;
  const PrintedLayout::Span &Span = *std::prev(It);
  if (Span.Section >= V.Sections.size())
    return std::nullopt;
  const Section &S = V.Sections[Span.Section];
  const Loc Where = V.sectionWhere(S);
  if (!Where.isValid())
    return std::nullopt;
  // Renaming splices names into lines but never adds or removes one: the Nth line of the printed text of
  // a section is the Nth line of its contents. (A span may start mid-line, after a linkage directive.)
  uint64_t SpanLineStart = Printed.substr(0, Span.Offset).rfind('\n');
  SpanLineStart = SpanLineStart == llvm::StringRef::npos ? 0 : SpanLineStart + 1;
  unsigned Delta = Printed.slice(SpanLineStart, LineStart).count('\n');
  llvm::StringRef C = S.contents();
  size_t Pos = 0;
  for (unsigned D = 0; D < Delta; ++D) {
    size_t NL = C.find('\n', Pos);
    if (NL == llvm::StringRef::npos)
      return std::nullopt; // past the section: the printer's own line after it
    Pos = NL + 1;
  }
  llvm::StringRef LineText = C.substr(Pos, C.find('\n', Pos) - Pos).rtrim("\r");
  PrintedLineOrigin O;
  O.File = !V.sectionSource(Span.Section).empty() ? V.sectionSource(Span.Section) : V.SourceName;
  // The section's text starts at Where (its first line may begin after a directive it dropped).
  O.Line = Where.Line + Delta;
  O.FirstColumn = Delta == 0 ? std::max<uint32_t>(Where.Column, 1) : 1;
  O.LineText = LineText;
  O.Section = V.sectionName(S);
  return O;
}

size_t indexOfQuotedToken(llvm::StringRef Message, llvm::StringRef LineText) {
  size_t Fallback = std::min(LineText.find_first_not_of(" \t"), LineText.size());
  size_t Open = Message.find('\'');
  if (Open == llvm::StringRef::npos)
    return Fallback;
  size_t Close = Message.find('\'', Open + 1);
  if (Close == llvm::StringRef::npos || Close == Open + 1)
    return Fallback;
  llvm::StringRef Token = Message.slice(Open + 1, Close);
  // Whole-token match: '%r1' must not be found inside '%r10'.
  // An identifier character (PtxChars.h), or the '%' of a register and the '.' of an opcode's suffixes,
  // which a quoted token may hold.
  auto IsIdent = [](char C) { return isIdentChar(C) || C == '%' || C == '.'; };
  for (size_t At = LineText.find(Token); At != llvm::StringRef::npos; At = LineText.find(Token, At + 1)) {
    bool StartOk = At == 0 || !IsIdent(LineText[At - 1]) || !IsIdent(Token.front()) || Token.front() == '.';
    size_t End = At + Token.size();
    bool EndOk = End >= LineText.size() || !IsIdent(LineText[End]) || !IsIdent(Token.back()) ||
                 (LineText[End] == '.' && Token.back() != '.'); // 'mov' in "mov.u32"
    if (StartOk && EndOk)
      return At;
  }
  return Fallback;
}

} // namespace ptxlink
