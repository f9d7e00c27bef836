// The module-level PTX parser and the syntax tree it produces.
//
// The problem: lowering a module to the object model needs every module-scope construct with its exact
// byte range (so sections can point into the source and relocations can splice names), its structured
// meaning (signatures, variable layout, debug bytes) and its source location. Function bodies are not
// parsed here: the parser only finds their extent with a fast brace matcher, and the lowering scans them
// once the whole module (including debug sections at the end of the file) is known.
#pragma once

#include "ChunkedVector.h"
#include "ptxlink/Diagnostics.h"
#include "ptxlink/ObjectModel.h"
#include "ptxlink/Target.h"
#include "PtxLexer.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace ptxlink {

enum class Linkage : uint8_t { None, Visible, Weak, Common, Extern };

/// A `.func` or `.entry` (definition or bodiless declaration): where it is. Its signature (parameters,
/// attributes, `.noreturn`, tuning directives) is the FunctionAbi at the same index of
/// PtxModule::FunctionAbis, which the lowering adopts as the object's ABI records instead of copying it:
/// a module of 10^6 small functions held both, 328 bytes per function, at the lowering's peak.
///
/// Only what cannot be read back from the text is kept: the name is the text at NameOffset (a function's
/// name is never synthesized), and the places of the name and of the `{` follow from Loc and the header's
/// text, which the lexer counts in lines at every '\n' and nothing else (advancePos). So the record is
/// 36 bytes instead of 64, and a module of 10^6 small functions holds these beside the whole object model
/// at the lowering's peak (bench/memory_bench.py).
struct PtxFunction {
  // Offsets in the module's text, which parsePtxModule keeps below 4 GiB (MaxPtxModuleBytes): 32 bits.
  uint32_t NameOffset = 0;
  uint32_t NameLength = 0;
  uint32_t Begin = 0;     // offset of `.func` / `.entry` (the linkage directive, if any, precedes it)
  uint32_t HeaderEnd = 0; // end of the last header token (before `{`, not counting a trailing `;`)
  uint32_t BodyBegin = 0; // offset of `{` (definitions)
  uint32_t End = 0;       // one past `}` (definitions) or `;` (declarations)
  SourceLoc Loc;          // of `.func` / `.entry`
  Linkage Link = Linkage::None;
  bool IsKernel = false;
  bool HasBody = false;

  /// Text is the module's text (PtxModule::Text), which the offsets index. Not substr: its clamping,
  /// inlined into the body check, made g++ stop inlining one of that loop's lambdas (+1.1% of
  /// ptxlink-as's instructions, callgrind).
  llvm::StringRef name(llvm::StringRef Text) const {
    assert(size_t(NameOffset) + NameLength <= Text.size());
    return llvm::StringRef(Text.data() + NameOffset, NameLength);
  }
  /// The lexer position at `.func` / `.entry`: a body scanner counts its lines from there.
  LexPos beginPos() const { return LexPos{Begin, Loc.Line, Begin - (Loc.Column - 1)}; }
  /// Where the name is, as the lexer gave it: counted from Loc through the header (for diagnostics).
  SourceLoc nameLoc(llvm::StringRef Text) const {
    LexPos P = advancePos(Text, beginPos(), NameOffset);
    return SourceLoc{P.Line, static_cast<uint32_t>(NameOffset - P.LineStart + 1)};
  }
};
// Every byte counts at 10^6 functions (see above): keep the fields in an order that leaves no padding
// but the tail's.
static_assert(sizeof(PtxFunction) <= 36, "PtxFunction is held per function at the lowering's peak");

/// A reference to an identifier inside a variable initializer (a function or variable name).
struct PtxNameUse {
  llvm::StringRef Name;
  size_t Offset = 0;
  SourceLoc Loc;
};

