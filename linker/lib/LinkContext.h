// The linker's internal data model, shared by its passes (linker/lib/*.cpp) and its unit tests.
//
// The problem: one link has many inputs and, per requested GPU architecture, one selected module variant
// per input. Each pass needs the same view of "module m, symbol s" and of the one global symbol per
// name, so it lives here: InputFile (what was read), SymbolTable (one arch's selected modules and its
// symbol table, which the passes of LinkPasses.h fill in turn), and the timing table.
#pragma once

#include "ArchiveExtraction.h"
#include "ptxlink/Diagnostics.h"
#include "ptxlink/Linker.h"
#include "ptxlink/Fatbin.h"
#include "ptxlink/ObjectModel.h"
#include "ptxlink/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

// ---- architectures (SelectVariants.cpp) ----

/// A target name the linker knows (Target::parse, and a target minPtxVersion knows); std::nullopt else.
/// Which variant may be linked for which target is Target::ptxUsableFor.
std::optional<Target> parseArch(llvm::StringRef Name);
/// How good a usable variant is for Requested (higher is better): exact > family > highest plain.
unsigned variantScore(const Target &Variant, const Target &Requested);
/// The one of N candidates whose PTX a link for Requested takes: usable for it (Target::ptxUsableFor), the
/// highest variantScore, the first among equals; -1 for none. TargetOf(I) is candidate I's target, or
/// std::nullopt for one that cannot serve. selectVariant chooses among an object's variants with it, and
/// ptxImagesToRead among a fatbinary's PTX images before they are read.
template <typename TargetOfFn> int bestForTarget(size_t N, const Target &Requested, TargetOfFn TargetOf) {
  int Best = -1;
  unsigned BestScore = 0;
  for (size_t I = 0; I < N; ++I) {
    std::optional<Target> T = TargetOf(I);
    if (!T || !T->ptxUsableFor(Requested))
      continue;
    if (unsigned Score = variantScore(*T, Requested); Score > BestScore) { // strict: the first among equals
      Best = static_cast<int>(I);
      BestScore = Score;
    }
  }
  return Best;
}
/// The PTX ISA version that introduced the target (seed target table); std::nullopt if unknown.
std::optional<std::pair<unsigned, unsigned>> minPtxVersion(const Target &Arch);
/// Index of the best variant of Object for Requested, or -1 if none is usable.
int selectVariant(const ObjectFile &Object, const Target &Requested);

// ---- inputs (LinkInputs.cpp) ----

/// An error about an input as a whole (no source location), with its --json code (LinkInputs.cpp).
Diagnostic toolError(const llvm::Twine &Message, llvm::StringRef Code);

/// What a host object made by `nvcc -rdc=true -c` brought besides its PTX (HostInputs.cpp); or a
/// relocatable fatbinary given as an input (`nvcc -fatbin -rdc=true`, FatbinInput), which has the same
/// device code and no host code.
struct HostOrigin {
  std::string ModuleId;                  // the <id> of __cudaRegisterLinkedBinary<id> (empty: a fatbinary input)
  bool FatbinInput = false;              // a fatbinary input: no host code, no module id to register
  bool CubinInput = false;               // a relocatable cubin input (CubinInputs.h): SASS only, in Sass
  std::vector<std::string> CubinArches;  // arches it has SASS for (its PTX variants are the Object's)
  bool SassVariants = false;             // some of its variants are its SASS (addSassVariants, CubinInputs.h)
  std::vector<std::string> LtoIrArches;  // arches it has LTO-IR for (nvcc -dlto), PTX or not
  llvm::StringRef ObjectBytes;           // the whole host object (or fatbinary), for nvJitLink (-dlto); lives as the input
  /// Sorted: the device names its host code may register by name (HostDeviceCode::RegisteredNames).
  std::vector<std::string> RegisteredNames;
  /// Whether a name may be looked up by name at run time. A fatbinary input's user loads it through the
  /// driver API (cuModuleGetFunction): any name but those CUDA's headers and nvcc make (`__cudart_*`
  /// tables, `$str` constants), as for a PTX input.
  bool registers(llvm::StringRef Name) const {
    if (FatbinInput)
      return !Name.starts_with("__cudart_") && !Name.contains('$');
    return std::binary_search(RegisteredNames.begin(), RegisteredNames.end(), Name,
                              [](llvm::StringRef A, llvm::StringRef B) { return A < B; });
  }
  std::vector<FatbinImage> Sass;         // its cubins as stored (payload maybe compressed), one per CubinArches
  /// Per PTX variant read (the Object's first variants, in order): the options its fatbinary entry hands
  /// the driver's JIT compile, as nvcc recorded them ("--compile-only  -maxrregcount=32"; JitOptions.cpp).
  std::vector<std::string> PtxJitOptions;
};

