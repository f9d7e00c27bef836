// Using the SASS that the inputs carry (see SassReuse.h): the link's half of the rule
// (sassReuseRefusal, LinkPasses.h) and the cubin's half (usableInputCubin).
#include "SassReuse.h"

#include "LinkPasses.h"
#include "SassBuild.h"
#include "ptxlink/Cubin.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {

namespace {
Error refused(const Twine &Why) { return createStringError(inconvertibleErrorCode(), Why); }

uint32_t le32(StringRef D, size_t At) {
  uint32_t V = 0;
  for (int I = 0; I < 4; ++I)
    V |= uint32_t(uint8_t(D[At + I])) << (8 * I);
  return V;
}

/// The description of Cubin's note section Name (an ELF note: namesz, descsz, type, the name, then the
/// description), or an error saying what is wrong with it (Missing where there is none); Sections are
/// Cubin's, as read.
Expected<StringRef> noteDescription(StringRef Cubin, ArrayRef<CubinSection> Sections, StringRef Name,
                                    StringRef Missing) {
  for (const CubinSection &S : Sections) {
    if (S.Type != ELF::SHT_NOTE || S.Name != Name)
      continue;
    if (S.Offset > Cubin.size() || S.Size > Cubin.size() - S.Offset)
      return refused("its " + Name + " lies outside the file");
    StringRef D = Cubin.substr(S.Offset, S.Size);
    if (D.size() < 12)
      return refused("its " + Name + " is too short");
    uint32_t NameSz = le32(D, 0), DescSz = le32(D, 4);
    uint64_t DescOff = 12 + ((uint64_t(NameSz) + 3) & ~uint64_t(3));
    if (DescOff > D.size() || DescSz > D.size() - DescOff)
      return refused("its " + Name + " is malformed");
    return D.substr(DescOff, DescSz);
  }
  return refused(Missing);
}

/// readToolkitNote over sections already read.
Expected<ToolkitNote> toolkitNote(StringRef Cubin, ArrayRef<CubinSection> Sections) {
  Expected<StringRef> Found =
      noteDescription(Cubin, Sections, ".note.nv.tkinfo", "it has no .note.nv.tkinfo saying how it was compiled");
  if (!Found)
    return Found.takeError();
  // The description: a version (2), five offsets into the strings that follow (object name, tool, version,
  // build, command line).
  StringRef Desc = *Found;
  if (Desc.size() < 24)
    return refused("its .note.nv.tkinfo is malformed");
  StringRef Strings = Desc.drop_front(24);
  auto string = [&](unsigned Field) -> std::optional<StringRef> {
    uint32_t At = le32(Desc, 4 + 4 * Field);
    if (At >= Strings.size())
      return std::nullopt;
    StringRef S = Strings.drop_front(At);
    size_t End = S.find('\0');
    if (End == StringRef::npos)
      return std::nullopt;
    return S.take_front(End);
  };
  auto Tool = string(1), Version = string(2), Build = string(3), Options = string(4);
  if (le32(Desc, 0) != 2 || !Tool || !Version || !Build || !Options)
    return refused("its .note.nv.tkinfo is of a version ptxlink does not read");
  return ToolkitNote{Tool->str(), Version->str(), Build->str(), Options->str()};
}

/// cubinPtxArch over sections already read.
std::optional<uint32_t> ptxArchOfCubin(StringRef Cubin, ArrayRef<CubinSection> Sections) {
  // .note.nv.cuinfo (type 1000): u16 version 2, u16 the virtual arch's number (75 for compute_75), u16 the
  // toolkit's (130 for 13.0), u16 0.
  Expected<StringRef> Desc = noteDescription(Cubin, Sections, ".note.nv.cuinfo", "");
  if (!Desc) {
    consumeError(Desc.takeError());
    return std::nullopt;
  }
  if (Desc->size() < 4 || uint8_t((*Desc)[0]) != 2 || (*Desc)[1] != 0)
    return std::nullopt;
  return uint32_t(uint8_t((*Desc)[2])) | uint32_t(uint8_t((*Desc)[3])) << 8;
}

} // namespace

std::optional<uint32_t> cubinPtxArch(StringRef Cubin) {
  bool Damaged = false;
  std::vector<CubinSection> Sections = readElfSections(Cubin, [&](uint64_t, const Twine &) { Damaged = true; });
  return Damaged ? std::nullopt : ptxArchOfCubin(Cubin, Sections);
}

