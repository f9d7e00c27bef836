// The in-memory model of a ptxlink relocatable object: the contract between the assembler (which builds
// it from PTX), the ELF writer/reader (which serialise it, see docs/object-format.md), the linker (which
// merges many of them) and the PTX printer (which turns one back into a PTX module).
//
// The problem it solves: a PTX module is text, and linking text means moving whole definitions around
// and renaming the symbols they mention. So a module is cut into sections, one per definition, each
// holding the definition's PTX text *without* its linkage directive (the linker decides linkage), plus
// relocations that mark every byte range naming a module-scope symbol. Renaming is then splicing; nothing
// is re-parsed after assembly. Debug sections are binary (real DWARF bytes) with data relocations.
//
// Strings are llvm::StringRef into storage owned by the enclosing ObjectFile (its arena, or the input
// buffer a reader mapped), so reading an object copies nothing.
#pragma once

#include "ptxlink/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"

#include <cstring>
#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace ptxlink {

class PageDiscarder;

/// PTX state spaces that matter for linking and for the ABI.
enum class StateSpace : uint8_t {
  None,
  Reg,
  Param,
  Global,
  Const,
  Shared,
  Local,
  Tex, // legacy `.tex` variables
  Generic,
};
llvm::StringRef stateSpaceName(StateSpace S); // ".global" etc; "" for None

/// How a symbol participates in linking (PTX linking directives mapped onto ELF bindings).
enum class Binding : uint8_t {
  Local,     // no linking directive: module-private (kernels too: `.entry` without `.visible`)
  Global,    // .visible
  Weak,      // .weak
  Common,    // .common (variables in .global only)
  Undefined, // .extern declaration, or a reference with no definition in this module
};

enum class SymbolKind : uint8_t {
  Function,  // .func
  Kernel,    // .entry
  Variable,  // module-scope variable in any state space
  Label,     // a label that a debug section refers to (lives inside a function or debug section)
  Section,   // the start of a debug section (`.b32 .debug_abbrev` refers to it)
};

/// A position in the module's source file (the file name is ModuleVariant::SourceName).
using Loc = SourceLoc;

constexpr uint32_t NoSection = ~0u;
constexpr uint32_t NoSymbol = ~0u;

/// The longest symbol name the model holds (Symbol keeps a 24-bit length): 16 MiB - 1, the longest name a
/// relocation can replace (MaxRelocationLength). The lowering and the object reader refuse longer names.
constexpr uint32_t MaxSymbolNameBytes = (1u << 24) - 1;
/// The largest label offset or variable size the model holds (Symbol keeps 48 bits): a label lies in a
/// section below 4 GiB, and no GPU has 256 TiB for a variable. The lowering (which also refuses an array
/// size that overflows) and the object reader refuse larger ones.
constexpr uint64_t MaxSymbolValue = (uint64_t(1) << 48) - 1;

/// 32 bytes (a module of 10^6 functions holds one per function, and every tool holds
/// all of them, so each 8 bytes here is 8 MB in every tool). So:
/// - The name is a pointer and a 24-bit length (MaxSymbolNameBytes) that shares a 32-bit field with Kind,
///   Bind, Initialized and a hint for the alias table: read it with name(), set it with setName().
/// - A label's byte offset and a variable's size share one 48-bit field (MaxSymbolValue), since no symbol
///   kind has both: read them with value() and size(), which give 0 for the kinds that have neither, and
///   set them with setValue() / setSize() (the reader refuses an object that gives a symbol one its kind
///   does not have). The state space and the alignment share its word.
/// - Kind, Bind, Initialized and Space are bit-fields: bind them to no reference.
/// - The alignment is kept as its log2: read align() (bytes), set setAlign(bytes). Every alignment is a
///   power of two or 0: `.align N` must be one (the parser refuses others), a natural alignment is an
///   element size (1 to 16 bytes) times a vector width (2, 4 or 8), and the object reader refuses a
///   non-power-of-two alignment with its byte offset.
/// - The aliasee of an `.alias` name (rare) is not here but in its variant's side table:
///   V.aliasOf(SymbolIndex) / V.setAliasOf(SymbolIndex, Target). A symbol copied into another variant
///   takes its alias along only through that variant's setAliasOf.
struct Symbol {
private:
  const char *NameData = nullptr;

public:
  SymbolKind Kind : 3 = SymbolKind::Function;
  Binding Bind : 3 = Binding::Local;
  bool Initialized : 1 = false;        // variables: has an initializer (matters for .common)

private:
  friend struct ModuleVariant;
  /// Set by ModuleVariant::setAliasOf: this symbol may have an entry in its variant's alias table, which
  /// aliasOf looks up only then (every module of a program may hold an alias, and the resolver and
  /// mark-live ask for every symbol). A copy in another variant keeps it: a hint, never the answer.
  bool MaybeAlias : 1 = false;
  uint32_t NameSize : 24 = 0;

public:
  uint32_t Section = NoSection; // defining section; NoSection for undefined and common-undefined

private:
  uint64_t ValueOrSize : 48 = 0; // labels: value(); variables: size(); every other kind: 0

public:
  StateSpace Space : 4 = StateSpace::None; // variables: their state space

private:
  uint8_t AlignCode : 6 = 0; // 0: alignment 0 (none); else log2(alignment) + 1

public:
  Loc Where; // the defining (or first declaring) directive

  llvm::StringRef name() const { return llvm::StringRef(NameData, NameSize); }
  /// Bytes at most MaxSymbolNameBytes: every producer refuses longer names first. The bytes must outlive
  /// the symbol (a view of the input, or saved in the object's storage).
  void setName(llvm::StringRef Name) {
    assert(Name.size() <= MaxSymbolNameBytes && "producers refuse longer names");
    NameData = Name.data();
    NameSize = static_cast<uint32_t>(Name.size());
  }
  /// Labels: byte offset in Section; every other kind: 0.
  uint64_t value() const { return Kind == SymbolKind::Label ? uint64_t(ValueOrSize) : 0; }
  /// Variables: size in bytes (0 for unsized `[]` arrays); every other kind: 0.
  uint64_t size() const { return Kind == SymbolKind::Variable ? uint64_t(ValueOrSize) : 0; }
  /// Only for a label (Kind set first); at most MaxSymbolValue.
  void setValue(uint64_t Offset) {
    assert(Kind == SymbolKind::Label && "only a label has a value");
    assert(Offset <= MaxSymbolValue && "producers refuse larger offsets");
    ValueOrSize = Offset;
  }
  /// Only for a variable (Kind set first); at most MaxSymbolValue.
  void setSize(uint64_t Bytes) {
    assert(Kind == SymbolKind::Variable && "only a variable has a size");
    assert(Bytes <= MaxSymbolValue && "producers refuse larger sizes");
    ValueOrSize = Bytes;
  }
  /// Variables: alignment in bytes (explicit or natural); 0 where none is known.
  uint32_t align() const { return AlignCode ? uint32_t(1) << (AlignCode - 1) : 0; }
  /// Bytes: 0 or a power of two (every producer refuses others first).
  void setAlign(uint32_t Bytes) {
    assert((Bytes & (Bytes - 1)) == 0 && "an alignment is a power of two");
    AlignCode = Bytes ? static_cast<uint8_t>(llvm::countr_zero(Bytes) + 1) : 0;
  }
};
static_assert(sizeof(Symbol) == 32, "Symbol is 32 bytes: a module of 10^6 functions holds one per function");

