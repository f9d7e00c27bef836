// Inputs made by nvcc for a real CUDA build: `nvcc -rdc=true -c` / `nvcc -dc` host objects and
// `nvcc -lib` archives of them.
//
// The problem: a CUDA build hands the device linker x86-64 host objects, not PTX. Each one embeds a
// relocatable fatbinary (`__nv_relfatbin`) with PTX and/or SASS per architecture, and a module id
// (`__nv_module_id`) that its static initializer uses to call `__cudaRegisterLinkedBinary<id>`. The
// device link takes the PTX images (one variant each of a fat object, so the usual per-arch selection
// applies) and remembers the module id for the device-link object (--emit host-object). Host objects
// without relocatable device code pass through: they have nothing to link.
//
// Archives from `nvcc -lib` have a symbol index of host symbols only, so the device library's index is
// rebuilt here from what each member's PTX defines. Lazy extraction by device symbols alone is not
// enough for such a library: the host linker extracts members for their host symbols (a kernel's
// launch stub, a `__device__` variable's shadow, a `__host__ __device__` function's host copy, any host
// function of the file), and every member it extracts calls its `__cudaRegisterLinkedBinary<id>` at
// start-up, which only the device-link object defines. Which of them the host link will take cannot be
// known here, so a device-link object links and registers every member, as nvcc -dlink does: the object
// refers to each registered module's `__fatbinwrap<id>`, which makes the host linker take all of them,
// and the runtime registers the program once every one of them has called in. Other outputs (a
// fatbinary, PTX) link the members that define a kernel or a device variable, and extract the others
// when a device symbol they define is needed.
#include "ptxlink/Assembler.h"
#include "ptxlink/HostEmbed.h"
#include "LinkContext.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace ptxlink {

bool isX86HostObject(StringRef Bytes) {
  if (!isHostElf(Bytes)) // a 64-bit little-endian ELF header, not EM_CUDA
    return false;
  const auto &Header = *reinterpret_cast<const object::ELF64LE::Ehdr *>(Bytes.data());
  return Header.e_type == ELF::ET_REL && Header.e_machine == ELF::EM_X86_64;
}

std::vector<Target> ptxArchesToRead(const LinkOptions &Options) {
  std::vector<Target> Arches;
  if (Options.ArchesFromInputs != LinkOptions::ListedArches)
    return Arches;
  for (const std::string &Name : Options.Arches) {
    std::optional<Target> A = parseArch(Name);
    if (!A)
      return {};
    Arches.push_back(*A);
  }
  return Arches;
}

std::vector<bool> ptxImagesToRead(ArrayRef<FatbinImage> Images, ArrayRef<Target> Arches) {
  const std::vector<bool> Every(Images.size(), true);
  if (Arches.empty())
    return Every;
  std::vector<std::optional<Target>> PtxArch(Images.size());
  for (size_t I = 0; I < Images.size(); ++I)
    if (Images[I].Kind == FatbinKind::Ptx && !(PtxArch[I] = parseArch(fatbinArchName(Images[I]))))
      return Every;
  std::vector<bool> Read(Images.size(), false);
  for (const Target &Requested : Arches) {
    int Best = bestForTarget(Images.size(), Requested, [&](size_t I) { return PtxArch[I]; });
    if (Best < 0)
      return Every;
    Read[Best] = true;
  }
  return Read;
}