Expected<ToolkitNote> readToolkitNote(StringRef Cubin) {
  std::string Problem;
  std::vector<CubinSection> Sections =
      readElfSections(Cubin, [&](uint64_t, const Twine &Message) { Problem = Message.str(); });
  Expected<ToolkitNote> Note = toolkitNote(Cubin, Sections);
  if (!Note && !Problem.empty()) {
    consumeError(Note.takeError());
    return refused("its sections cannot be read: " + Problem);
  }
  return Note;
}

std::vector<std::string> canonicalPtxasOptions(ArrayRef<StringRef> Tokens) {
  // Split `--opt=value` and the short forms with the value attached, and spell long names as ptxas
  // records them.
  std::vector<std::string> Words;
  for (StringRef T : Tokens) {
    for (StringRef W : split(T, ' ')) {
      if (W.empty())
        continue;
      std::string Value;
      if (W.starts_with("-") && W.contains('=')) {
        auto [Name, V] = W.split('=');
        W = Name;
        Value = V.str();
      }
      static const std::pair<StringRef, StringRef> Long[] = {
          {"--generate-line-info", "-lineinfo"}, {"--device-debug", "-g"},     {"--maxrregcount", "-maxrregcount"},
          {"--opt-level", "-O"},                 {"--machine", "-m"},          {"--compile-only", "-c"},
          {"--gpu-name", "-arch"},               {"--output-file", "-o"},      {"-m64", "-m 64"},
          {"--extensible-whole-program", "-ewp"}, {"--sp-bounds-check", "-sp-bounds-check"}};
      std::string Word = W.str();
      for (const auto &[From, To] : Long)
        if (W == From)
          Word = To.str();
      if (Word.size() > 2 && Word.starts_with("-O") && isDigit(Word[2])) // -O2 -> -O 2
        Word = "-O " + Word.substr(2);
      for (StringRef Part : split(Word, ' '))
        Words.push_back(Part.str());
      if (!Value.empty())
        Words.push_back(Value);
    }
  }
  // Group each option with the values that follow it; a value before any option is a file name.
  std::vector<std::vector<std::string>> Groups;
  for (std::string &W : Words) {
    if (W.size() > 1 && W[0] == '-')
      Groups.push_back({std::move(W)});
    else if (!Groups.empty())
      Groups.back().push_back(std::move(W));
  }
  std::vector<std::string> Out;
  for (const std::vector<std::string> &G : Groups) {
    StringRef Name = G.front();
    bool Default = Name == "-c" || Name == "-arch" || Name == "-o" ||
                   (G.size() == 2 && ((Name == "-m" && G[1] == "64") || (Name == "-O" && G[1] == "3")));
    if (!Default)
      Out.push_back(join(G, " "));
  }
  llvm::sort(Out);
  return Out;
}

Expected<std::string> cubinOfImage(const FatbinImage &Image) {
  const std::string Arch = fatbinArchName(Image);
  // Decompressed here, one at a time; a cubin is never this large (nvcc's largest are tens of MB).
  constexpr uint64_t MaxCubinBytes = uint64_t(1) << 30;
  std::string Cubin;
  if (Image.Compression == FatbinCompression::None) {
    Cubin = StringRef(Image.Payload).take_front(payloadTrueSize(Image)).str();
  } else {
    if (Image.Compression == FatbinCompression::Unknown || Image.UncompressedSize > MaxCubinBytes)
      return refused("its " + Arch + " SASS is compressed in a way ptxlink does not read");
    Expected<std::string> Out = decompressFatbinPayload(Image.Payload, Image.Compression, Image.UncompressedSize);
    if (!Out)
      return refused("its " + Arch + " SASS cannot be decompressed: " + toString(Out.takeError()));
    Cubin = std::move(*Out);
  }
  if (!isCubin(Cubin))
    return refused("its " + Arch + " SASS is not a cubin");
  return Cubin;
}