struct InputFile {
  std::string Name; // display name: "b.o", "b.ptx", "libm.a(x.o)"
  std::unique_ptr<ObjectFile> Object;
  /// Set for nvcc host objects. Boxed: most inputs have none, and an InputFile is a per-module cost
  /// (10^5 modules in one link).
  std::unique_ptr<HostOrigin> Host;
};

/// The arches whose PTX a link reads from nvcc objects and fatbinaries (ptxImagesToRead): -arch's, or none
/// (every image) for a link whose arches come from the inputs (no -arch, -arch=all, all-major).
std::vector<Target> ptxArchesToRead(const LinkOptions &Options);
/// Which of an nvcc object's images a link for Arches assembles: per arch, the PTX image selectVariant
/// would take, judged by the images' headers (an object carries each arch's PTX, ~1 MB apiece with
/// curand's tables, and a one-arch link of three-arch objects read all three). Every PTX image where
/// Arches is empty, where an image's arch cannot be read, or where no image serves one of Arches (the
/// link then names them all in its error).
std::vector<bool> ptxImagesToRead(llvm::ArrayRef<FatbinImage> Images, llvm::ArrayRef<Target> Arches);
/// Reads the device code of an nvcc host object (HostInputs.cpp): each PTX image of its relocatable
/// fatbinary that a link for Arches reads (ptxImagesToRead) is assembled as one variant of a fat object.
/// Returns null with nothing added to Problems for a host object without relocatable device code (it
/// passes through the device link untouched).
std::unique_ptr<ObjectFile> hostObjectFromBuffer(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef DisplayName,
                                                 std::optional<HostOrigin> &Host, std::vector<Diagnostic> &Problems,
                                                 DecompressionBudget &Budget, llvm::ArrayRef<Target> Arches);
/// Reads a fatbinary given as an input (`nvcc -fatbin -rdc=true`) as an nvcc object's device code: its PTX
/// images as variants (those a link for Arches reads), its cubins in Host->Sass (FatbinInput set, no
/// module id).
std::unique_ptr<ObjectFile> fatbinObjectFromBuffer(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef DisplayName,
                                                   std::optional<HostOrigin> &Host, std::vector<Diagnostic> &Problems,
                                                   DecompressionBudget &Budget, llvm::ArrayRef<Target> Arches);