/// Assembles one PTX image as a variant of Obj (a second image for an arch already read is passed over: the
/// first one counts). False, with Problems said, where it cannot be.
static bool readPtxImage(const FatbinImage &Image, StringRef DisplayName, ObjectFile &Obj, StringSet<> &PtxArches,
                         DiagnosticEngine &Local, std::vector<Diagnostic> &Problems, DecompressionBudget &Budget,
                         std::vector<std::string> &JitOptions) {
  std::string Arch = fatbinArchName(Image);
  if (!PtxArches.insert(Arch).second)
    return true;
  if (Image.Compression == FatbinCompression::Unknown) {
    Problems.push_back(toolError(DisplayName + ": the " + Arch + " PTX image is compressed in a way ptxlink cannot read",
                                  "bad-host-object"));
    return false;
  }
  // Decompressed here, one image at a time, against the link's one budget: the
  // text lives as long as the link (the object points into it), so the budget bounds what all host
  // objects' PTX may add up to; the decompressed copy is dropped once the text is in its buffer.
  std::string Decompressed;
  StringRef Text = StringRef(Image.Payload).take_front(payloadTrueSize(Image));
  if (Image.Compression != FatbinCompression::None) {
    if (!Budget.take(Image.UncompressedSize)) {
      Problems.push_back(toolError(formatv("{0}: offset {1:x}: the {2} PTX image of {3} bytes exceeds what is "
                                           "left of this link's decompression budget ({4} bytes; by default 100 MB "
                                           "and twice the size of the inputs): if the input is genuine, raise "
                                           "the budget with --max-decompressed SIZE",
                                           DisplayName, Image.EntryOffset, Arch, Image.UncompressedSize,
                                           Budget.remaining())
                                       .str(),
                                   "bad-host-object"));
      return false;
    }
    Expected<std::string> Out = decompressFatbinPayload(Image.Payload, Image.Compression, Image.UncompressedSize);
    if (!Out) {
      Problems.push_back(toolError(formatv("{0}: offset {1:x}: {2}", DisplayName, Image.EntryOffset,
                                           toString(Out.takeError()))
                                       .str(),
                                   "bad-host-object"));
      return false;
    }
    Decompressed = std::move(*Out);
    Text = StringRef(Decompressed);
    Text = Text.take_front(Text.find('\0')); // PTX ends at its first NUL (npos: all of it)
  }
  // Diagnostics name the image as a file of its own: "main.o(compute_80.ptx):12:3".
  std::string PtxName = (DisplayName + "(compute_" + StringRef(Arch).substr(Arch.find('_') + 1) + ".ptx)").str();
  std::unique_ptr<MemoryBuffer> Ptx = MemoryBuffer::getMemBufferCopy(Text, PtxName);
  std::string().swap(Decompressed);
  if (!assembleInto(Obj, Ptx->getBuffer(), PtxName, Local, /*TextOutlivesObject=*/true)) {
    for (const Diagnostic &D : Local.recorded())
      Problems.push_back(D);
    return false;
  }
  Obj.adopt(std::move(Ptx));
  JitOptions.push_back(Image.Options);
  return true;
}

/// The device code of a relocatable fatbinary's images (an nvcc object's, or a fatbinary input's): each PTX
/// image that a link for Arches reads (ptxImagesToRead) assembled as one variant of a fat object, the
/// cubins kept as stored in Origin.Sass. The object adopts Buffer, which holds the images.
static std::unique_ptr<ObjectFile> objectFromImages(std::vector<FatbinImage> Images, std::unique_ptr<MemoryBuffer> Buffer,
                                                    StringRef DisplayName, HostOrigin Origin,
                                                    std::optional<HostOrigin> &Host, std::vector<Diagnostic> &Problems,
                                                    DecompressionBudget &Budget, ArrayRef<Target> Arches) {
  auto Obj = std::make_unique<ObjectFile>();
  StringSet<> PtxArches;
  std::string Ignored;
  raw_string_ostream Sink(Ignored);
  DiagnosticEngine Local(Sink);
  Local.setRecord(true);
  Local.setErrorLimit(0);
  std::vector<bool> Read = ptxImagesToRead(Images, Arches);
  std::vector<size_t> Skipped; // PTX images not read, in order
  bool HeaderMisleads = false; // an image's PTX is for another arch than its header says
  for (size_t I = 0; I < Images.size(); ++I) {
    FatbinImage &Image = Images[I];
    std::string Arch = fatbinArchName(Image);
    if (Image.Kind == FatbinKind::Elf) {
      Origin.CubinArches.push_back(Arch);
      // Kept as stored (compressed): `ptxlink --sass` may hand it to nvlink instead of compiling the PTX
      // (SassReuse.h); it is decompressed only then.
      Origin.Sass.push_back(std::move(Image));
      continue;
    }
    if (Image.Kind == FatbinKind::LtoIr) {
      Origin.LtoIrArches.push_back(Arch);
      continue;
    }
    if (Image.Kind != FatbinKind::Ptx)
      continue;
    if (!Read[I]) {
      Skipped.push_back(I);
      continue;
    }
    const size_t Before = Obj->Variants.size();
    if (!readPtxImage(Image, DisplayName, *Obj, PtxArches, Local, Problems, Budget, Origin.PtxJitOptions))
      return nullptr;
    if (Obj->Variants.size() > Before && parseArch(Obj->Variants.back().Target.Arch) != parseArch(Arch))
      HeaderMisleads = true;
  }
  // The choice went by the images' headers: where one of them names another arch than its PTX's .target,
  // the rest are read too, so that the variants chosen are those of every image.
  if (HeaderMisleads)
    for (size_t I : Skipped)
      if (!readPtxImage(Images[I], DisplayName, *Obj, PtxArches, Local, Problems, Budget, Origin.PtxJitOptions))
        return nullptr;
  for (const Diagnostic &D : Local.recorded())
    Problems.push_back(D);
  Obj->adopt(std::move(Buffer));
  Host = std::move(Origin);
  return Obj;
}