enum class SectionKind : uint8_t {
  Function, // a .func/.entry definition: text from `.func`/`.entry` to the closing `}`
  Variable, // one module-scope variable: text from its state space to the closing `;`
  Debug,    // binary DWARF contents (.debug_info, .debug_abbrev, ...), named by the DWARF section name
  Module,   // other module-scope text kept in order (e.g. module-level `.pragma`), printed verbatim
};

enum class RelocKind : uint8_t {
  /// Text sections: bytes [Offset, Offset+Length) spell the name of Symbol; the printer replaces them by
  /// the symbol's final name.
  NameRef,
  /// Text sections: bytes [Offset, Offset+Length) spell a `.file` index (in `.loc` / `.file`-relative
  /// uses); Symbol holds the index as written. The linker renumbers it.
  FileIndex,
  /// Debug sections: a 4- or 8-byte little-endian field at Offset holds Symbol's address (for a Section
  /// symbol: its offset within that section; for a label: its address, known only to ptxas) + Addend.
  Data32,
  Data64,
  /// Text sections: bytes [Offset, Offset+Length) spell `name` or `name+imm`, an offset in this module's
  /// debug section that the Section symbol Symbol names (`.loc ... function_name .debug_str+16`); Addend
  /// is the offset. The printer writes the name, then `+Addend` unless it is 0; a link adds where the
  /// module's part of the merged section starts, as for Data32/Data64 against a Section symbol.
  SectionOffset,
};

/// The largest offset a Relocation holds.
constexpr uint64_t MaxRelocationOffset = UINT32_MAX;
/// The longest byte range a Relocation replaces (16 MiB - 1): a name (or `.file` index, or
/// `.debug_str+N`) spelled in more bytes cannot be relocated.
constexpr uint32_t MaxRelocationLength = (1u << 24) - 1;
/// The addends a Relocation holds: 32-bit signed. Real -G output (nvcc, llc) adds offsets into the
/// debug section it names (`.b32 .debug_str+N`), far below 2 GiB.
constexpr int64_t MinRelocationAddend = INT32_MIN, MaxRelocationAddend = INT32_MAX;
constexpr bool relocationAddendFits(int64_t Addend) {
  return Addend >= MinRelocationAddend && Addend <= MaxRelocationAddend;
}

/// 16 bytes (a module of 10^6 small functions holds one or two per function, and
/// every tool holds all of them). Each field is 32 bits, Length and Kind share one, and where a value
/// can be larger its producer refuses it with its location:
/// - Offset: a text section is below 4 GiB (a PTX text is, MaxPtxModuleBytes); the object reader
///   (r_offset), the lowering of debug sections (debug bytes can outgrow their text), the DWARF merge and
///   the link's merged debug sections refuse larger ones.
/// - Length (24 bits, MaxRelocationLength): the lowering refuses a symbol name of 16 MiB or more, a
///   `.file` index or `.debug_str+N` spelled in as many bytes, and the object reader a longer length.
/// - Addend (32-bit signed): the lowering refuses a larger debug-data addend or `.debug_str+N` offset,
///   the object reader a larger r_addend, and a link whose merged debug section or re-encoded .debug_info
///   would put an addend past 2 GiB.
struct Relocation {
  uint32_t Offset = 0;
  uint32_t Symbol = NoSymbol;
  uint32_t Length : 24 = 0;             // NameRef / FileIndex / SectionOffset: bytes replaced
  RelocKind Kind : 5 = RelocKind::NameRef;
  /// NameRef only: the name is an operand of a `call` statement, its callee (a direct call), not an
  /// address taken or a variable read. Recorded by the assembler, which knows the statement; on disk its
  /// own relocation type (R_PTXLINK_CALL), in memory a NameRef with this bit, so that every pass that
  /// renames or follows names treats it as one. Read it with isCall().
  bool CallSite : 1 = false;
  /// NameRef only: the name is an entry of a `.calltargets` list, a function an indirect call may reach
  /// (R_PTXLINK_CALL_TARGET on disk). Read it with isCallTarget().
  bool CallTargetSite : 1 = false;
  /// NameRef in a linked module only: the bytes at Offset already spell Symbol's name, which was not
  /// renamed apart (set by EmitModule; never read from or written to an object). The printer copies them
  /// through, so that a function's body goes out as one run rather than one run per name it mentions.
  /// Read it with spelledAsIs().
  bool SpelledAsIs : 1 = false;
  int32_t Addend = 0;                   // Data32 / Data64 / SectionOffset

  bool isCall() const { return Kind == RelocKind::NameRef && CallSite; }
  bool isCallTarget() const { return Kind == RelocKind::NameRef && CallTargetSite; }
  bool spelledAsIs() const { return Kind == RelocKind::NameRef && SpelledAsIs; }

  Relocation() = default;
  /// Length at most MaxRelocationLength: every producer refuses longer ranges first. (One built after
  /// such an error, in a module that is then never written, keeps the low 24 bits.)
  Relocation(uint32_t Offset, uint32_t Symbol, RelocKind Kind, uint32_t Length, int32_t Addend)
      : Offset(Offset), Symbol(Symbol), Length(Length & MaxRelocationLength), Kind(Kind), Addend(Addend) {}
};
static_assert(sizeof(Relocation) == 16, "Relocation is 16 bytes: a module of 10^6 functions holds millions");

/// A section's name and place when they are not its symbol's: debug sections (".debug_info", ...), module
/// text (`.pragma`), and any section whose record names something other than its symbol (an object may
/// hold one; kept as read). ModuleVariant::SectionLabels.
struct SectionLabel {
  llvm::StringRef Name;
  Loc Where;
};

/// Section::Label is 24 bits: a variant labels at most MaxSectionLabels sections (only debug sections,
/// module text such as `.pragma`, and sections an odd object names apart from their symbols are
/// labelled); labelSection refuses more. NoLabel is the one value above them.
constexpr uint32_t NoLabel = (1u << 24) - 1;
constexpr uint32_t MaxSectionLabels = NoLabel;
/// A section's contents are below 4 GiB (Section keeps a 32-bit size): a PTX text is
/// (MaxPtxModuleBytes), the lowering refuses larger debug bytes, the object reader a larger sh_size, and
/// a link a larger merged debug section.
constexpr uint64_t MaxSectionBytes = UINT32_MAX;

