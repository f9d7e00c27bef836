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

void extractImage(Context &C, const Origin &O, const FatbinImage &I, json::Object &Entry) {
  // An image compressed with a scheme we cannot undo (nvcc -dlto's LTO-IR) is written as stored.
  bool Opaque = I.Compression == FatbinCompression::Unknown;
  std::string Stem = sanitizeFileName(sys::path::stem(O.File));
  SmallString<256> Path(C.Opts.ExtractDir);
  sys::path::append(Path, formatv("{0}.{1}.{2}.{3}{4}", Stem, ++C.ExtractCounter, fatbinArchName(I),
                                  imageExtension(I), Opaque ? ".compressed" : "")
                              .str());
  if (!StringRef(sys::path::filename(Path)).contains(C.Opts.ExtractMatch))
    return; // -xelf NAME: not one of the named images
  if (std::error_code EC = sys::fs::create_directories(C.Opts.ExtractDir)) {
    C.error(C.Opts.ExtractDir, "cannot create directory: " + EC.message());
    return;
  }
  StringRef Data = Opaque ? StringRef(I.Payload) : trueBytes(I);
  if (Error E = writeFileAtomically(Path, [&](raw_ostream &OS) {
        OS << Data;
        return Error::success();
      })) {
    C.error(Path, toString(std::move(E)));
    return;
  }
  Entry["extracted"] = std::string(Path.str());
}

} // namespace

