// ptxlink-dump on fatbinaries and on host ELF files that embed them: the image list, each image
// described as its own input (cubin or PTX), `--extract`, and `--select` (which image the CUDA driver
// would load on a given device, and why).
#include "DumpInternal.h"

#include "ptxlink/Cubin.h"
#include "ptxlink/HostEmbed.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ptxlink::dump {
namespace {

json::Array flagNames(uint64_t Flags) {
  static constexpr std::pair<uint64_t, const char *> Names[] = {
      {fatbin_flags::Is64Bit, "64bit"},
      {fatbin_flags::Debug, "debug"},
      {fatbin_flags::HostLinux, "host-linux"},
      {fatbin_flags::HostMac, "host-mac"},
      {fatbin_flags::HostWindows, "host-windows"},
      {fatbin_flags::CompressedLz4, "compressed-lz4"},
      {fatbin_flags::CompressedZstd, "compressed-zstd"},
      {0x10000, "ltoir-transformed"},
      {fatbin_flags::ArchSpecific, "arch-specific"},
      {fatbin_flags::FamilySpecific, "family-specific"},
      {fatbin_flags::CompatInOptions, "compat-in-options"},
  };
  json::Array Out;
  uint64_t Known = 0;
  for (auto [Bit, Name] : Names) {
    Known |= Bit;
    if (Flags & Bit)
      Out.push_back(Name);
  }
  if (Flags & ~Known)
    Out.push_back(hex(Flags & ~Known));
  return Out;
}

bool wantImageDetails(const Options &Opts) {
  return Opts.Headers || Opts.Sections || Opts.Symbols || Opts.Relocs || Opts.Abi || Opts.Ptx || Opts.Callgraph ||
         Opts.Labels ||
         Opts.Debug || Opts.NvInfo;
}

std::string imageExtension(const FatbinImage &I) {
  switch (I.Kind) {
  case FatbinKind::Ptx:
    return "ptx";
  case FatbinKind::Elf:
    return "cubin";
  case FatbinKind::LtoIr:
    return "ltoir";
  }
  return "bin";
}

// The bytes an image really holds: ELF without the padding to 8, PTX without NULs.
StringRef trueBytes(const FatbinImage &I) { return StringRef(I.Payload).take_front(payloadTrueSize(I)); }

// The file --extract writes image I to, the Number-th of its input (numbers restart with each input).
SmallString<256> extractPath(const Context &C, const Origin &O, const FatbinImage &I, unsigned Number) {
  // An image compressed with a scheme we cannot undo (nvcc -dlto's LTO-IR) is written as stored.
  bool Opaque = I.Compression == FatbinCompression::Unknown;
  std::string Stem = sanitizeFileName(sys::path::stem(O.File));
  SmallString<256> Path(C.Opts.ExtractDir);
  sys::path::append(Path, formatv("{0}.{1}.{2}.{3}{4}", Stem, Number, fatbinArchName(I), imageExtension(I),
                                  Opaque ? ".compressed" : "")
                              .str());
  return Path;
}

// Writes image I (its payload loaded) to its --extract file; true if it was written.
bool extractImage(Context &C, const Origin &O, const FatbinImage &I, unsigned Number) {
  SmallString<256> Path = extractPath(C, O, I, Number);
  if (!StringRef(sys::path::filename(Path)).contains(C.Opts.ExtractMatch))
    return false; // -xelf NAME: not one of the named images
  bool Opaque = I.Compression == FatbinCompression::Unknown;
  StringRef Data = Opaque ? StringRef(I.Payload) : trueBytes(I);
  if (Error E = C.Extracted->stage(Path, Data)) {
    C.error(O.File, toString(std::move(E)) + ": not extracted");
    return false;
  }
  return true;
}

// Which image the CUDA driver would load on device Opts.SelectSm (docs/dump.md), decided image by image:
// consider() is called for every readable image in order, candidate() gives an image's line of the
// "candidates" table, result() the decision.
class ImageSelection {
public:
  explicit ImageSelection(const Options &Opts) : Opts(Opts), N(Opts.SelectSm) {}