/// 32 bytes: a module of 10^6 functions holds one per function, and every tool holds all of them (a kept
/// link a second copy in its output). So the contents are a pointer and a 32-bit size (MaxSectionBytes;
/// read them with contents(), set them with setContents()), and Kind shares a 32-bit field with Label.
/// A function's or variable's section has no name or place of its own: they are its symbol's (Name: the
/// symbol name; Where: its defining directive). Read both with V.sectionName(S) / V.sectionWhere(S); set
/// them with V.labelSection(S, Name, Where) once S.Symbol is set.
struct Section {
  uint32_t Symbol = NoSymbol; // the symbol this section defines (functions and variables)
  /// Function sections: length of the prefix that is the declaration (up to, not including, the body's
  /// `{`, trailing space trimmed). `contents().take_front(HeaderLength) + ";"` is a valid prototype.
  uint32_t HeaderLength = 0;
  /// This section's relocations are ModuleVariant::Relocs[RelocBegin, RelocBegin + RelocCount), sorted
  /// by Offset: read them with V.relocs(S). One table per module instead of a vector per section (a heap
  /// block of 48 bytes for nearly every function, since each names itself).
  uint32_t RelocBegin = 0;
  uint32_t RelocCount = 0;
  /// ModuleVariant::SectionLabels[Label] holds the name and place, or NoLabel: they are Symbol's. An index
  /// into the variant the section belongs to: a section copied into another variant is labelled again.
  uint32_t Label : 24 = NoLabel;
  SectionKind Kind : 8 = SectionKind::Function;

  llvm::StringRef contents() const { return llvm::StringRef(ContentsData, ContentsSize); }
  /// Contents below MaxSectionBytes: every producer refuses larger ones first. (One set after such an
  /// error, in a module that is then never written, keeps the low 32 bits of the size.)
  void setContents(llvm::StringRef Bytes) {
    ContentsData = Bytes.data();
    ContentsSize = static_cast<uint32_t>(Bytes.size());
  }

private:
  uint32_t ContentsSize = 0;
  const char *ContentsData = nullptr;
};
static_assert(sizeof(Section) == 32, "Section is 32 bytes: a module of 10^6 functions holds one per function");

/// Scalar and opaque PTX types are kept as their spelling (".b32", ".u64", ".f16x2", ".pred",
/// ".texref", ...; a parameter's as its position in PtxTypeNames, below). typeSizeBytes() is the one rule
/// for their storage size, used by the assembler (variable sizes, which names are types), the ABI checks
/// and the dumps: the size PtxTypeNames gives the spelling (element bits times the packing factor, rounded
/// up to bytes), 0 for the opaque types and for any spelling that is no PTX type.
unsigned typeSizeBytes(llvm::StringRef Type);

/// The element types of PTX's sized scalar types, as spelled without the dot, and the bits one element
/// occupies (.e2m3/.e3m2 hold 6 bits in a byte, two zero bits on top; .e2m1 is the only one that packs two
/// values into a byte). The one list of them: typeSizeBytes sizes by it, PtxTypeNames is made from it.
/// The common ones first (ptxTypeId looks in order).
struct PtxElementType {
  std::string_view Name;
  unsigned Bits;
};
inline constexpr PtxElementType PtxElementTypes[] = {
    {"b32", 32},  {"b64", 64},  {"u32", 32},   {"u64", 64},   {"f32", 32},  {"f64", 64},  {"b8", 8},
    {"b16", 16},  {"s32", 32},  {"s64", 64},   {"u8", 8},     {"u16", 16},  {"s8", 8},    {"s16", 16},
    {"f16", 16},  {"bf16", 16}, {"tf32", 32},  {"b128", 128}, {"e4m3", 8},  {"e5m2", 8},  {"ue8m0", 8},
    {"ue4m3", 8}, {"e2m3", 8},  {"e3m2", 8},   {"e2m1", 4}};

/// One spelling of a PTX type, held in place (PtxTypeNames is made at compile time), and the bytes one
/// element of it occupies (typeSizeBytes).
struct PtxTypeSpelling {
  char Text[12] = {};
  uint8_t Size = 0;
  uint8_t Bytes = 0;
  llvm::StringRef str() const { return {Text, Size}; }
};

/// Every spelling that is a PTX type: each element type alone (".b32"), ".pred", each element type packed
/// by two and four (".f16x2", ".e4m3x4"), and the opaque types, with their sizes: element bits times the
/// packing, rounded up to bytes (".e4m3x4" 4, ".e2m1x2" 1, ".e2m3x2" 2), ".pred" 1 (as LLVM stores an i1),
/// the opaque types 0. Position 0 is none. ParamInfo keeps its type as a position here (ptxTypeId).
inline constexpr auto PtxTypeNames = [] {
  constexpr size_t Elements = std::size(PtxElementTypes);
  std::array<PtxTypeSpelling, 1 + Elements + 1 + 2 * Elements + 3> Table{};
  size_t Next = 1;
  auto add = [&](std::string_view Element, unsigned Bits, std::string_view Suffix = "", unsigned Pack = 1) {
    PtxTypeSpelling &S = Table[Next++];
    S.Text[S.Size++] = '.';
    for (char C : Element)
      S.Text[S.Size++] = C;
    for (char C : Suffix)
      S.Text[S.Size++] = C;
    S.Bytes = uint8_t((Bits * Pack + 7) / 8);
  };
  for (const PtxElementType &E : PtxElementTypes)
    add(E.Name, E.Bits);
  add("pred", 8);
  for (const PtxElementType &E : PtxElementTypes) {
    add(E.Name, E.Bits, "x2", 2);
    add(E.Name, E.Bits, "x4", 4);
  }
  add("texref", 0);
  add("samplerref", 0);
  add("surfref", 0);
  return Table;
}();
static_assert(std::size(PtxTypeNames) <= 256, "a type id is one byte");

/// A parameter's type in one byte (ParamInfo, a per-parameter cost): its position in PtxTypeNames; 0 for
/// a spelling that is no PTX type.
uint8_t ptxTypeId(llvm::StringRef Type);
/// "" for 0 (or an id out of range).
inline llvm::StringRef ptxTypeName(uint8_t Id) {
  return Id < std::size(PtxTypeNames) ? PtxTypeNames[Id].str() : llvm::StringRef();
}
/// typeSizeBytes of a type by its id, without reading a spelling (0 for 0).
inline unsigned ptxTypeBytes(uint8_t Id) { return Id < std::size(PtxTypeNames) ? PtxTypeNames[Id].Bytes : 0; }

/// The dimensions of an array declarator (`[16]`, `[4][4]`), in one word: none (0), one dimension below
/// 2^63 held in the word itself (shifted, with the low bit set), or a block of their own (the word is its
/// address: a count, then room for the dimensions, capacityFor(count) of them, so that appending one
/// at a time, as the readers do, is amortized constant time). A link holds one per parameter of every
/// function, most with no dimension and a struct passed by value with one; a SmallVector<uint64_t, 1>
/// took 24 bytes for it.
class DimList {
public:
  DimList() = default;
  DimList(llvm::ArrayRef<uint64_t> Dims) { assign(Dims); }
  DimList(std::initializer_list<uint64_t> Dims) { assign(llvm::ArrayRef<uint64_t>(Dims)); }
  DimList(const DimList &Other) { assign(Other); }
  DimList(DimList &&Other) noexcept : Word(Other.Word) { Other.Word = 0; }
  DimList &operator=(const DimList &Other) {
    if (this != &Other)
      assign(Other);
    return *this;
  }
  DimList &operator=(DimList &&Other) noexcept {
    if (this != &Other) {
      freeBlock();
      Word = Other.Word;
      Other.Word = 0;
    }
    return *this;
  }
  ~DimList() { freeBlock(); }