/// Writes the callee's declared parameter alignment at each direct call of Out whose own declaration of
/// the argument or return value gives another (clang's `.align 8` for nvcc's `.align 16`), as text edits
/// the printer applies: ptxas refuses the difference within one module (LinkCallSites.cpp).
/// DefinitionOf gives an output function symbol's definition: the input module and its ABI record.
using CalleeAbi = std::pair<const ModuleVariant *, const FunctionAbi *>;
void alignCallSiteParams(ModuleVariant &Out, llvm::function_ref<CalleeAbi(uint32_t)> DefinitionOf);
/// Why an input file gave the link no module (a plain host object, `nvcc -c`'s, clang's new-driver
/// object without PTX, a library none of whose members was needed): one sentence for an error.
std::string whyNoDeviceCode(llvm::StringRef Bytes);
/// True for an x86-64 relocatable host ELF object (the device-link inputs nvcc makes).
bool isX86HostObject(llvm::StringRef Bytes);
/// True if the archive holds nvcc host objects (`nvcc -lib`) rather than ptxlink objects.
bool isHostObjectLibrary(llvm::MemoryBufferRef Archive);
/// Opens an `nvcc -lib` archive as a device library: its symbol index lists the device symbols each
/// member's PTX defines (the archive's own index names host symbols). HostReachable receives the
/// members whose host code can be linked without any device reference (they define kernels or device
/// variables; every member with device code if EveryMember, for a device-link object): the device link
/// must include them, see docs/host-link.md.
llvm::Expected<std::unique_ptr<StaticLibrary>> openHostObjectLibrary(std::unique_ptr<llvm::MemoryBuffer> Buffer,
                                                                     std::vector<size_t> &HostReachable,
                                                                     const DecompressionBudget &Budget,
                                                                     bool EveryMember = false,
                                                                     llvm::ArrayRef<Target> Arches = {});
/// A link of objects already in memory, written to Out as with `-o -`: no file is read or written.
/// Options.Inputs, Output, MapFile and WhyExtractFile are ignored. For tests and the linker's fuzz target,
/// which link two or three small inputs thousands of times a second.
bool linkObjects(const LinkOptions &Options, std::vector<InputFile> Objects, DiagnosticEngine &Diags,
                 llvm::raw_ostream &Out);

struct PassTimes;
class InputTextPages;
/// The archive `-l Name` names: lib<Name>.a (or the file after `-l:`) in the first -L directory holding it.
std::optional<std::string> findLibrary(llvm::StringRef Name, const std::vector<std::string> &Dirs);
/// Where `-l Name` is found as a host library (lib<Name>.so*, or lib<Name>.a) in Dirs, the host linker's
/// default folders or the CUDA toolkit's; std::nullopt if nowhere.
std::optional<std::string> findHostLibrary(llvm::StringRef Name, const std::vector<std::string> &Dirs);

/// Reads every input (in parallel; diagnostics reported in input order), assembles .ptx inputs, and
/// extracts archive members lazily (ArchiveExtractor), appending them after the command-line inputs in
/// extraction order. Writes --why-extract. Returns false if any input could not be used. Extracted
/// members point into the libraries Extractor owns, so it must outlive Files. `--why-extract -` is
/// written to Reports (link()'s Out). Each object read from a file is added to TextPages, which may give
/// its text back until the link prints it (InputTextPages.h).
bool loadInputs(const LinkOptions &Options, DiagnosticEngine &Diags, PassTimes &Times, ArchiveExtractor &Extractor,
                InputTextPages &TextPages, std::vector<InputFile> &Files, llvm::raw_ostream &Reports);

// ---- one link for one architecture ----

constexpr uint32_t NoGlobal = ~0u;

struct SymRef {
  uint32_t Module = ~0u;
  uint32_t Symbol = NoSymbol;
  bool valid() const { return Module != ~0u; }
  bool operator==(const SymRef &O) const { return Module == O.Module && Symbol == O.Symbol; }
};