Expected<std::string> usableInputCubin(ArrayRef<FatbinImage> Images, StringRef InputTarget, StringRef Arch, bool Debug,
                                       ArrayRef<std::string> PtxasOptions, StringRef PtxasVersion) {
  const FatbinImage *Image = nullptr;
  for (const FatbinImage &I : Images)
    if (I.Kind == FatbinKind::Elf && fatbinArchName(I) == Arch)
      Image = &I;
  if (!Image)
    return refused("it has no SASS for " + Arch);
  Expected<std::string> Bytes = cubinOfImage(*Image);
  if (!Bytes)
    return Bytes.takeError();
  std::string Cubin = std::move(*Bytes);
  // Read once for every check below. Whole: nvlink reads every section (a damaged input is compiled from
  // its PTX, not handed on).
  bool Whole = true;
  std::vector<CubinSection> Sections = readElfSections(Cubin, [&](uint64_t, const Twine &) { Whole = false; });
  // Compiled from the PTX the link used: nvcc compiles each code=sm_XX from its -gencode's PTX, whose
  // virtual arch the cubin's .note.nv.cuinfo records, and an object holds one PTX per virtual arch. So
  // -arch=compute_75 -code=sm_75,sm_80 makes an sm_80 cubin of the compute_75 PTX, which is what the link
  // uses for sm_80 too (it had compiled it again: solanity's device link, 79 s against nvcc's 0.8 s). An
  // arch-specific PTX, or a cubin without the note, must be for the cubin's own arch.
  std::optional<Target> Used = parseArch(InputTarget);
  std::optional<uint32_t> FromPtx = Whole ? ptxArchOfCubin(Cubin, Sections) : std::nullopt;
  const bool SamePtx = Used && FromPtx && !Used->Suffix ? *FromPtx == Used->Sm : InputTarget == Arch;
  if (!SamePtx)
    return refused("its " + Arch + " SASS was not compiled from the PTX the link used (.target " + InputTarget +
                   (FromPtx ? ", the SASS from compute_" + std::to_string(*FromPtx) + ")" : std::string(")")));
  const auto *Header = reinterpret_cast<const ELF::Elf64_Ehdr *>(Cubin.data());
  if (Cubin.size() < sizeof(ELF::Elf64_Ehdr) || !isLinkableCubinType(Header->e_type))
    return refused("its " + Arch + " SASS is not relocatable (compile with nvcc -dc or -rdc=true)");
  for (const CubinSection &S : Sections) {
    // NVIDIA's memory-only sections have a size but no bytes, as NOBITS (ElfView::occupiesFile).
    bool NoBytes = S.Type == ELF::SHT_NULL || S.Type == ELF::SHT_NOBITS || S.Type == nvelf::SHT_CUDA_GLOBAL ||
                   S.Type == nvelf::SHT_CUDA_LOCAL || S.Type == nvelf::SHT_CUDA_SHARED ||
                   S.Type == nvelf::SHT_CUDA_RESERVED_SHARED;
    Whole &= NoBytes || (S.Offset <= Cubin.size() && S.Size <= Cubin.size() - S.Offset);
  }
  if (!Whole || Sections.empty())
    return refused("its " + Arch + " cubin is damaged (a section lies outside it)");
  Expected<ToolkitNote> Note = toolkitNote(Cubin, Sections);
  if (!Note)
    return refused("its " + Arch + " cubin cannot be checked: " + toString(Note.takeError()));
  if (Note->Tool != "ptxas")
    return refused("its " + Arch + " cubin was made by " + Note->Tool + ", not ptxas");
  // The same release and build as the ptxas that compiles the other units: another release makes other
  // code, and nvlink refuses cubins from a newer one.
  if (!StringRef(PtxasVersion).contains(Note->Version) || !StringRef(PtxasVersion).contains(Note->Build))
    return refused("its " + Arch + " cubin comes from another ptxas (" + Note->Version + ", " + Note->Build + ")");
  // The arch it was compiled for, as ptxas recorded it.
  SmallVector<StringRef, 16> Recorded;
  SplitString(Note->Options, Recorded);
  for (size_t I = 0; I + 1 < Recorded.size(); ++I)
    if (Recorded[I] == "-arch" && Recorded[I + 1] != Arch)
      return refused("its " + Arch + " cubin was compiled with -arch " + Recorded[I + 1]);
  // -c, or -ewp (nvcc -ewp: code nvlink links as it links -c code, as nvcc -dlink does).
  if (!is_contained(Recorded, "-c") && !is_contained(Recorded, "-ewp"))
    return refused("its " + Arch + " cubin was not compiled with ptxas -c");
  // The options that change code: those the unit would be compiled with (-g for a -G module, -Xptxas).
  // nvcc -G also passes -no-bb-merge and -ret-end, which only make the code easier to step through; they
  // come with -g and go with it.
  std::vector<std::string> Have = canonicalPtxasOptions(Recorded);
  bool HasG = is_contained(Have, "-g");
  if (HasG)
    llvm::erase_if(Have, [](const std::string &O) { return O == "-no-bb-merge" || O == "-ret-end"; });
  // A link that gives no ptxas options of its own keeps each module's as it was compiled (-maxrregcount,
  // -Xptxas, -lineinfo given to nvcc -dc), as nvcc -dlink does, which never compiles again; only -g must
  // agree. Compiling such a module again without them dropped them without a word: a kernel's register
  // cap from -maxrregcount=32 became 57 registers (cuda-samples' cdpAdvancedQuicksort compiles with one).
  if (PtxasOptions.empty()) {
    if (HasG != Debug)
      return refused("its " + Arch + " cubin was compiled " + (HasG ? "with" : "without") +
                     " debug information (ptxas -g), this link's unit " + (Debug ? "with" : "without") + " it");
    return Cubin;
  }
  SmallVector<StringRef, 8> WantTokens;
  if (Debug)
    WantTokens.push_back("-g");
  for (const std::string &O : PtxasOptions)
    WantTokens.push_back(O);
  std::vector<std::string> Want = canonicalPtxasOptions(WantTokens);
  if (Have != Want)
    return refused("its " + Arch + " cubin was compiled with other ptxas options ('" + join(Have, " ") +
                   "'; this link: '" + join(Want, " ") + "')");
  return Cubin;
}