  size_t size() const { return isBlock() ? size_t(block()[0]) : size_t(Word != 0); }
  bool empty() const { return Word == 0; }
  uint64_t operator[](size_t I) const {
    assert(I < size() && "dimension out of range");
    return isBlock() ? block()[1 + I] : Word >> 1;
  }
  void push_back(uint64_t Dim);
  void assign(llvm::ArrayRef<uint64_t> Dims);
  void assign(const DimList &Other) { assign(llvm::ArrayRef<uint64_t>(Other.copy())); }
  /// The dimensions as a vector (for a caller that needs them contiguous).
  llvm::SmallVector<uint64_t, 4> copy() const {
    llvm::SmallVector<uint64_t, 4> Out;
    for (size_t I = 0, N = size(); I < N; ++I)
      Out.push_back((*this)[I]);
    return Out;
  }
  bool operator==(const DimList &Other) const {
    if (size() != Other.size())
      return false;
    for (size_t I = 0, N = size(); I < N; ++I)
      if ((*this)[I] != Other[I])
        return false;
    return true;
  }

  /// Reads the dimensions by value, first to last.
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = uint64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const uint64_t *;
    using reference = uint64_t;
    iterator(const DimList *List, size_t At) : List(List), At(At) {}
    uint64_t operator*() const { return (*List)[At]; }
    iterator &operator++() {
      ++At;
      return *this;
    }
    iterator operator++(int) {
      iterator Old = *this;
      ++At;
      return Old;
    }
    bool operator==(const iterator &Other) const { return At == Other.At; }

  private:
    const DimList *List;
    size_t At;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size()); }

private:
  /// Room a block has for Count dimensions: derived from the count, so that the word holds nothing else.
  static size_t capacityFor(size_t Count) { return size_t(llvm::PowerOf2Ceil(Count)); }
  bool isBlock() const { return Word != 0 && !(Word & 1); }
  const uint64_t *block() const { return reinterpret_cast<const uint64_t *>(Word); }
  void freeBlock() {
    if (isBlock())
      delete[] reinterpret_cast<uint64_t *>(Word);
    Word = 0;
  }
  uintptr_t Word = 0;
};
static_assert(sizeof(DimList) == 8, "DimList is a per-parameter cost: one word");

/// One parameter (or return value) of a function, kernel or call prototype, as declared. A link holds one
/// per parameter of every function of every module (a third of its heap at 3000 modules), so it is kept in
/// 48 bytes: its type as a ptxTypeId, its name as a pointer and a 32-bit length, the fields ordered
/// without padding between them.
struct ParamInfo {
  DimList ArrayDims;
  Loc Where;
  uint32_t Align = 0;                   // explicit .align, 0 = none given
  uint32_t PtrAlign = 0;
  StateSpace Space = StateSpace::Param; // Reg or Param
  uint8_t VectorWidth = 0;              // 0 = scalar, else 2/4/8
  bool UnsizedArray = false;            // trailing `[]` (last dimension unsized)
  bool IsPtr = false;                   // `.ptr` attribute present
  StateSpace PtrSpace = StateSpace::None;

  /// ".b32" etc; empty while none is given.
  llvm::StringRef type() const { return ptxTypeName(TypeId); }
  bool hasType() const { return TypeId != 0; }
  /// False (and no type) for a spelling that is no PTX type: the parser only offers types, a reader must
  /// say what it found.
  bool setType(llvm::StringRef Type) {
    TypeId = ptxTypeId(Type);
    return TypeId != 0;
  }
  bool sameType(const ParamInfo &Other) const { return TypeId == Other.TypeId; }
  /// typeSizeBytes(type()).
  unsigned typeBytes() const { return ptxTypeBytes(TypeId); }
  /// The type as its ptxTypeId, for a reader that remembers the ids of the spellings it has looked up.
  uint8_t typeId() const { return TypeId; }
  void setTypeId(uint8_t Id) { TypeId = Id; }
  /// As written ("_" for the .callprototype sink); empty for an unnamed one.
  llvm::StringRef name() const { return {NameData, NameSize}; }
  void setName(llvm::StringRef Name) {
    assert(Name.size() <= UINT32_MAX && "a parameter name is at most 4 GB");
    NameData = Name.data();
    NameSize = static_cast<uint32_t>(Name.size());
  }

  /// Bytes this parameter occupies (element size x vector width x array product).
  uint64_t sizeBytes() const;
  /// Alignment the ABI uses: explicit .align, else the element size.
  uint32_t effectiveAlign() const;

private:
  const char *NameData = nullptr;
  uint32_t NameSize = 0;
  uint8_t TypeId = 0;
};
static_assert(sizeof(ParamInfo) == 48, "ParamInfo is a per-parameter cost: keep it without padding");

/// Parameter lists and attribute strings of signatures: SmallVector<T, 0> (16 bytes) rather than
/// std::vector (24); a function's signature holds three.
using ParamList = llvm::SmallVector<ParamInfo, 0>;
using StringList = llvm::SmallVector<llvm::StringRef, 0>;

/// Kernel tuning and cluster directives, the `.abi_preserve` counts and `.attribute(...)`s (as rare);
/// absent values are std::nullopt.
struct TuningInfo {
  std::optional<uint32_t> MaxNReg;
  std::optional<std::array<uint32_t, 3>> MaxNTid, ReqNTid, ReqNCtaPerCluster;
  std::optional<uint32_t> MinNCtaPerSm, MaxNCtaPerSm, MaxClusterRank;
  bool ExplicitCluster = false;
  bool BlocksAreClusters = false;
  std::vector<llvm::StringRef> Pragmas; // `.pragma "..."` strings attached to the function
  std::optional<uint32_t> AbiPreserve;        // `.abi_preserve N`
  std::optional<uint32_t> AbiPreserveControl; // `.abi_preserve_control N`
  StringList Attributes; // `.attribute(...)` contents, e.g. ".unified(...)"

  bool empty() const {
    return !MaxNReg && !MaxNTid && !ReqNTid && !ReqNCtaPerCluster && !MinNCtaPerSm && !MaxNCtaPerSm &&
           !MaxClusterRank && !ExplicitCluster && !BlocksAreClusters && Pragmas.empty() && !AbiPreserve &&
           !AbiPreserveControl && Attributes.empty();
  }
};

/// The rare parts of a function's ABI record, kept out of line in ModuleVariant::FunctionExtras: nearly
/// every function has none of them (inline, the tuning directives alone were half of a 224-byte record).
struct FunctionExtra {
  TuningInfo Tuning;
  /// The record's place when it is not its symbol's (ModuleVariant::functionWhere): an alias declared as a
  /// function before its `.alias` directive (the symbol's place is the directive), or an object that says
  /// so. Kept as read, so that an object written again is the same bytes.
  std::optional<Loc> Where;
};