/// One name that is visible across modules (anything but module-local symbols). One exists per visible
/// name of the link, so its size is a per-function cost (a link of 10^6 trivial functions holds 10^6): the
/// fields are ordered without padding, and the name's definitions and declarations are not held here but
/// in one array of the link (SymbolTable::Sites, read through SymbolTable::defs and decls), since most names
/// have one of them and lists of their own cost 48 bytes per name. Nor is its size, which is the
/// winner's but for a .common (SymbolTable::resolvedSize), nor its name, which is its symbols'
/// (SymbolTable::name). 24 bytes in all.
struct GlobalSymbol {
  // The winning definition is the first of its sites (SymbolTable::def): resolveSymbols puts it there, and the
  // count of definitions shares a word with the flags, so a name costs 12 bytes here, not 24 (one per
  // visible name of the link).
  static constexpr uint32_t MaxDefinitions = (1u << 24) - 1; // resolveSymbols refuses a name with more
  uint32_t FirstSite = 0;             // in SymbolTable::Sites: its definitions (the winner first), then its declarations
  uint32_t Out = NoSymbol;            // index in the output module
  uint32_t NumDefs : 24 = 0;          // how many of its sites are definitions
  Binding Bind : 3 = Binding::Undefined; // the winner's binding
  bool Initialized : 1 = false;
  bool Live : 1 = false;
};
static_assert(sizeof(GlobalSymbol) == 12, "GlobalSymbol is a per-name cost: keep it unpadded");

/// Name -> index of its GlobalSymbol, for one group of arches: an array indexed by the ids of the link's
/// one table of names (LinkNames, interned at load), 4 bytes per name of the link. The resolver reaches
/// a symbol's entry through the id recorded at load, without hashing its name again; a look-up by name
/// (emit's test of a made-up name) goes through the link's table.
class GlobalNameIndex {
public:
  /// Every name of Names without a GlobalSymbol.
  void reset(LinkNames &Link) {
    Names = &Link;
    Of.assign(Link.size(), NoGlobal);
    Released = false;
  }
  /// The entry of name Id (grown if Names grew since reset).
  uint32_t &of(uint32_t Id) {
    if (LLVM_UNLIKELY(Id >= Of.size()))
      Of.resize(Names->size(), NoGlobal);
    return Of[Id];
  }
  /// Frees the array once no pass looks names up any more (emitModule, after choosing the output
  /// symbols), and tells the link's table that this group is done with it (the last group frees it).
  void release() {
    discardWholePages(Of.data(), Of.capacity() * sizeof(uint32_t)); // dead, freed next
    Of = {};
    if (Names && !Released)
      Names->doneWith();
    Released = true;
  }
  /// Name's index in Globals, or NoGlobal.
  uint32_t find(llvm::StringRef Name) const {
    assert(!Released && "the name index was released: no pass after emit's choice of symbols looks names up");
    if (!Names)
      return NoGlobal;
    const uint32_t Id = Names->find(Name);
    return Id < Of.size() ? Of[Id] : NoGlobal;
  }

private:
  LinkNames *Names = nullptr;
  std::vector<uint32_t> Of; // by name id
  bool Released = false;
};

/// Where the link's per-module tables (LinkModule's) live: one bump allocator for all of them
/// (SymbolTable::TablePool). A vector per table and module was a heap block each, four or five per
/// module, with a vector's 24 bytes beside each: about 130 bytes of a one-function module's share of a
/// link of 10^5 such modules.
using ModuleTablePool = llvm::BumpPtrAllocator;

/// One per-symbol or per-section table of a LinkModule: a view of Count values that a ModuleTablePool
/// owns (the link's, which outlives its modules). Empty until assigned; assigning again takes fresh
/// memory from the pool (the old values stay there until the link ends). Packed into 12 bytes (a
/// pointer and a 32-bit count, where alignment would make 16): a LinkModule holds five, and a link holds
/// a LinkModule per input. Nothing binds a reference to its members.
template <typename T> class [[gnu::packed]] ModuleTable {
public:
  /// Count copies of Value, from Pool.
  void assign(ModuleTablePool &Pool, size_t N, T Value) {
    assert(N <= UINT32_MAX && "a module's symbol and section indexes are 32-bit");
    Data = N ? Pool.Allocate<T>(N) : nullptr;
    std::uninitialized_fill_n(Data, N, Value);
    Count = static_cast<uint32_t>(N);
  }
  /// Forgets the values (their memory stays in the pool).
  void clear() {
    Data = nullptr;
    Count = 0;
  }
  size_t size() const { return Count; }
  bool empty() const { return Count == 0; }
  T &operator[](size_t I) {
    assert(I < Count && "index out of range");
    return Data[I];
  }
  const T &operator[](size_t I) const {
    assert(I < Count && "index out of range");
    return Data[I];
  }
  T *begin() { return Data; }
  T *end() { return Data + Count; }
  const T *begin() const { return Data; }
  const T *end() const { return Data + Count; }

private:
  T *Data = nullptr;
  uint32_t Count = 0;
};