std::unique_ptr<ObjectFile> hostObjectFromBuffer(std::unique_ptr<MemoryBuffer> Buffer, StringRef DisplayName,
                                                 std::optional<HostOrigin> &Host, std::vector<Diagnostic> &Problems,
                                                 DecompressionBudget &Budget, ArrayRef<Target> Arches) {
  Expected<HostDeviceCode> Code = readHostDeviceCode(Buffer->getBuffer(), DisplayName);
  if (!Code) {
    Problems.push_back(toolError(toString(Code.takeError()), "bad-host-object"));
    return nullptr;
  }
  if (!Code->HasRelocatableFatbin)
    return nullptr; // no device code to link: the host link takes it as it is
  HostOrigin Origin;
  Origin.ModuleId = Code->ModuleId;
  Origin.RegisteredNames = std::move(Code->RegisteredNames);
  Origin.ObjectBytes = Buffer->getBuffer(); // adopted below, or an archive's member: lives as long as the link
  return objectFromImages(std::move(Code->Images), std::move(Buffer), DisplayName, std::move(Origin), Host, Problems,
                          Budget, Arches);
}

std::unique_ptr<ObjectFile> fatbinObjectFromBuffer(std::unique_ptr<MemoryBuffer> Buffer, StringRef DisplayName,
                                                   std::optional<HostOrigin> &Host, std::vector<Diagnostic> &Problems,
                                                   DecompressionBudget &Budget, ArrayRef<Target> Arches) {
  std::string Problem;
  uint64_t ProblemAt = 0;
  // Nothing is decompressed here, as for an nvcc object: the PTX images one at a time against the budget.
  std::vector<FatbinImage> Images = readFatbin(
      Buffer->getBuffer(),
      [&](uint64_t Offset, const Twine &Message) {
        if (Problem.empty()) {
          Problem = Message.str();
          ProblemAt = Offset;
        }
      },
      /*Decompress=*/false);
  if (!Problem.empty()) {
    Problems.push_back(toolError(formatv("{0}: offset {1:x}: {2}", DisplayName, ProblemAt, Problem).str(), "bad-fatbin"));
    return nullptr;
  }
  HostOrigin Origin;
  Origin.FatbinInput = true;
  Origin.ObjectBytes = Buffer->getBuffer();
  return objectFromImages(std::move(Images), std::move(Buffer), DisplayName, std::move(Origin), Host, Problems, Budget,
                          Arches);
}

std::string whyNoDeviceCode(StringRef Bytes) {
  if (isArchive(Bytes))
    return "a static library: none of its members defines a symbol the link needed (--whole-archive links them all)";
  if (!isHostElf(Bytes))
    return "holds no device code ptxlink can link";
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(MemoryBufferRef(Bytes, ""));
  if (!Obj) {
    consumeError(Obj.takeError());
    return "a host ELF file without device code";
  }
  bool Offloading = false, WholeProgram = false;
  for (const object::SectionRef &S : (*Obj)->sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    Offloading |= *Name == ".llvm.offloading";
    WholeProgram |= *Name == ".nv_fatbin";
  }
  if (Offloading)
    return "a clang object whose .llvm.offloading section holds no PTX (clang --offload-new-driver): compile the "
           "device code to PTX (clang -S --cuda-device-only, or --cuda-include-ptx) and link that";
  if (WholeProgram)
    return "an nvcc object compiled without -rdc (nvcc -c): its device code is already linked and registers "
           "itself; compile with nvcc -dc (or -rdc=true -c) to link it here";
  return "a host object without device code (no relocatable fatbinary, __nv_relfatbin): nothing to device-link";
}

bool isHostObjectLibrary(MemoryBufferRef Archive) {
  Error Err = Error::success();
  Expected<std::unique_ptr<object::Archive>> Ar = object::Archive::create(Archive);
  if (!Ar) {
    consumeError(Ar.takeError());
    consumeError(std::move(Err));
    return false;
  }
  bool Host = false;
  for (const object::Archive::Child &C : (*Ar)->children(Err)) {
    Expected<StringRef> Data = C.getBuffer();
    if (!Data) {
      consumeError(Data.takeError());
      break;
    }
    // A member running past the end of the archive is the normal reader's to report (malformed archive).
    if (Data->end() > Archive.getBuffer().end() || isPtxlinkObject(*Data))
      break;
    if (isX86HostObject(*Data)) {
      Host = true;
      break;
    }
  }
  consumeError(std::move(Err));
  return Host;
}

namespace {

/// An `nvcc -lib` archive seen as a device library: the members are read once, up front, to index the
/// device symbols their PTX defines (nvcc archives are small; their own index is of no use here).
class HostObjectLibrary final : public StaticLibrary {
public:
  StringRef fileName() const override { return Buffer->getBufferIdentifier(); }
  size_t memberCount() const override { return Members.size(); }
  StringRef memberName(size_t Member) const override { return Members[Member].Name; }
  Expected<MemoryBufferRef> memberBuffer(size_t Member) const override {
    return MemoryBufferRef(Members[Member].Bytes, Members[Member].Name);
  }
  std::optional<size_t> memberDefining(StringRef Name) const override {
    auto It = Defining.find(Name);
    if (It == Defining.end())
      return std::nullopt;
    return It->second;
  }
  ArrayRef<std::pair<StringRef, size_t>> symbolIndex() const override { return Index; }