constexpr uint32_t NoExtra = ~0u;

/// The most return values and parameters a function's ABI record holds (FunctionAbi's bit-fields). PTX
/// functions return at most one value in practice (ptxas takes one) and take at most a few thousand
/// parameters (a kernel's parameter space is 32 KB); the parser and the object reader refuse more.
constexpr uint32_t MaxFunctionReturns = (1u << 8) - 1;
constexpr uint32_t MaxFunctionParams = (1u << 21) - 1;

/// Structured signature of a function or kernel (also of declarations seen only as .extern). 16 bytes: a
/// module of 10^6 small functions holds one per function, and every tool holds all of them. So the record holds indexes only, into tables of the variant it belongs to:
///  - its return values and parameters are ModuleVariant::Params[ParamBegin, +ReturnCount) and then
///    ParamCount more, read with V.returns(F) / V.params(F) (most functions have neither: no heap block);
///  - its tuning directives, `.abi_preserve` counts and `.attribute`s, and its place when that is not its
///    symbol's, are ModuleVariant::FunctionExtras[Extra] (NoExtra for nearly every function), read with
///    V.tuning(F) and V.functionWhere(F);
///  - its place is otherwise its symbol's Where (the defining, else first declaring, directive: the one
///    this record was made from).
/// The indexes belong to the variant the record is in: a record copied into another variant is copied with
/// V.copyFunction, which copies its lists and extras too.
/// The two counts and the three flags share one 32-bit field (MaxFunctionReturns, MaxFunctionParams).
struct FunctionAbi {
  uint32_t Symbol = NoSymbol;
  uint32_t ParamBegin = 0;
  uint32_t Extra = NoExtra;
  uint32_t ReturnCount : 8 = 0;
  uint32_t ParamCount : 21 = 0;
  bool IsKernel : 1 = false;
  bool HasBody : 1 = false;
  bool NoReturn : 1 = false;
};
static_assert(sizeof(FunctionAbi) == 16, "FunctionAbi is 16 bytes: a module of 10^6 functions holds one per function");

/// A function's signature as its variant holds it, in one piece (compareFunctionAbi, the printers): the
/// lists and the tuning directives read through the record's indexes. Valid while the variant's tables are
/// not changed.
struct FunctionSignature {
  llvm::ArrayRef<ParamInfo> Returns, Params;
  const TuningInfo *Tuning = nullptr; // never null in a signature made by ModuleVariant::signature
  bool IsKernel = false;
  bool NoReturn = false;
};

/// A `.callprototype` label inside a function: the signature of indirect calls made through it.
struct PrototypeAbi {
  llvm::StringRef Label;
  uint32_t Function = NoSymbol; // the function whose body declares it
  ParamList Returns;
  ParamList Params;
  bool NoReturn = false;
  std::optional<uint32_t> AbiPreserve, AbiPreserveControl;
  /// Functions named in `.calltargets` lists attached to calls through this prototype.
  std::vector<uint32_t> CallTargets;
  Loc Where;
};

/// Layout of a module-scope variable (also of .extern declarations). One per variable and declaration of
/// every module: the fields are ordered without padding between them.
struct VariableAbi {
  llvm::StringRef Type;
  StringList Attributes; // `.attribute(.managed)` etc
  DimList ArrayDims;
  Loc Where;
  uint32_t Symbol = NoSymbol;
  uint32_t Align = 0; // explicit .align, 0 = none
  StateSpace Space = StateSpace::Global;
  uint8_t VectorWidth = 0;
  bool UnsizedArray = false;
  bool Initialized = false;
};
static_assert(sizeof(VariableAbi) == 64, "VariableAbi is a per-variable cost: keep it without padding");

/// `.file N "name" [, timestamp, size]`
struct FileEntry {
  uint32_t Index = 0;
  llvm::StringRef Path;
  std::optional<uint64_t> Timestamp, Size;
};

/// What `.version`, `.target` and `.address_size` said.
struct TargetInfo {
  llvm::StringRef Arch;          // canonical: "sm_90a" (compute_XX is mapped to sm_XX; sm_101 to sm_110)
  /// Other .target entries as written: "debug", "texmode_independent", ... (16 bytes where a std::vector
  /// takes 24: every variant holds one, and a link holds a variant per input).
  llvm::SmallVector<llvm::StringRef, 0> Options;
  llvm::StringRef Texmode;       // "", "texmode_unified" or "texmode_independent"
  uint32_t VersionMajor = 0, VersionMinor = 0;
  uint32_t AddressSize = 64;     // default when .address_size is absent is 32 in the spec? see docs
  bool Debug = false;
  bool MapF64ToF32 = false;
  bool AddressSizeGiven = false;
  /// The variant is SASS known by its symbol table (a link's view of an input's cubin, never written to an
  /// object): usable for its own arch only, its code given to nvlink as it is.
  bool SassOnly = false;
};

/// One module compiled for one target. A plain object has one; a fat object several.
/// Whether Records (FunctionAbi or VariableAbi) are in strictly increasing symbol order, as the assembler
/// and our writer make them: then bySymbol finds a symbol's record without a per-symbol index (4 bytes per
/// symbol saved in the lowering and the link).
template <typename Records> bool inSymbolOrder(const Records &R) {
  return std::adjacent_find(R.begin(), R.end(), [](const auto &A, const auto &B) { return A.Symbol >= B.Symbol; }) ==
         R.end();
}
/// Symbol's record in R (inSymbolOrder), or null; const if R is.
template <typename Records> auto bySymbol(Records &R, uint32_t Symbol) -> decltype(&*R.begin()) {
  auto It = std::partition_point(R.begin(), R.end(), [&](const auto &Rec) { return Rec.Symbol < Symbol; });
  return It != R.end() && It->Symbol == Symbol ? &*It : nullptr;
}

/// A part of a ModuleVariant that most modules leave empty: one pointer until it is made on first use
/// (make()); a copy of the variant copies it.
template <typename T> class OnFirstUse {
public:
  OnFirstUse() = default;
  OnFirstUse(const OnFirstUse &O) : P(O.P ? std::make_unique<T>(*O.P) : nullptr) {}
  OnFirstUse &operator=(const OnFirstUse &O) {
    if (this != &O)
      P = O.P ? std::make_unique<T>(*O.P) : nullptr;
    return *this;
  }
  OnFirstUse(OnFirstUse &&) = default;
  OnFirstUse &operator=(OnFirstUse &&) = default;
  /// Null until made.
  const T *get() const { return P.get(); }
  T &make() {
    if (!P)
      P = std::make_unique<T>();
    return *P;
  }

private:
  std::unique_ptr<T> P;
};

/// The tables of a ModuleVariant: 16 bytes each where a std::vector takes 24. A variant has thirteen, most
/// of them empty in most modules, and a link holds one variant per input (10^5 of them in one link).
template <typename T> using ModelTable = llvm::SmallVector<T, 0>;