/// One module (the selected variant of one input) in the link for one arch. A per-module cost (10^5
/// modules in one link): its tables are views into the link's TablePool, and its fields are ordered
/// so that no padding comes between them (88 bytes).
struct LinkModule {
  const ModuleVariant *M = nullptr;
  llvm::StringRef ObjectName;
  uint32_t Input = 0;
  ModuleTable<uint32_t> Global;      // per symbol: GlobalSymbol index, or NoGlobal for module-local ones
  ModuleTable<uint8_t> SectionLive;  // per section
  ModuleTable<uint32_t> SymOut;      // per symbol: output symbol index (after emit)
  ModuleTable<uint32_t> SecOut;      // per section: output section index (after emit)
  /// Per symbol: its first record's index in the module's Functions, or VariableAbiTag | the index of its
  /// first record in Variables, or NoAbi. One table for both (a per-symbol cost): a symbol with both
  /// kinds of record (only a malformed object has one) keeps its function's, which every caller
  /// consults first. Empty when both record tables are in strictly increasing symbol order, as the
  /// assembler and our writer make them: a record is then found by binary search (SymbolTable::functionAbi),
  /// and the table's 4 bytes per symbol are not spent.
  ModuleTable<uint32_t> AbiOf;
  static constexpr uint32_t NoAbi = ~0u, VariableAbiTag = 1u << 31;
};
static_assert(sizeof(LinkModule) == 88, "LinkModule is a per-module cost: keep it without padding");

/// One unit of per-module code generation (`--sass` without `--whole-program`): the part of a linked
/// module that one input contributed, as a module of its own that ptxas compiles with `-c`. What it uses
/// from other inputs is declared `.extern`; nvlink joins the cubins.
struct CodegenUnit {
  ModuleVariant Module;   // sections and symbols point into the linked module and the inputs
  std::string ObjectName; // "b.o", "libm.a(x.o)"
  std::string SourceName; // the PTX file the sections were assembled from (the first input's, in a batch)
  /// Set where the unit is one input's module that the link leaves as compiled (SassReuse.h): the input's
  /// cubins, one of which nvlink may take instead of compiling the unit, and the `.target` of the PTX
  /// variant the link used, which that cubin must have been compiled for.
  const std::vector<FatbinImage> *InputSass = nullptr;
  std::string InputTarget;
  /// The unit is a cubin input's module (CubinInputs.h): its cubin goes to nvlink as it is, with no check
  /// of the ptxas that made it (there is no PTX to compile instead).
  bool InputIsCubin = false;
  /// One nvcc module's unit: the ptxas options its object recorded for its PTX (recordedPtxasOptions),
  /// which compiling the unit gets where the link gives none of its own.
  std::vector<std::string> RecordedPtxasOptions;
};

/// Records the duration of each pass for --time.
struct PassTimes {
  struct Entry {
    std::string Pass;
    std::string Arch;
    double Millis = 0;
  };
  std::vector<Entry> Entries;
  void add(llvm::StringRef Pass, llvm::StringRef Arch, std::chrono::steady_clock::time_point Start);