json::Object selectImage(const Options &Opts, const std::vector<FatbinImage> &Images) {
  uint32_t N = Opts.SelectSm;
  json::Array Candidates;
  int BestSass = -1, BestPtx = -1;
  auto Rank = [&](const FatbinImage &I) {
    // Exact arch first, then the newest compatible one; among equals, `a` before plain before `f`.
    return std::make_tuple(I.Arch.Sm == N, I.Arch.Sm, I.Arch.isArchSpecific() ? 2 : I.Arch.isFamilySpecific() ? 0 : 1);
  };
  for (size_t K = 0; K < Images.size(); ++K) {
    const FatbinImage &I = Images[K];
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
      if (Ok && (BestSass < 0 || Rank(I) > Rank(Images[BestSass])))
        BestSass = int(K);
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
      if (Ok && (BestPtx < 0 || Rank(I) > Rank(Images[BestPtx])))
        BestPtx = int(K);
    } else {
      Why = "LTO-IR is not loaded by the driver (it needs nvJitLink)";
    }
    Candidates.push_back(json::Object{{"index", int64_t(K + 1)},
                                      {"kind", fatbinKindName(I.Kind)},
                                      {"arch", fatbinArchName(I)},
                                      {"compatible", Ok},
                                      {"why", Why}});
  }
  json::Object Out{{"device", Opts.SelectArch}, {"candidates", std::move(Candidates)}};
  if (BestSass >= 0) {
    const FatbinImage &I = Images[BestSass];
    Out["selected"] = int64_t(BestSass + 1);
    Out["selectedArch"] = fatbinArchName(I);
    Out["how"] = "sass";
    Out["reason"] = I.Arch.Sm == N ? "SASS matching the device exactly"
                              : formatv("SASS for {0}: same major version, older minor ({1} <= {2})",
                                        fatbinArchName(I), I.Arch.Sm, N)
                                    .str();
  } else if (BestPtx >= 0) {
    const FatbinImage &I = Images[BestPtx];
    Out["selected"] = int64_t(BestPtx + 1);
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

void describeFatbin(Context &C, const Origin &O, StringRef Bytes, json::Object &Node, unsigned Depth) {
  auto Warn = [&](uint64_t Off, const Twine &Msg) { C.warn(O, Off, Msg); };
  std::vector<FatbinImage> Images = readFatbin(Bytes, Warn, /*Decompress=*/true, &C.Budget);

  if (C.Opts.Headers) {
    json::Array Containers;
    for (uint64_t Pos = 0; Pos + 16 <= Bytes.size();) {
      if (Bytes[Pos] == 0) {
        ++Pos;
        continue;
      }
      if (support::endian::read32le(Bytes.data() + Pos) != FatbinMagic)
        break;
      uint16_t HeaderSize = support::endian::read16le(Bytes.data() + Pos + 6);
      uint64_t Size = support::endian::read64le(Bytes.data() + Pos + 8);
      Containers.push_back(json::Object{{"offset", O.Base + Pos},
                                        {"version", support::endian::read16le(Bytes.data() + Pos + 4)},
                                        {"headerSize", HeaderSize},
                                        {"size", Size}});
      if (HeaderSize < 16 || Size > Bytes.size() - Pos - HeaderSize)
        break;
      Pos += HeaderSize + Size;
    }
    Node["headers"] = json::Object{{"containers", std::move(Containers)}, {"images", int64_t(Images.size())}};
  }

  json::Array List, Children;
  for (size_t K = 0; K < Images.size(); ++K) {
    const FatbinImage &I = Images[K];
    if (C.Opts.OnlyKind && I.Kind != *C.Opts.OnlyKind)
      continue;
    json::Object E{{"index", int64_t(K + 1)},
                   {"kind", fatbinKindName(I.Kind)},
                   {"arch", fatbinArchName(I)},
                   {"sm", I.Arch.Sm},
                   {"offset", O.Base + I.EntryOffset},
                   {"headerSize", I.HeaderSize},
                   {"storedSize", I.StoredSize},
                   {"compression", fatbinCompressionName(I.Compression)},
                   {"compressedSize", I.CompressedSize},
                   {"uncompressedSize", I.UncompressedSize},
                   {"payloadSize", payloadTrueSize(I)},
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
    if (!C.Opts.ExtractDir.empty())
      extractImage(C, O, I, E);
    List.push_back(std::move(E));

    if (!wantImageDetails(C.Opts))
      continue;
    Origin IO{formatv("{0}[{1}:{2}]", O.Name, K + 1, fatbinArchName(I)).str(), O.File,
              O.Base + I.EntryOffset + I.HeaderSize, O.InFile && I.Compression == FatbinCompression::None};
    json::Object Child;
    if (I.Compression == FatbinCompression::Unknown || I.Kind == FatbinKind::LtoIr) {
      Child = json::Object{{"name", IO.Name}, {"kind", fatbinKindName(I.Kind)}, {"size", I.Payload.size()}};
    } else if (I.Kind == FatbinKind::Ptx) {
      Child = json::Object{{"name", IO.Name}, {"kind", "ptx"}, {"size", I.Payload.size()}};
      describePtxText(C, IO, I.Payload, Child);
    } else {
      Child = describe(C, IO, trueBytes(I), Depth + 1);
    }
    Child["imageKind"] = fatbinKindName(I.Kind);
    Child["imageIndex"] = int64_t(K + 1);
    Child["arch"] = fatbinArchName(I);
    Children.push_back(std::move(Child));
  }
  if (C.Opts.List || !C.Opts.ExtractDir.empty())
    Node["list"] = std::move(List);
  if (!C.Opts.SelectArch.empty())
    Node["select"] = selectImage(C.Opts, Images);
  if (!Children.empty())
    Node["children"] = std::move(Children);
}

void describeHostElf(Context &C, const Origin &O, StringRef Bytes, json::Object &Node, unsigned Depth) {
  auto Warn = [&](uint64_t Off, const Twine &Msg) { C.warn(O, Off, Msg); };
  HostEmbedInfo Info = readHostEmbedding(Bytes, Warn);
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
    json::Array Secs;
    for (const CubinSection &S : readElfSections(Bytes, [](uint64_t, const Twine &) {}))
      Secs.push_back(json::Object{{"index", S.Index}, {"name", S.Name}, {"type", hex(S.Type)},
                                  {"flags", hex(S.Flags)}, {"offset", O.Base + S.Offset}, {"size", S.Size}});
    Node["sections"] = std::move(Secs);
  }
  json::Array Children;
  for (const EmbeddedFatbin &F : Info.Fatbins) {
    Origin FO{O.Name + "(" + F.SectionName + ")", O.File, O.Base + F.FileOffset, O.InFile};
    json::Object Child{{"name", FO.Name}, {"kind", "fatbin"}, {"size", F.Bytes.size()}, {"section", F.SectionName}};
    if (O.InFile)
      Child["fileOffset"] = FO.Base;
    describeFatbin(C, FO, F.Bytes, Child, Depth + 1);
    Children.push_back(std::move(Child));
  }
  if (!Children.empty())
    Node["children"] = std::move(Children);
}

} // namespace ptxlink::dump