struct ModuleVariant {
  llvm::StringRef SourceName; // the PTX file it came from, for diagnostics
  TargetInfo Target;
  ModelTable<Section> Sections;  // in source order; the printer keeps that order within a kind
  /// Every section's relocations, section by section in the order of Sections, each section's sorted by
  /// Offset (Section::RelocBegin/RelocCount; read with relocs(S), fill with appendRelocs or
  /// startRelocs/endRelocs).
  ModelTable<Relocation> Relocs;
  ModelTable<Symbol> Symbols;    // index 0 is a real symbol (no ELF null entry here)
  ModelTable<FunctionAbi> Functions;
  /// Every function's return values then parameters, record by record (FunctionAbi::ParamBegin; read with
  /// returns(F) / params(F), fill with appendSignature or copyFunction).
  ModelTable<ParamInfo> Params;
  ModelTable<VariableAbi> Variables;
  /// Linked modules only: the input each section came from ("a.ptx", or "a.ptx (libx.a(a.o))"), so a
  /// message about a line of the printed module (ptxas's) can name the input's file:line; read with
  /// sectionSource(I), set with setSectionSource. Runs of sections in index order, a run per change of
  /// input: one input's sections are consecutive in a linked module, and a name per section cost 16
  /// bytes per kept function. Empty in an assembled or read module, whose sections
  /// all come from SourceName. Not written to objects.
  struct SectionSourceRun {
    uint32_t FirstSection; // the run's first section; it lasts until the next run's
    llvm::StringRef Source;
  };
  /// Replacements the printer makes in sections' text besides relocations, sorted by (Section, Offset):
  /// a link's call sites made to agree with their callee (LinkCallSites.cpp). Never written to objects.
  struct TextEdit {
    uint32_t Section = 0, Offset = 0, Length = 0;
    std::string Replacement;
  };
  /// The tables that only some modules fill: a one-function module leaves every one empty, and a link
  /// holds a variant per input (10^5 of them in one link), so they are made together on first use
  /// (rare()) and cost such a module one pointer. Read them with functionExtras(), prototypes(), files(),
  /// sectionSources(), textEdits(), sectionLabels() and aliases().
  struct RareTables {
    /// The rare parts of function records (FunctionAbi::Extra; read with tuning(F) / functionWhere(F)).
    ModelTable<FunctionExtra> FunctionExtras;
    ModelTable<PrototypeAbi> Prototypes;
    ModelTable<FileEntry> Files;
    ModelTable<SectionSourceRun> SectionSources;
    ModelTable<TextEdit> TextEdits;
    /// Names and places of the sections that do not take them from their symbol (Section::Label).
    ModelTable<SectionLabel> SectionLabels;
    /// Symbol index -> aliasee index for the `.alias` names (read with aliasOf, set with setAliasOf).
    llvm::DenseMap<uint32_t, uint32_t> Aliases;
  };
  OnFirstUse<RareTables> Rare;
  /// The rare tables, made on first use (for filling them in or changing them).
  RareTables &rare() { return Rare.make(); }
  llvm::ArrayRef<FunctionExtra> functionExtras() const { return rareTable(&RareTables::FunctionExtras); }
  llvm::ArrayRef<PrototypeAbi> prototypes() const { return rareTable(&RareTables::Prototypes); }
  llvm::ArrayRef<FileEntry> files() const { return rareTable(&RareTables::Files); }
  llvm::ArrayRef<SectionSourceRun> sectionSources() const { return rareTable(&RareTables::SectionSources); }
  llvm::ArrayRef<TextEdit> textEdits() const { return rareTable(&RareTables::TextEdits); }
  llvm::ArrayRef<SectionLabel> sectionLabels() const { return rareTable(&RareTables::SectionLabels); }
  /// The ODR hash (odrHash(), OdrHash.h) of a section that defines a Weak symbol: recorded by the
  /// assembler (and by a link that writes an object), so that the resolver compares weak copies by these
  /// numbers instead of reading their text. Read with odrHashOf(Section).
  struct OdrHashEntry {
    uint32_t Section = 0;
    uint64_t Hash = 0;
  };
  /// A label a function section defines (`name:` at the start of a statement) that is not a Label
  /// symbol's own definition (those are the symbol's Section and value()): its name is the bytes
  /// [Offset, Offset + Length) of the section's contents. Recorded by the body scanner, so that a link
  /// learns which names a kept function defines as labels (ptxas looks a debug section's label up among
  /// every function's) without reading the text again (EmitModule.cpp).
  struct PlainLabel {
    uint32_t Section = 0;
    uint32_t Offset = 0;
    uint32_t Length = 0;
  };
  /// Facts recorded at assembly about some sections only, each table sorted by section (labels by
  /// section, then offset). Most modules have none (no weak definition, no label: 10^5 one-function
  /// modules in one link), so the tables are made on first use (facts()) and cost such a module one
  /// pointer.
  struct SectionFacts {
    ModelTable<OdrHashEntry> OdrHashes;
    ModelTable<PlainLabel> PlainLabels;
    /// Each plain label's name hashed (plainLabelNameHash), in the order of PlainLabels, where a link has
    /// given the text back after reading it (the linker's InputTextPages); else empty.
    ModelTable<uint64_t> PlainLabelHashes;
  };
  OnFirstUse<SectionFacts> Facts;
  /// The tables, made on first use (for filling them in).
  SectionFacts &facts() { return Facts.make(); }
  llvm::ArrayRef<OdrHashEntry> odrHashes() const {
    return Facts.get() ? llvm::ArrayRef<OdrHashEntry>(Facts.get()->OdrHashes) : llvm::ArrayRef<OdrHashEntry>();
  }
  llvm::ArrayRef<PlainLabel> plainLabels() const {
    return Facts.get() ? llvm::ArrayRef<PlainLabel>(Facts.get()->PlainLabels) : llvm::ArrayRef<PlainLabel>();
  }
  /// The name of a recorded label L.
  llvm::StringRef plainLabelName(const PlainLabel &L) const {
    return Sections[L.Section].contents().substr(L.Offset, L.Length);
  }
  /// The hashes of the plain labels' names kept apart from the text (SectionFacts::PlainLabelHashes).
  llvm::ArrayRef<uint64_t> plainLabelHashes() const {
    return Facts.get() ? llvm::ArrayRef<uint64_t>(Facts.get()->PlainLabelHashes) : llvm::ArrayRef<uint64_t>();
  }
  /// The hash a label's name has in PlainLabelHashes (XXH3-64, the project's one xxHash: NameIndex.h).
  static uint64_t plainLabelNameHash(llvm::StringRef Name);