/// One declarator of a module-scope variable declaration (`.global .u32 a, b[4] = {...};` has two). A
/// parameterized name (`.global .u32 v<3>;`) is expanded into one declarator per variable (v0, v1, v2):
/// their names are not in the source text, so Name points into PtxModule::SynthesizedNames and
/// SynthesizedName is set; NameOffset, End and Loc still cover the `v<3>` text, for diagnostics.
struct PtxDeclarator {
  llvm::StringRef Name;
  size_t NameOffset = 0;
  size_t End = 0; // one past the declarator's last token (initializer included)
  SourceLoc Loc;
  llvm::SmallVector<uint64_t, 1> ArrayDims;
  bool UnsizedArray = false;
  bool Initialized = false;
  bool SynthesizedName = false; // an expanded parameterized name (see above)
  uint64_t InitElements = 0; // top-level initializer elements (sizes an unsized array)
  std::vector<PtxNameUse> Uses;
};

struct PtxVariable {
  Linkage Link = Linkage::None;
  StateSpace Space = StateSpace::Global;
  llvm::StringRef Type;
  uint8_t VectorWidth = 0;
  uint32_t Align = 0;
  StringList Attributes;
  size_t Begin = 0;       // offset of the state space directive
  size_t PrefixEnd = 0;   // offset of the first declarator's name
  size_t End = 0;         // one past `;`
  std::vector<PtxDeclarator> Decls;
  SourceLoc Loc;
};

/// A fixup in a debug section: a label, section name or label difference stored at Offset.
struct PtxDwarfFixup {
  uint64_t Offset = 0;
  uint8_t Width = 4;         // 4 or 8 (2 for differences written with .b16)
  llvm::StringRef Name;      // the label or section name
  llvm::StringRef MinusName; // label difference: Name - MinusName (resolved at assembly)
  int64_t Addend = 0;
  SourceLoc Loc;
  size_t TextOffset = 0; // of the name in the PTX text, for diagnostics
};

struct PtxDwarfLabel {
  llvm::StringRef Name;
  uint64_t Offset = 0;
  SourceLoc Loc;
  size_t TextOffset = 0;
};

/// `.section .debug_xxx { ... }` or a run of legacy `@@DWARF` lines.
struct PtxDebugSection {
  llvm::StringRef Name;
  std::vector<uint8_t> Bytes; // little-endian, fixups already holding their resolved parts
  std::vector<PtxDwarfLabel> Labels;
  std::vector<PtxDwarfFixup> Fixups; // label differences are resolved and removed by the parser
  SourceLoc Loc;
};

/// `.alias Alias, Aliasee;`
struct PtxAlias {
  llvm::StringRef Alias, Aliasee;
  size_t AliasOffset = 0, AliaseeOffset = 0;
  SourceLoc Loc, AliasLoc, AliaseeLoc;
};

/// Module-scope text kept verbatim (e.g. `.pragma "nounroll";`).
struct PtxModuleText {
  size_t Begin = 0, End = 0;
  SourceLoc Loc;
};

struct PtxItem {
  enum Kind : uint8_t { Function, Variable, Debug, Alias, Text } K;
  uint32_t Index; // into the matching vector of PtxModule
};

struct PtxModule {
  llvm::StringRef Text;
  llvm::StringRef FileName;
  TargetInfo Target;   // Arch is left empty: see ArchName
  std::string ArchName; // canonical architecture (highest of all .target lines), "" if none
  /// ArchName as spelled in Text, when the text spells it canonically ("sm_80"; not "compute_80"):
  /// the lowering then points the variant's arch into the text instead of copying it.
  llvm::StringRef ArchSpelling;
  bool HasVersion = false;
  bool HasTarget = false;
  ModelTable<FileEntry> Files;
  std::vector<SourceLoc> FileLocs;
  /// Chunked, so that the lowering can free the records it has passed (see ChunkedVector.h).
  ChunkedVector<PtxFunction> Functions;
  /// Per function (same index): its signature as written, Symbol not yet set and strings pointing into
  /// Text. lowerPtxModule takes these records (the vector is left empty), with the tables they index
  /// (ModuleVariant::Params and FunctionExtras, the same here: a record's lists and rare parts).
  ModelTable<FunctionAbi> FunctionAbis;
  ModelTable<ParamInfo> Params;
  ModelTable<FunctionExtra> FunctionExtras;
  /// A record's lists and tuning directives (null when it has none), read as ModuleVariant reads them.
  llvm::ArrayRef<ParamInfo> returns(const FunctionAbi &F) const {
    return llvm::ArrayRef<ParamInfo>(Params).slice(F.ParamBegin, F.ReturnCount);
  }
  llvm::ArrayRef<ParamInfo> params(const FunctionAbi &F) const {
    return llvm::ArrayRef<ParamInfo>(Params).slice(F.ParamBegin + F.ReturnCount, F.ParamCount);
  }
  const TuningInfo *tuning(const FunctionAbi &F) const {
    return F.Extra == NoExtra ? nullptr : &FunctionExtras[F.Extra].Tuning;
  }
  std::vector<PtxVariable> Variables;
  std::vector<PtxDebugSection> DebugSections;
  std::vector<PtxAlias> Aliases;
  std::vector<PtxModuleText> Texts;
  ChunkedVector<PtxItem> Items; // source order; chunked like Functions, freed as the lowering passes
  /// Names of expanded parameterized declarators (see PtxDeclarator), which must live as long as the
  /// module. An allocator rather than strings in a container: it keeps the module move-only, so no copy
  /// can be left pointing into another module's storage.
  llvm::BumpPtrAllocator SynthesizedNames;
};