  /// Times what runs while it lives: one row when it ends, or at stop() (`auto T = Times.scope("mark
  /// live", Arch);`). A scope ended early by a failure still counts the time spent.
  class Scope {
  public:
    Scope(PassTimes &Times, llvm::StringRef Pass, llvm::StringRef Arch)
        : Times(&Times), Pass(Pass), Arch(Arch), Start(std::chrono::steady_clock::now()) {}
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;
    ~Scope() { stop(); }
    /// The row's pass, if it ends differently ("lto: nvJitLink (cached)").
    void rename(llvm::StringRef NewPass) { Pass = NewPass.str(); }
    void stop() {
      if (Times)
        Times->add(Pass, Arch, Start);
      Times = nullptr;
    }

  private:
    PassTimes *Times;
    std::string Pass, Arch;
    std::chrono::steady_clock::time_point Start;
  };
  [[nodiscard]] Scope scope(llvm::StringRef Pass, llvm::StringRef Arch = "") { return Scope(*this, Pass, Arch); }
  /// Runs F as one row: `Times.run("mark live", Arch, [&] { markLive(...); })`.
  template <typename Fn> decltype(auto) run(llvm::StringRef Pass, llvm::StringRef Arch, Fn &&F) {
    Scope Timed = scope(Pass, Arch);
    return F();
  }
  /// CSV rows "pass,arch,milliseconds" and a "total" row; Headings: a first row naming the columns.
  void printCsv(llvm::raw_ostream &OS, bool Headings) const;
};

/// Names that stay undefined in a complete program because ptxas or the driver provides them (the PTX
/// system calls, a few CUDA graph functions, `.extern .shared` arrays; CheckUndefined.cpp).
bool providedOutsideTheLink(const Symbol &S);

/// Where in Module a symbol is defined or declared, for diagnostics and reports ("b.ptx:5:1 (b.o)").
SiteLocation siteText(const LinkModule &Module, SourceLoc Where);
/// "add3(int) (_Z4add3i)" for mangled names, else the name itself.
std::string displayName(llvm::StringRef Name);

/// The symbol table of one arch's link (shared by the arches of a group, which select the same variants):
/// the selected module of each input, one GlobalSymbol per visible name with its definitions and
/// declarations, and the lookups every pass shares. The passes fill it in order (LinkPasses.h):
/// selectVariants the Modules; resolveSymbols Globals, Sites, GlobalIndex, CommonSizes and
/// WeakCopiesDiffer; markLive each module's SectionLive and GlobalSymbol::Live; emit each module's
/// SymOut/SecOut and GlobalSymbol::Out, and it releases GlobalIndex.
class SymbolTable {
public:
  std::vector<LinkModule> Modules;
  /// The memory of the modules' tables (LinkModule::Global, SectionLive, SymOut, SecOut, AbiOf).
  ModuleTablePool TablePool;
  std::vector<GlobalSymbol> Globals;
  /// Every visible symbol of the link as a definition or declaration of its GlobalSymbol, grouped by
  /// GlobalSymbol in Globals' order: a name's definitions (visible, weak, common, alias), then its
  /// declarations (.extern or implicit), each in input order. Sized exactly (set by resolution).
  std::vector<SymRef> Sites;
  /// Name -> index in Globals.
  GlobalNameIndex GlobalIndex;
  /// The resolved size of each .common name whose winner is smaller than the largest (resolvedSize):
  /// rare, so kept out of GlobalSymbol.
  llvm::DenseMap<uint32_t, uint64_t> CommonSizes;
  /// Weak names whose definitions differ (the ODR warning): nvlink would take the first copy it reads,
  /// so a module holding one of them is not taken as compiled (sassReuseRefusal).
  llvm::DenseSet<uint32_t> WeakCopiesDiffer;