  /// S's name: ".debug_info" etc. for debug sections, empty for module text, else its symbol's name.
  llvm::StringRef sectionName(const Section &S) const {
    if (S.Label != NoLabel)
      return sectionLabels()[S.Label].Name;
    return S.Symbol < Symbols.size() ? Symbols[S.Symbol].name() : llvm::StringRef();
  }
  llvm::StringRef sectionName(size_t Index) const { return sectionName(Sections[Index]); }
  /// Where S's text starts in SourceName (for functions and variables: its symbol's defining directive).
  Loc sectionWhere(const Section &S) const {
    if (S.Label != NoLabel)
      return sectionLabels()[S.Label].Where;
    return S.Symbol < Symbols.size() ? Symbols[S.Symbol].Where : Loc();
  }
  Loc sectionWhere(size_t Index) const { return sectionWhere(Sections[Index]); }
  /// The input section Index came from (SectionSources); empty if none was set (several inputs', or an
  /// assembled or read module).
  llvm::StringRef sectionSource(size_t Index) const {
    llvm::ArrayRef<SectionSourceRun> Runs = sectionSources();
    auto It = std::upper_bound(Runs.begin(), Runs.end(), Index,
                               [](size_t I, const SectionSourceRun &R) { return I < R.FirstSection; });
    return It == Runs.begin() ? llvm::StringRef() : std::prev(It)->Source;
  }
  /// Sets the input of section Index, which must be at least every section given one before (sections
  /// are given their inputs in index order); the sections between keep the previous run's input.
  void setSectionSource(size_t Index, llvm::StringRef Source) {
    ModelTable<SectionSourceRun> &Runs = rare().SectionSources;
    assert((Runs.empty() || Index >= Runs.back().FirstSection) && "sources out of order");
    // The same view is the same input (a linked module's sources are its inputs' names): no memcmp.
    if (Runs.empty() || Runs.back().Source.data() != Source.data() || Runs.back().Source.size() != Source.size())
      Runs.push_back({uint32_t(Index), Source});
  }
  /// Gives S (a section of this variant whose Symbol is already set) the name Name and place Where: none
  /// of its own when they are its symbol's, else an entry of SectionLabels. The symbol's name and place
  /// must not change afterwards.
  /// Returns false, leaving S unlabelled (NoLabel), when the variant already labels MaxSectionLabels
  /// sections: the caller reports that with its place.
  [[nodiscard]] bool labelSection(Section &S, llvm::StringRef Name, Loc Where) {
    if (S.Symbol < Symbols.size()) {
      const Symbol &Sym = Symbols[S.Symbol];
      // Usually the very same bytes (the lowering and emit pass the symbol's name; in an object both
      // records name one string of the table): no memcmp then.
      const bool SameName = Sym.name().size() == Name.size() && (Sym.name().data() == Name.data() || Sym.name() == Name);
      if (SameName && Sym.Where.Line == Where.Line && Sym.Where.Column == Where.Column) {
        S.Label = NoLabel;
        return true;
      }
    }
    S.Label = NoLabel;
    if (sectionLabels().size() >= MaxSectionLabels)
      return false;
    ModelTable<SectionLabel> &Labels = rare().SectionLabels;
    S.Label = static_cast<uint32_t>(Labels.size());
    Labels.push_back({Name, Where});
    return true;
  }

  /// The aliasee of symbol Index (an `.alias` name), or NoSymbol: a side table, since aliases are rare
  /// (Symbol).
  /// (The symbol's hint inline, the look-up out of line: the resolver and mark-live ask for every
  /// symbol.)
  uint32_t aliasOf(uint32_t Index) const {
    return Index < Symbols.size() && Symbols[Index].MaybeAlias ? findAlias(Index) : NoSymbol;
  }
  /// Makes symbol Index (one of Symbols) an alias of Target (NoSymbol: no alias).
  void setAliasOf(uint32_t Index, uint32_t Target);
  /// The whole alias table (symbol index -> aliasee index), for walks over the aliases alone.
  const llvm::DenseMap<uint32_t, uint32_t> &aliases() const {
    static const llvm::DenseMap<uint32_t, uint32_t> None;
    return Rare.get() ? Rare.get()->Aliases : None;
  }

  /// The aliasee of symbol Index in a non-empty alias table, or NoSymbol (aliasOf).
  uint32_t findAlias(uint32_t Index) const;

  /// Index of the symbol called Name, or NoSymbol. Linear; build a map for repeated lookups.
  uint32_t findSymbol(llvm::StringRef Name) const;

  /// The recorded ODR hash of section Index (OdrHashes), or nothing if none was recorded (it defines no
  /// Weak symbol).
  std::optional<uint64_t> odrHashOf(uint32_t Index) const {
    llvm::ArrayRef<OdrHashEntry> Hashes = odrHashes();
    auto It = std::partition_point(Hashes.begin(), Hashes.end(),
                                   [&](const OdrHashEntry &E) { return E.Section < Index; });
    if (It == Hashes.end() || It->Section != Index)
      return std::nullopt;
    return It->Hash;
  }

  /// S's relocations (S one of this variant's sections).
  llvm::ArrayRef<Relocation> relocs(const Section &S) const {
    assert(size_t(S.RelocBegin) + S.RelocCount <= Relocs.size() && "a section of another variant?");
    return llvm::ArrayRef<Relocation>(Relocs.data() + S.RelocBegin, S.RelocCount);
  }
  llvm::MutableArrayRef<Relocation> relocs(const Section &S) {
    assert(size_t(S.RelocBegin) + S.RelocCount <= Relocs.size() && "a section of another variant?");
    return llvm::MutableArrayRef<Relocation>(Relocs.data() + S.RelocBegin, S.RelocCount);
  }
  /// Gives S (which has none yet) the relocations Rs, placed at the end of Relocs: call it section by
  /// section in order. Rs must be sorted by Offset.
  void appendRelocs(Section &S, llvm::ArrayRef<Relocation> Rs) {
    startRelocs(S);
    Relocs.insert(Relocs.end(), Rs.begin(), Rs.end());
    S.RelocCount = static_cast<uint32_t>(Rs.size());
  }
  /// For producers that push relocations onto Relocs themselves: startRelocs(S), push_back..., then
  /// endRelocs(S) (section by section, in order).
  void startRelocs(Section &S) {
    S.RelocBegin = static_cast<uint32_t>(Relocs.size());
    S.RelocCount = 0;
  }
  void endRelocs(Section &S) { S.RelocCount = static_cast<uint32_t>(Relocs.size() - S.RelocBegin); }
  /// True if the table can take N more relocations (section positions are 32-bit).
  bool relocsFit(uint64_t N) const { return Relocs.size() + N <= UINT32_MAX; }