  json::Object candidate(const FatbinImage &I, size_t Index, bool *Compatible = nullptr) const {
    uint32_t M = I.Arch.Sm;
    bool SameMajor = M / 10 == N / 10; // SASS is binary compatible within a major version
    bool InFamily = I.Arch.family() != 0 && I.Arch.family() == Target{N, 0}.family();
    bool Ok = false;
    std::string Why;
    if (I.Kind == FatbinKind::Elf) {
      if (I.Arch.isArchSpecific()) {
        Ok = M == N;
        Why = Ok ? "arch-specific SASS for exactly this device" : "arch-specific SASS runs only on exactly its arch";
      } else if (I.Arch.isFamilySpecific()) {
        Ok = InFamily && M <= N;
        Why = Ok ? "family-specific SASS runs on later members of its family"
                 : "family-specific SASS runs only within its family, on the same or a later member";
      } else {
        Ok = SameMajor && M <= N;
        Why = Ok ? (M == N ? "SASS for exactly this arch" : "SASS for an older minor version of the same major")
                 : (SameMajor ? "SASS for a newer minor version" : "SASS never runs across major versions");
      }
    } else if (I.Kind == FatbinKind::Ptx) {
      if (I.Arch.isArchSpecific()) {
        Ok = M == N;
        Why = Ok ? "arch-specific PTX for exactly this device" : "arch-specific PTX compiles only for its own arch";
      } else if (I.Arch.isFamilySpecific()) {
        Ok = InFamily && M <= N;
        Why = Ok ? "family-specific PTX within its family" : "family-specific PTX only within its family";
      } else {
        Ok = M <= N;
        Why = Ok ? "PTX can be JIT-compiled for any device at or above its target"
                 : "PTX targets a newer arch than the device";
      }
    } else {
      Why = "LTO-IR is not loaded by the driver (it needs nvJitLink)";
    }
    if (Compatible)
      *Compatible = Ok;
    return json::Object{{"index", int64_t(Index)},
                        {"kind", fatbinKindName(I.Kind)},
                        {"arch", fatbinArchName(I)},
                        {"compatible", Ok},
                        {"why", Why}};
  }

  void consider(const FatbinImage &I, size_t Index) {
    bool Ok = false;
    candidate(I, Index, &Ok);
    if (!Ok)
      return;
    // Exact arch first, then the newest compatible one; among equals, `a` before plain before `f`.
    auto Rank = [&](const Target &A) {
      return std::make_tuple(A.Sm == N, A.Sm, A.isArchSpecific() ? 2 : A.isFamilySpecific() ? 0 : 1);
    };
    Best &B = I.Kind == FatbinKind::Elf ? Sass : Ptx;
    if (!B.Index || Rank(I.Arch) > Rank(B.Image.Arch)) {
      B.Index = Index;
      B.Image = I;
      B.Image.Payload.clear();
    }
  }

  json::Object result() const {
    json::Object Out{{"device", Opts.SelectArch}};
    if (Sass.Index) {
      const FatbinImage &I = Sass.Image;
      Out["selected"] = int64_t(Sass.Index);
      Out["selectedArch"] = fatbinArchName(I);
      Out["how"] = "sass";
      Out["reason"] = I.Arch.Sm == N ? "SASS matching the device exactly"
                                : formatv("SASS for {0}: same major version, older minor ({1} <= {2})",
                                          fatbinArchName(I), I.Arch.Sm, N)
                                      .str();
    } else if (Ptx.Index) {
      const FatbinImage &I = Ptx.Image;
      Out["selected"] = int64_t(Ptx.Index);
      Out["selectedArch"] = fatbinArchName(I);
      Out["how"] = "ptx-jit";
      Out["reason"] = formatv("no compatible SASS; JIT-compiling PTX for {0}, the highest PTX target not above "
                              "the device",
                              fatbinArchName(I))
                          .str();
    } else {
      Out["selected"] = nullptr;
      Out["how"] = "none";
      Out["reason"] = "no image can run on this device";
    }
    return Out;
  }

private:
  struct Best {
    size_t Index = 0; // 1-based; 0: none yet
    FatbinImage Image;
  };
  const Options &Opts;
  uint32_t N;
  Best Sass, Ptx;
};

// What the first walk over a fatbinary's entries learned, for the walks that write its views: each entry
// is read again from the input rather than kept (a few bytes per entry are kept instead of the image).
struct FatbinFacts {
  static constexpr uint64_t Unreadable = ~uint64_t(0);
  std::vector<uint64_t> TrueSize; // per entry walked: payloadTrueSize(), or Unreadable (left out)
  std::vector<bool> Extracted;    // per entry walked: written by --extract
  size_t Readable = 0;            // images (entries not left out)
  unsigned ExtractBase = 0;       // the input's --extract number before this fatbinary
  bool AnyChild = false;          // an image is described as a child node
};

} // namespace