std::string sassReuseRefusal(const SymbolTable &Symtab, const ModuleVariant *Output, const LinkOptions &Options,
                             uint32_t MI) {
  if (Options.KernelsUsed || Options.VariablesUsed)
    return "--kernels-used/--variables-used remove code that nvlink would keep";
  const LinkModule &LM = Symtab.Modules[MI];
  const ModuleVariant &M = *LM.M;
  if (!M.aliases().empty())
    return "it defines an .alias";
  for (uint32_t SI = 0; SI < M.Symbols.size(); ++SI) {
    const Symbol &S = M.Symbols[SI];
    if (S.Kind == SymbolKind::Label || S.Kind == SymbolKind::Section)
      continue;
    // A kernel or variable that host code may look up by name must keep it: the PTX image and the SASS
    // would name it differently. (A local function, or the CUDA math library's tables and nvcc's $str
    // constants, which no host code names, may be renamed: nvlink keeps each cubin's locals apart.)
    if (S.Bind == Binding::Local) {
      bool Registrable = S.Kind == SymbolKind::Kernel ||
                         (S.Kind == SymbolKind::Variable && (S.Space == StateSpace::Global || S.Space == StateSpace::Const));
      if (Registrable && SI < LM.SymOut.size() && LM.SymOut[SI] != NoSymbol && Output &&
          Output->Symbols[LM.SymOut[SI]].name() != S.name() && !S.name().starts_with("__cudart_") &&
          !S.name().contains('$'))
        return (S.Kind == SymbolKind::Kernel ? "its kernel " : "its variable ") + S.name().str() +
               " is renamed in the linked module (to " + Output->Symbols[LM.SymOut[SI]].name().str() + ")";
      continue;
    }
    uint32_t GI = SI < LM.Global.size() ? LM.Global[SI] : NoGlobal;
    if (GI == NoGlobal)
      continue;
    const GlobalSymbol &G = Symtab.Globals[GI];
    if (S.Bind == Binding::Common)
      return "it defines the .common variable " + S.name().str() + ", whose size the link decides";
    if (S.Bind == Binding::Weak && Symtab.WeakCopiesDiffer.contains(GI))
      return "its weak " + displayName(S.name()) + " differs from other copies, and nvlink may choose another";
    if (S.Bind != Binding::Undefined)
      continue;
    // What it uses from elsewhere must be in the linked program: its cubin refers to it even from code
    // the link removed.
    if (providedOutsideTheLink(S))
      continue;
    if (isDeviceRuntimeName(S.name())) {
      if (!G.Live)
        return "it uses the device runtime's " + S.name().str() + " only from code the link removed";
      continue;
    }
    SymRef D = Symtab.def(G);
    if (!D.valid())
      return "it declares " + displayName(S.name()) + ", which nothing defines";
    uint32_t Sec = Symtab.definingSection(D);
    bool Kept = Sec != NoSection ? bool(Symtab.Modules[D.Module].SectionLive[Sec]) : bool(G.Live);
    if (!Kept)
      return "it uses " + displayName(S.name()) + ", which the link removed as unused";
  }
  return "";
}

} // namespace ptxlink