  /// G's name: that of its symbols (the first of its sites). Valid once resolution has run.
  llvm::StringRef name(const GlobalSymbol &G) const { return sym(Sites[G.FirstSite]).name(); }
  /// Name's index in Globals (after resolution and until emit has chosen the output symbols, which
  /// releases the index), or NoGlobal.
  uint32_t findGlobal(llvm::StringRef Name) const { return GlobalIndex.find(Name); }
  /// Whether Name is a visible name of the link (after resolution, until emit releases the index).
  bool isGlobalName(llvm::StringRef Name) const { return findGlobal(Name) != NoGlobal; }
  /// G's winning definition (the first of its sites, where resolution put it); invalid if it has none.
  SymRef def(const GlobalSymbol &G) const { return G.NumDefs ? Sites[G.FirstSite] : SymRef(); }
  SymRef def(uint32_t GI) const { return def(Globals[GI]); }
  /// G's size: a variable's resolved size (the largest .common), else its winner's; 0 if undefined.
  uint64_t resolvedSize(const GlobalSymbol &G) const {
    if (!G.NumDefs)
      return 0;
    if (G.Bind == Binding::Common)
      if (auto It = CommonSizes.find(uint32_t(&G - Globals.data())); It != CommonSizes.end())
        return It->second;
    return sym(def(G)).size();
  }
  /// G's definitions (the winner first, the others in input order) and declarations (in input order);
  /// G is an element of Globals.
  llvm::ArrayRef<SymRef> defs(const GlobalSymbol &G) const {
    return llvm::ArrayRef<SymRef>(Sites).slice(G.FirstSite, G.NumDefs);
  }
  llvm::ArrayRef<SymRef> decls(const GlobalSymbol &G) const { return sitesOf(G).drop_front(G.NumDefs); }

  const Symbol &sym(SymRef R) const { return Modules[R.Module].M->Symbols[R.Symbol]; }
  /// The section holding what R defines (through .alias to the aliasee); NoSection if none. Inline for a
  /// symbol that is no alias (mark-live asks once per relocation it follows; a call cost as much as the
  /// answer), out of line through the alias table.
  uint32_t definingSection(SymRef R) const {
    const ModuleVariant &M = *Modules[R.Module].M;
    if (LLVM_UNLIKELY(R.Symbol >= M.Symbols.size()))
      return NoSection;
    if (LLVM_UNLIKELY(M.aliasOf(R.Symbol) != NoSymbol))
      return aliaseeSection(R);
    const uint32_t Sec = M.Symbols[R.Symbol].Section;
    return Sec < M.Sections.size() ? Sec : NoSection;
  }
  /// Where a reference from module Module to its symbol Symbol leads: the definition (global winner or
  /// the local symbol itself); invalid if undefined. (Inline: mark-live asks once per relocation.)
  SymRef target(uint32_t Module, uint32_t Symbol) const {
    const LinkModule &LM = Modules[Module];
    if (Symbol >= LM.Global.size())
      return {};
    const uint32_t G = LM.Global[Symbol];
    return G == NoGlobal ? SymRef{Module, Symbol} : def(G);
  }
  SiteLocation site(SymRef R) const { return siteText(Modules[R.Module], sym(R).Where); }
  /// Location of byte Offset of section Sec in module Module.
  SourceLoc locationIn(uint32_t Module, uint32_t Sec, uint64_t Offset) const;
  /// R's function record, or its variable record (none if it has a function record); null if none.
  const FunctionAbi *functionAbi(SymRef R) const;
  const VariableAbi *variableAbi(SymRef R) const;

private:
  /// G's sites: from its FirstSite to the next GlobalSymbol's (the sites are grouped in Globals' order).
  llvm::ArrayRef<SymRef> sitesOf(const GlobalSymbol &G) const {
    size_t I = &G - Globals.data();
    uint32_t End = I + 1 < Globals.size() ? Globals[I + 1].FirstSite : uint32_t(Sites.size());
    return llvm::ArrayRef<SymRef>(Sites).slice(G.FirstSite, End - G.FirstSite);
  }
  /// definingSection of an alias: its aliasee's section, through chains of aliases.
  uint32_t aliaseeSection(SymRef R) const;
};

} // namespace ptxlink