  /// F's return values and parameters (F one of this variant's records).
  llvm::ArrayRef<ParamInfo> returns(const FunctionAbi &F) const {
    assert(uint64_t(F.ParamBegin) + F.ReturnCount + F.ParamCount <= Params.size() && "a record of another variant?");
    return llvm::ArrayRef<ParamInfo>(Params.data() + F.ParamBegin, F.ReturnCount);
  }
  llvm::ArrayRef<ParamInfo> params(const FunctionAbi &F) const {
    assert(uint64_t(F.ParamBegin) + F.ReturnCount + F.ParamCount <= Params.size() && "a record of another variant?");
    return llvm::ArrayRef<ParamInfo>(Params.data() + F.ParamBegin + F.ReturnCount, F.ParamCount);
  }
  /// Gives F (which has none yet) the lists Returns and Params, copied to the end of the table.
  void appendSignature(FunctionAbi &F, llvm::ArrayRef<ParamInfo> Returns, llvm::ArrayRef<ParamInfo> Ps) {
    assert(Returns.size() <= MaxFunctionReturns && Ps.size() <= MaxFunctionParams &&
           "the lists come from a record, whose producer refused longer ones");
    F.ParamBegin = static_cast<uint32_t>(Params.size());
    F.ReturnCount = static_cast<uint32_t>(Returns.size());
    F.ParamCount = static_cast<uint32_t>(Ps.size());
    Params.insert(Params.end(), Returns.begin(), Returns.end());
    Params.insert(Params.end(), Ps.begin(), Ps.end());
  }
  /// True if the table can take N more parameters (record positions are 32-bit).
  bool paramsFit(uint64_t N) const { return Params.size() + N <= UINT32_MAX; }

  /// F's tuning directives, `.abi_preserve` counts and `.attribute`s (an empty TuningInfo when it has none).
  const TuningInfo &tuning(const FunctionAbi &F) const {
    // A record with an extra is in a variant whose rare tables were made (extra()).
    return F.Extra == NoExtra ? noTuning() : Rare.get()->FunctionExtras[F.Extra].Tuning;
  }
  /// For filling in F's tuning (gives F an entry of FunctionExtras on first use).
  TuningInfo &editTuning(FunctionAbi &F) { return extra(F).Tuning; }
  /// F's rare parts, made on first use.
  FunctionExtra &extra(FunctionAbi &F) {
    ModelTable<FunctionExtra> &Extras = rare().FunctionExtras;
    if (F.Extra == NoExtra) {
      F.Extra = static_cast<uint32_t>(Extras.size());
      Extras.emplace_back();
    }
    return Extras[F.Extra];
  }
  /// Where F was declared: its own place if it has one (FunctionExtra::Where), else its symbol's.
  Loc functionWhere(const FunctionAbi &F) const {
    if (F.Extra != NoExtra && Rare.get()->FunctionExtras[F.Extra].Where)
      return *Rare.get()->FunctionExtras[F.Extra].Where;
    return F.Symbol < Symbols.size() ? Symbols[F.Symbol].Where : Loc();
  }
  /// Gives F (whose Symbol is set) the place Where: nothing of its own when it is its symbol's. The symbol's
  /// place must not change afterwards (or call pinFunctionWhere first).
  void setFunctionWhere(FunctionAbi &F, Loc Where) {
    Loc Implied = F.Symbol < Symbols.size() ? Symbols[F.Symbol].Where : Loc();
    if (Implied.Line == Where.Line && Implied.Column == Where.Column) {
      if (F.Extra != NoExtra)
        rare().FunctionExtras[F.Extra].Where.reset();
      return;
    }
    extra(F).Where = Where;
  }
  /// Keeps F's current place as its own, before its symbol's place changes.
  void pinFunctionWhere(FunctionAbi &F) {
    Loc Where = functionWhere(F);
    extra(F).Where = Where;
  }
  /// F's signature in one piece.
  FunctionSignature signature(const FunctionAbi &F) const {
    return {returns(F), params(F), &tuning(F), F.IsKernel, F.NoReturn};
  }
  /// Appends to Functions a copy of From's record F (lists, tuning and place) for this variant's symbol
  /// Symbol (whose place is already set); returns it.
  FunctionAbi &copyFunction(const ModuleVariant &From, const FunctionAbi &F, uint32_t Symbol);

private:
  static const TuningInfo &noTuning() {
    static const TuningInfo None;
    return None;
  }
  template <typename T> llvm::ArrayRef<T> rareTable(ModelTable<T> RareTables::*Table) const {
    return Rare.get() ? llvm::ArrayRef<T>(Rare.get()->*Table) : llvm::ArrayRef<T>();
  }
};

/// A relocatable object: one or more variants of one module, plus the storage their strings live in.
class ObjectFile {
public:
  ObjectFile() = default;
  ObjectFile(ObjectFile &&) = delete; // views point into Arena; keep objects behind unique_ptr

  /// Usually one (a plain object), held inline: a heap block of its own per input cost a link of 10^5
  /// one-function modules its header and rounding.
  llvm::SmallVector<ModuleVariant, 1> Variants;

  /// Copies Text into the object's arena; the result lives as long as the object.
  llvm::StringRef save(llvm::StringRef Text) {
    char *Copy = arena().Allocate<char>(Text.size() + 1);
    if (!Text.empty())
      std::memcpy(Copy, Text.data(), Text.size());
    Copy[Text.size()] = '\0';
    return llvm::StringRef(Copy, Text.size());
  }
  /// The same without the NUL that save() appends: for copies of names (a large input's symbol names,
  /// 10^6 of them), which are read as StringRefs only, as the views into PTX text they replace are.
  llvm::StringRef saveName(llvm::StringRef Name) {
    if (Name.empty())
      return {};
    char *Copy = arena().Allocate<char>(Name.size());
    std::memcpy(Copy, Name.data(), Name.size());
    return llvm::StringRef(Copy, Name.size());
  }
  /// Keeps a buffer alive for as long as the object (readers point into it).
  void adopt(std::unique_ptr<llvm::MemoryBuffer> Buffer) { Buffers.push_back(std::move(Buffer)); }
  /// If Range lies inside one of the adopted buffers and that buffer is a read-only file mapping, gives
  /// the kernel back the whole pages of Range (releaseMappedPages): a writer that has copied section
  /// contents out of a large input calls this behind itself. Anything else is left alone.
  void releaseSourcePages(llvm::StringRef Range) const;
  /// The same through Into, which gives the pages back together with other ranges (ProcessMemory.h).
  void releaseSourcePages(llvm::StringRef Range, PageDiscarder &Into) const;
  /// The adopted buffer that holds all of Range, if it is a read-only file mapping; else null.
  const llvm::MemoryBuffer *fileMappingHolding(llvm::StringRef Range) const;
  /// The bytes of the adopted buffers that are file mappings, the ones releaseSourcePages can give back:
  /// a pass decides by this whether giving text back behind itself is worth its cost.
  uint64_t mappedBytes() const;
  /// The arena's first slabs are small (a one-function module saves a file name and an arch: 4 KB
  /// slabs were most of what each of 10^5 such modules cost a link) and double every eight slabs, so a
  /// large module still takes few of them.
  using Allocator = llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 256, 256, 8>;
  /// Made on first use: a small PTX input assembled in a link saves nothing (its names, file name and arch
  /// point into its text and buffer), and the allocator's own 96 bytes were a per-module cost.
  Allocator &arena() {
    if (!Arena)
      Arena = std::make_unique<Allocator>();
    return *Arena;
  }

private:
  std::unique_ptr<Allocator> Arena;
  llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>, 1> Buffers; // usually one: no allocation of its own
};

} // namespace ptxlink