  std::unique_ptr<MemoryBuffer> Buffer;
  struct Member {
    std::string Name;
    StringRef Bytes;
  };
  std::vector<Member> Members;
  std::vector<std::pair<StringRef, size_t>> Index;
  DenseMap<StringRef, size_t> Defining;
  StringSaver Names{Alloc};

private:
  BumpPtrAllocator Alloc;
};

} // namespace

Expected<std::unique_ptr<StaticLibrary>> openHostObjectLibrary(std::unique_ptr<MemoryBuffer> Buffer,
                                                               std::vector<size_t> &HostReachable,
                                                               const DecompressionBudget &Budget,
                                                               bool EveryMember, ArrayRef<Target> Arches) {
  auto Lib = std::make_unique<HostObjectLibrary>();
  StringRef LibName = Buffer->getBufferIdentifier();
  Expected<std::unique_ptr<object::Archive>> Ar = object::Archive::create(Buffer->getMemBufferRef());
  if (!Ar)
    return createStringError(inconvertibleErrorCode(), LibName + ": malformed archive: " + toString(Ar.takeError()));
  Error Err = Error::success();
  for (const object::Archive::Child &C : (*Ar)->children(Err)) {
    Expected<StringRef> Name = C.getName();
    Expected<StringRef> Data = C.getBuffer();
    if (!Name || !Data) {
      std::string Why = !Name ? toString(Name.takeError()) : toString(Data.takeError());
      if (Name)
        consumeError(Data.takeError());
      consumeError(std::move(Err));
      return createStringError(inconvertibleErrorCode(), LibName + ": malformed archive: " + Why);
    }
    // LLVM reports a member that runs past the archive's end only when it steps to the next one, after
    // this loop has read it: checked here, before any byte of it is.
    if (Data->end() > Buffer->getBufferEnd()) {
      consumeError(std::move(Err));
      return createStringError(inconvertibleErrorCode(),
                               formatv("{0}: malformed archive: member '{1}' (header at offset {2}) declares {3} "
                                       "bytes, past the end of the archive ({4} bytes)",
                                       LibName, *Name, C.getChildOffset(), Data->size(), Buffer->getBufferSize()));
    }
    size_t Number = Lib->Members.size();
    Lib->Members.push_back({Name->str(), *Data});
    std::string Display = (LibName + "(" + *Name + ")").str();
    std::optional<HostOrigin> Host;
    std::vector<Diagnostic> Problems;
    // This member's object is dropped after indexing: it may use what is left of the link's budget, but
    // leaves it as it was.
    DecompressionBudget Scratch(Budget.remaining());
    std::unique_ptr<ObjectFile> Obj =
        isX86HostObject(*Data) ? hostObjectFromBuffer(MemoryBuffer::getMemBuffer(*Data, Display, false), Display, Host,
                                                      Problems, Scratch, Arches)
                         : nullptr;
    for (const Diagnostic &D : Problems)
      if (D.Level == Severity::Error) {
        consumeError(std::move(Err));
        return createStringError(inconvertibleErrorCode(), D.Message);
      }
    if (!Obj || Obj->Variants.empty()) {
      if (Host) // SASS only: linked so the variant selection reports it
        HostReachable.push_back(Number);
      continue;
    }
    // Every variant of a fat object defines the same external symbols: the first one tells.
    bool Reachable = false;
    for (const Symbol &S : Obj->Variants.front().Symbols) {
      if (S.Kind == SymbolKind::Kernel || (S.Kind == SymbolKind::Variable && S.Bind != Binding::Undefined &&
                                           (S.Space == StateSpace::Global || S.Space == StateSpace::Const)))
        Reachable = true;
      if (S.Bind == Binding::Local || S.Bind == Binding::Undefined || S.Kind == SymbolKind::Label ||
          S.Kind == SymbolKind::Section)
        continue;
      StringRef Saved = Lib->Names.save(S.name());
      Lib->Index.push_back({Saved, Number});
      Lib->Defining.try_emplace(Saved, Number);
    }
    if (Reachable || EveryMember)
      HostReachable.push_back(Number);
  }
  if (Err)
    return createStringError(inconvertibleErrorCode(), LibName + ": malformed archive: " + toString(std::move(Err)));
  Lib->Buffer = std::move(Buffer);
  return std::unique_ptr<StaticLibrary>(std::move(Lib));
}

} // namespace ptxlink