/// Reports assembler-style diagnostics for one source text.
class SourceDiags {
public:
  SourceDiags(DiagnosticEngine &Engine, llvm::StringRef Text, llvm::StringRef FileName)
      : Engine(Engine), Text(Text), FileName(FileName) {}
  void error(size_t Offset, SourceLoc Loc, const llvm::Twine &Message);
  void warning(size_t Offset, SourceLoc Loc, const llvm::Twine &Message);
  /// When the location is not at hand (rare paths): computed from the offset.
  void errorAt(size_t Offset, const llvm::Twine &Message);
  unsigned errors() const { return Errors; }
  bool stop() const { return Engine.limitReached(); }
  DiagnosticEngine &engine() { return Engine; }
  llvm::StringRef fileName() const { return FileName; }

private:
  llvm::StringRef lineAt(size_t Offset) const;
  DiagnosticEngine &Engine;
  llvm::StringRef Text;
  llvm::StringRef FileName;
  unsigned Errors = 0;
};

/// The largest PTX text a module can be (4 GiB - 1): offsets into it are 32-bit in the parser's records.
inline constexpr size_t MaxPtxModuleBytes = UINT32_MAX;

/// Parses the module-level structure of Text. Errors go to Diags; parsing recovers at the next top-level
/// `;` or matching `}` and continues, so every error is reported. Returns true if no error was found.
/// A text of more than MaxPtxModuleBytes is refused with one error.
bool parsePtxModule(llvm::StringRef Text, llvm::StringRef FileName, SourceDiags &Diags, PtxModule &Module);

/// A `.callprototype` found inside a function body.
struct PtxCallPrototype {
  ParamList Returns, Params;
  bool NoReturn = false;
  std::optional<uint32_t> AbiPreserve, AbiPreserveControl;
};

/// Parses `.callprototype ... ;` starting at Start (which points at the `.callprototype` directive).
/// On success returns true and leaves End just past the `;`.
bool parseCallPrototypeAt(llvm::StringRef Text, LexPos Start, SourceDiags &Diags, PtxCallPrototype &Out,
                          LexPos &End);

/// Canonical architecture name for a `.target` entry: compute_XX -> sm_XX, sm_101* -> sm_110*. Returns ""
/// if Entry is not an architecture (e.g. "debug").
std::string canonicalArch(llvm::StringRef Entry);

} // namespace ptxlink

namespace ptxlink {

/// Lowers a parsed module to one ModuleVariant of Object (see ObjectModel.h for the contract): sections,
/// symbols, relocations (scanning function bodies for every module-scope name), ABI records, files and
/// debug sections. Section contents point into Module.Text if TextOutlivesObject, else into Object's arena.
/// Returns false if an error was reported (Variant is then incomplete and must be dropped). Module's
/// FunctionAbis become Variant's Functions (Module keeps the rest). Source: see assembleInto (the
/// buffer Module.Text is, whose pages a large module's lowering gives back behind itself).
bool lowerPtxModule(PtxModule &Module, ObjectFile &Object, ModuleVariant &Variant, SourceDiags &Diags,
                    bool TextOutlivesObject, const llvm::MemoryBuffer *Source = nullptr);

} // namespace ptxlink