void describeFatbin(Context &C, const Origin &O, StringRef Bytes, Node &N, unsigned Depth) {
  // The first walk reads and decompresses each image once, in order, with every warning and the charge to
  // the run's budget (as reading them all at once did), extracts it, and drops it. The views are written
  // by further walks: the list and the selection from the entry headers and these facts, the described
  // images by decompressing each again, one at a time, when the output reaches it.
  auto Warn = [&](uint64_t Off, const Twine &Msg) { C.warn(O, Off, Msg); };
  auto Facts = std::make_shared<FatbinFacts>();
  Facts->ExtractBase = C.ExtractCounter;
  auto Selection = std::make_shared<ImageSelection>(C.Opts);
  bool Details = wantImageDetails(C.Opts);
  forEachFatbinEntry(Bytes, Warn, [&](FatbinEntry &E) {
    bool Readable = loadFatbinPayload(E, Warn, /*Decompress=*/true, &C.Budget);
    Facts->TrueSize.push_back(Readable ? payloadTrueSize(E.Image) : FatbinFacts::Unreadable);
    bool Extracted = false;
    if (Readable) {
      size_t K = ++Facts->Readable;
      const FatbinImage &I = E.Image;
      if (!C.Opts.SelectArch.empty())
        Selection->consider(I, K);
      if (!C.Opts.OnlyKind || I.Kind == *C.Opts.OnlyKind) {
        unsigned Number = ++C.ExtractCounter;
        if (!C.Opts.ExtractDir.empty())
          Extracted = extractImage(C, O, I, Number);
        Facts->AnyChild |= Details;
      }
    }
    Facts->Extracted.push_back(Extracted);
  });
  // The later walks meet the same entries (the bytes do not change) and have nothing new to say.
  auto Quiet = [](uint64_t, const Twine &) {};
  // Calls Visit(entry, walk index, 1-based image index) for each readable image of the wanted kind.
  auto ForEachImage = [Bytes, Facts, Quiet, OnlyKind = C.Opts.OnlyKind](
                          bool AllKinds, llvm::function_ref<void(FatbinEntry &, size_t, size_t)> Visit) {
    size_t W = 0, K = 0;
    forEachFatbinEntry(Bytes, Quiet, [&](FatbinEntry &E) {
      size_t Walked = W++;
      if (Walked >= Facts->TrueSize.size() || Facts->TrueSize[Walked] == FatbinFacts::Unreadable)
        return;
      ++K;
      if (AllKinds || !OnlyKind || E.Image.Kind == *OnlyKind)
        Visit(E, Walked, K);
    });
  };

  if (C.Opts.Headers) {
    // The containers are streamed, one record at a time from the bytes, as the list is: as one JSON array,
    // 100,000 containers (9.6 MB) took 561 MB.
    Node Headers;
    Headers.Fields["images"] = int64_t(Facts->Readable);
    Headers.Streams.emplace_back("containers", [Bytes, Base = O.Base](Node::Emit Emit) {
      for (uint64_t Pos = 0; Pos + 16 <= Bytes.size();) {
        if (Bytes[Pos] == 0) {
          ++Pos;
          continue;
        }
        if (support::endian::read32le(Bytes.data() + Pos) != FatbinMagic)
          break;
        uint16_t HeaderSize = support::endian::read16le(Bytes.data() + Pos + 6);
        uint64_t Size = support::endian::read64le(Bytes.data() + Pos + 8);
        Node Container;
        Container.Fields = json::Object{{"offset", Base + Pos},
                                        {"version", support::endian::read16le(Bytes.data() + Pos + 4)},
                                        {"headerSize", HeaderSize},
                                        {"size", Size}};
        Emit(Container);
        if (HeaderSize < 16 || Size > Bytes.size() - Pos - HeaderSize)
          break;
        Pos += HeaderSize + Size;
      }
    });
    N.Objects.emplace_back("headers", std::move(Headers));
  }

  if (C.Opts.List || !C.Opts.ExtractDir.empty())
    N.Streams.emplace_back("list", [&C, O, Facts, ForEachImage](Node::Emit Emit) {
      unsigned Number = Facts->ExtractBase;
      ForEachImage(false, [&](FatbinEntry &Entry, size_t Walked, size_t K) {
        const FatbinImage &I = Entry.Image;
        ++Number;
        Node Row;
        json::Object &E = Row.Fields;
        E = json::Object{{"index", int64_t(K)},
                         {"kind", fatbinKindName(I.Kind)},
                         {"arch", fatbinArchName(I)},
                         {"sm", I.Arch.Sm},
                         {"offset", O.Base + I.EntryOffset},
                         {"headerSize", I.HeaderSize},
                         {"storedSize", I.StoredSize},
                         {"compression", fatbinCompressionName(I.Compression)},
                         {"compressedSize", I.CompressedSize},
                         {"uncompressedSize", I.UncompressedSize},
                         {"payloadSize", Facts->TrueSize[Walked]},
                         {"flags", hex(I.RawFlags)},
                         {"flagNames", flagNames(I.RawFlags)}};
        if (I.Kind == FatbinKind::Ptx)
          E["ptxVersion"] = formatv("{0}.{1}", I.VersionMajor, I.VersionMinor).str();
        else
          E["version"] = formatv("{0}.{1}", I.VersionMajor, I.VersionMinor).str();
        if (!I.Identifier.empty())
          E["identifier"] = I.Identifier;
        if (!I.Options.empty())
          E["options"] = bytesAsJson(I.Options);
        if (Facts->Extracted[Walked])
          E["extracted"] = std::string(extractPath(C, O, I, Number).str());
        Emit(Row);
      });
    });

  if (!C.Opts.SelectArch.empty()) {
    Node Select;
    Select.Fields = Selection->result();
    Select.Streams.emplace_back("candidates", [Selection, ForEachImage](Node::Emit Emit) {
      ForEachImage(true, [&](FatbinEntry &Entry, size_t, size_t K) {
        Node Row;
        Row.Fields = Selection->candidate(Entry.Image, K);
        Emit(Row);
      });
    });
    N.Objects.emplace_back("select", std::move(Select));
  }

  if (Facts->AnyChild)
    N.Streams.emplace_back("children", [&C, O, Depth, ForEachImage](Node::Emit Emit) {
      ForEachImage(false, [&](FatbinEntry &Entry, size_t, size_t K) {
        // Read and decompressed again, described, written out and dropped before the next image. Its
        // share of the budget was taken by the first walk.
        FatbinImage &I = Entry.Image;
        if (!loadFatbinPayload(Entry, [](uint64_t, const Twine &) {}, /*Decompress=*/true, nullptr))
          return;
        Origin IO{formatv("{0}[{1}:{2}]", O.Name, K, fatbinArchName(I)).str(), O.File,
                  O.Base + I.EntryOffset + I.HeaderSize, O.InFile && I.Compression == FatbinCompression::None};
        Node Child;
        if (I.Compression == FatbinCompression::Unknown || I.Kind == FatbinKind::LtoIr) {
          Child.Fields = json::Object{{"name", IO.Name}, {"kind", fatbinKindName(I.Kind)}, {"size", I.Payload.size()}};
        } else if (I.Kind == FatbinKind::Ptx) {
          Child.Fields = json::Object{{"name", IO.Name}, {"kind", "ptx"}, {"size", I.Payload.size()}};
          describePtxText(C, IO, I.Payload, Child);
        } else {
          Child = describe(C, IO, trueBytes(I), Depth + 1);
        }
        Child.Fields["imageKind"] = fatbinKindName(I.Kind);
        Child.Fields["imageIndex"] = int64_t(K);
        Child.Fields["arch"] = fatbinArchName(I);
        Emit(Child);
      });
    });
}

void describeHostElf(Context &C, const Origin &O, StringRef Bytes, Node &N, unsigned Depth) {
  auto Warn = [&](uint64_t Off, const Twine &Msg) { C.warn(O, Off, Msg); };
  auto Shared = std::make_shared<HostEmbedInfo>(readHostEmbedding(Bytes, Warn));
  const HostEmbedInfo &Info = *Shared;
  json::Object &Node = N.Fields;
  if (C.Opts.Headers) {
    static constexpr const char *Types[] = {"NONE", "REL", "EXEC", "DYN", "CORE"};
    json::Array Wrappers, Refs;
    for (const FatbinWrapper &W : Info.Wrappers) {
      json::Object J{{"offset", O.Base + W.FileOffset},
                     {"magic", hex(W.Magic)},
                     {"version", W.Version},
                     {"data", hex(W.Data)},
                     {"filenameOrFatbins", hex(W.FilenameOrFatbins)}};
      if (!W.DataTarget.empty())
        J["dataTarget"] = W.DataTarget;
      Wrappers.push_back(std::move(J));
    }
    for (auto &[Section, Names] : Info.HostRefs) {
      json::Array A;
      for (const std::string &N : Names)
        A.push_back(N);
      Refs.push_back(json::Object{{"section", Section}, {"names", std::move(A)}});
    }
    json::Object H{{"type", Info.Type < 5 ? Types[Info.Type] : hex(Info.Type).c_str()},
                   {"machine", Info.Machine},
                   {"fatbinSections", int64_t(Info.Fatbins.size())},
                   {"wrappers", std::move(Wrappers)},
                   {"hostReferences", std::move(Refs)}};
    if (!Info.ModuleId.empty())
      H["moduleId"] = Info.ModuleId;
    // A device-link object names every module it links ("def <id>" strings) and defines a registration
    // function for each.
    if (Info.ModuleIds.size() > 1 || !Info.LinkedBinaryFunctions.empty()) {
      json::Array Ids, Functions;
      for (const std::string &Id : Info.ModuleIds)
        Ids.push_back(Id);
      for (const std::string &F : Info.LinkedBinaryFunctions)
        Functions.push_back(F);
      H["moduleIds"] = std::move(Ids);
      H["registerLinkedBinary"] = std::move(Functions);
    }
    Node["headers"] = std::move(H);
  }
  if (C.Opts.Sections) {
    // Read now, written one record at a time (a host object may have a section per function).
    auto Sections = std::make_shared<std::vector<CubinSection>>(readElfSections(Bytes, [](uint64_t, const Twine &) {}));
    N.Streams.emplace_back("sections", [Sections, Base = O.Base](dump::Node::Emit Emit) {
      for (const CubinSection &S : *Sections) {
        dump::Node Record;
        Record.Fields = json::Object{{"index", S.Index}, {"name", S.Name}, {"type", hex(S.Type)},
                                     {"flags", hex(S.Flags)}, {"offset", Base + S.Offset}, {"size", S.Size}};
        Emit(Record);
      }
    });
  }
  if (Info.Fatbins.empty())
    return;
  // Each embedded fatbinary is described when the output reaches it (its images one at a time).
  N.Streams.emplace_back("children", [&C, O, Shared, Depth](dump::Node::Emit Emit) {
    for (const EmbeddedFatbin &F : Shared->Fatbins) {
      Origin FO{O.Name + "(" + F.SectionName + ")", O.File, O.Base + F.FileOffset, O.InFile};
      dump::Node Child;
      Child.Fields = json::Object{{"name", FO.Name}, {"kind", "fatbin"}, {"size", F.Bytes.size()}, {"section", F.SectionName}};
      if (O.InFile)
        Child.Fields["fileOffset"] = FO.Base;
      describeFatbin(C, FO, F.Bytes, Child, Depth + 1);
      Emit(Child);
    }
  });
}

} // namespace ptxlink::dump
