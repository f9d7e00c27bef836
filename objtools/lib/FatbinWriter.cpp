// Writing NVIDIA fatbinary containers, byte-compatible with `fatbinary --create`.
//
// The problem: the CUDA driver (and nvlink, cuobjdump) only load a fatbinary whose entry headers are laid
// out exactly as NVIDIA's tool lays them out: identifier string, then an options record whose data is
// NUL-terminated and padded to 8, PTX entries always carrying an (empty) options record, sm_100+ cubins
// carrying a copy of their `.nv.compat` attributes. The layout was measured with fatbinary 13.0 and is
// written down in docs/nvidia-formats.md; the unit and lit tests compare our bytes with fatbinary's.
#include "ptxlink/Fatbin.h"
#include "ptxlink/Executor.h"
#include "ptxlink/GatherStream.h"

#include "FatbinInternal.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <vector>

#include <lz4.h>
#include <lz4hc.h>
#include <zstd.h>

using namespace llvm;

namespace ptxlink {
namespace {

uint64_t alignTo8(uint64_t V) { return (V + 7) & ~uint64_t(7); }

void put16(std::string &S, size_t Off, uint16_t V) { support::endian::write16le(&S[Off], V); }
void put32(std::string &S, size_t Off, uint32_t V) { support::endian::write32le(&S[Off], V); }
void put64(std::string &S, size_t Off, uint64_t V) { support::endian::write64le(&S[Off], V); }

Expected<std::string> compress(StringRef Data, FatbinCompression C, int Level) {
  // The worst-case buffer is left uninitialised (new char[], no value-initialisation): zeroing it, as
  // std::string::resize does, touched every page of a bound larger than the input (megabytes for a
  // --sass link's images) of which the compressed stream uses a fraction; only that fraction is copied.
  if (C == FatbinCompression::Zstd) {
    size_t Bound = ZSTD_compressBound(Data.size());
    std::unique_ptr<char[]> Out(new char[Bound]);
    size_t N = ZSTD_compress(Out.get(), Bound, Data.data(), Data.size(), Level);
    if (ZSTD_isError(N))
      return createStringError(inconvertibleErrorCode(), "zstd compression failed: %s", ZSTD_getErrorName(N));
    return std::string(Out.get(), N);
  }
  if (C == FatbinCompression::Lz4) {
    if (Data.size() > uint64_t(LZ4_MAX_INPUT_SIZE))
      return createStringError(inconvertibleErrorCode(), "image too large for LZ4 compression");
    int Bound = LZ4_compressBound(int(Data.size()));
    std::unique_ptr<char[]> Out(new char[size_t(Bound)]);
    // Level 0: LZ4's fast compressor; 1-12: LZ4 HC at that level (same raw block format, smaller).
    int N = Level > 0 ? LZ4_compress_HC(Data.data(), Out.get(), int(Data.size()), Bound, Level)
                      : LZ4_compress_default(Data.data(), Out.get(), int(Data.size()), Bound);
    if (N <= 0)
      return createStringError(inconvertibleErrorCode(), "LZ4 compression failed");
    return std::string(Out.get(), size_t(N));
  }
  return createStringError(inconvertibleErrorCode(), "unsupported compression scheme");
}

// The stored form of a payload compressed with Options' scheme and level. Input is what decompression
// gives back (a PTX payload with its terminating NUL).
Expected<FatbinImage::PackedPayload> packPayload(StringRef Input, const FatbinWriteOptions &Options) {
  FatbinCompression C = Options.Compression;
  if (C != FatbinCompression::Lz4 && C != FatbinCompression::Zstd)
    return createStringError(inconvertibleErrorCode(), "cannot write compression scheme '%s'",
                             fatbinCompressionName(C).data());
  auto Packed = compress(Input, C, C == FatbinCompression::Lz4 ? Options.Lz4Level : Options.ZstdLevel);
  if (!Packed)
    return Packed.takeError();
  if (Packed->size() > UINT32_MAX || Input.size() > UINT32_MAX)
    return createStringError(inconvertibleErrorCode(), "image too large to compress");
  return FatbinImage::PackedPayload{std::move(*Packed), Input.size(), C};
}

// fatbinary stores a copy of an sm_100+ cubin's .nv.compat section in the entry's options data, shifted
// by one byte: a leading zero, then the section bytes, keeping the section's length (observed with
// fatbinary 13.0; see docs/nvidia-formats.md).
std::string compatOptions(StringRef Section) {
  if (Section.empty())
    return {};
  std::string Data(1, '\0');
  Data += Section.drop_back(1).str();
  return Data;
}

// Carries a generated payload (FatbinImage::PayloadWriter) to Next, or only counts it when Next is null;
// for PTX it stops at the first NUL, as the driver reads PTX as a C string. Its buffer is twice as large
// as Next's: once Next is flushed, every full buffer passed on is written by Next directly (raw_ostream
// writes a chunk larger than its own, empty, buffer straight through), so the payload is copied once,
// not twice. Where Next is the output file itself (Gather), text the generator lends (writeBorrowed: the
// printer's runs of input text) is not copied at all: the file writes it in place, by writev; and the
// stream's own buffer is a window into an arena whose filled part is lent the same way when it is
// flushed, the window moving on past it, so the generator's small writes are copied only into the
// window (not from it into the file's waiting list too). The arena starts over once the file has
// written everything waiting.
class PayloadStream : public GatherStream {
  raw_ostream *Next;
  GatheringFdStream *Gather;
  bool CutAtNul;
  bool SawNul = false;
  uint64_t Count = 0;
  std::unique_ptr<char[]> Arena; // Gather only
  size_t WindowAt = 0;           // where the buffer's window starts in Arena
  static constexpr size_t ArenaBytes = 1 << 20, MinWindow = 64 << 10;

  /// How much of [Ptr, Ptr + Size) belongs to the payload (none after a NUL); counted.
  size_t accept(const char *Ptr, size_t Size) {
    if (SawNul)
      return 0;
    if (CutAtNul)
      if (const void *Nul = memchr(Ptr, 0, Size)) {
        Size = size_t(static_cast<const char *>(Nul) - Ptr);
        SawNul = true;
      }
    Count += Size;
    return Size;
  }
  void write_impl(const char *Ptr, size_t Size) override {
    const size_t Taken = accept(Ptr, Size);
    if (Gather && Arena && Ptr == Arena.get() + WindowAt) {
      // The window itself (raw_ostream flushes it from its start, and has emptied it: it may move).
      Gather->writeBorrowed(StringRef(Ptr, Taken));
      WindowAt += Size;
      if (ArenaBytes - WindowAt < MinWindow) {
        Gather->writeWaiting(); // nothing lent from the arena may wait when it starts over
        WindowAt = 0;
      }
      SetBuffer(Arena.get() + WindowAt, ArenaBytes - WindowAt);
    } else if (Gather) {
      Gather->writeCopied(Ptr, Taken); // the caller's bytes (a write larger than the window)
    } else if (Next) {
      Next->write(Ptr, Taken);
    }
  }
  uint64_t current_pos() const override { return Count; }

public:
  /// Gather: Next itself, when Next is the output file and may keep references to lent text.
  PayloadStream(raw_ostream *Next, bool CutAtNul, GatheringFdStream *Gather = nullptr)
      : Next(Next), Gather(Gather), CutAtNul(CutAtNul) {
    if (Gather) {
      Arena.reset(new char[ArenaBytes]);
      SetBuffer(Arena.get(), ArenaBytes);
      return;
    }
    size_t NextSize = Next ? Next->GetBufferSize() : 0;
    SetBufferSize(NextSize ? 2 * NextSize : size_t(1) << 16);
  }
  ~PayloadStream() override {
    flush();
    // Nothing lent may be referred to once the generator has returned (its text may be gone) or the arena
    // with this stream.
    if (Gather)
      Gather->writeWaiting();
  }
  void writeBorrowed(StringRef Text) override {
    if (!Gather) {
      write(Text.data(), Text.size());
      return;
    }
    flush(); // what came before Text goes first
    Gather->writeBorrowed(Text.take_front(accept(Text.data(), Text.size())));
  }
  void releaseWhenWritten(StringRef Range, llvm::function_ref<void(StringRef)> Release) override {
    if (Gather)
      Gather->releaseWhenWritten(Range, Release); // its own buffer holds copies only
    else
      Release(Range);
  }
  uint64_t count() {
    flush();
    return Count;
  }
};

// One entry, planned before anything is written: its header bytes, and the payload as it goes into the
// file. The payload is a view of the image itself (no copy) unless it had to be compressed; a PTX payload
// also takes a terminating NUL, written separately.
struct PlannedEntry {
  std::string Header;    // fixed + variable header, HeaderSize bytes
  std::string Packed;    // compressed payload, when compressing
  StringRef Stored;      // payload bytes as stored (a view of Image.Payload or of Packed)
  const std::function<void(GatherStream &)> *Generate = nullptr; // streamed instead of Stored
  uint64_t GeneratedSize = 0; // bytes Generate produces (cut at a NUL for PTX)
  bool SizeDeferred = false;  // Generate runs once, while writing; sizes are patched in afterwards
  std::string Materialized;   // Generate's output, when it cannot be streamed (compression, compat)
  bool AddNul = false;   // append one NUL after Stored (uncompressed PTX)
  uint64_t PayloadSize = 0; // Stored (+ NUL) padded to 8
};

// MeasureGenerated: a streamed payload must be generated once to be measured before it is written (the
// output cannot be patched afterwards); otherwise its size fields are left for writeFatbin to patch.
Error planEntry(const FatbinImage &Image, const FatbinWriteOptions &Options, bool MeasureGenerated,
                PlannedEntry &P) {
  uint64_t Uncompressed = 0;
  uint32_t Compressed = 0;
  uint64_t Flags = 0;
  if (Image.Is64Bit && Options.Host64)
    Flags |= fatbin_flags::Is64Bit;
  if (Image.Debug)
    Flags |= fatbin_flags::Debug;
  Flags |= fatbin_flags::HostLinux;
  if (Image.Arch.isArchSpecific())
    Flags |= fatbin_flags::ArchSpecific;
  if (Image.Arch.isFamilySpecific())
    Flags |= fatbin_flags::FamilySpecific;

  // The driver reads PTX as a C string: cut at an embedded NUL, then terminate.
  StringRef Raw = Image.Payload;
  bool IsPtx = Image.Kind == FatbinKind::Ptx;
  FatbinCompression C = Options.Compression;
  bool Compress = C != FatbinCompression::None &&
                  (Image.Kind != FatbinKind::Elf || Options.CompressElf || (Image.Debug && Options.CompressDebugElf));
  if (Image.Packed && (!Compress || Image.Packed->With != C))
    return createStringError(inconvertibleErrorCode(),
                             "fatbinary image compressed ahead with another scheme than the container's");
  if (Image.PayloadWriter && !Image.Packed) {
    if (!Compress && Image.Kind != FatbinKind::Elf) {
      // Streamed: written by writeFatbin; measured now unless its size can be patched in afterwards.
      P.Generate = &Image.PayloadWriter;
      if (MeasureGenerated) {
        PayloadStream Counter(nullptr, IsPtx);
        Image.PayloadWriter(Counter);
        P.GeneratedSize = Counter.count();
      } else {
        P.SizeDeferred = true;
      }
    } else {
      StringGatherStream OS(P.Materialized);
      Image.PayloadWriter(OS);
      Raw = P.Materialized;
    }
  }
  if (IsPtx)
    Raw = Raw.split('\0').first;

  std::string CompatData;
  StringRef OptionData = Image.Options;
  bool WantOptions = IsPtx || !OptionData.empty();
  if (Image.Kind == FatbinKind::Elf && OptionData.empty() && Image.Arch.Sm >= 100) {
    if (auto Compat = findElfSection(Raw, ".nv.compat"); Compat && !Compat->empty()) {
      CompatData = compatOptions(*Compat);
      OptionData = CompatData;
      Flags |= fatbin_flags::CompatInOptions;
      WantOptions = true;
    }
  }

  if (Compress) {
    if (Image.Packed) {
      P.Stored = Image.Packed->Bytes;
      Uncompressed = Image.Packed->Uncompressed;
    } else {
      // The compressed stream covers the terminating NUL too, so PTX needs one contiguous copy here.
      std::string Terminated;
      StringRef Input = Raw;
      if (IsPtx) {
        Terminated.reserve(Raw.size() + 1);
        Terminated.append(Raw.data(), Raw.size());
        Terminated.push_back('\0');
        Input = Terminated;
      }
      auto Packed = packPayload(Input, Options);
      if (!Packed)
        return Packed.takeError();
      P.Packed = std::move(Packed->Bytes);
      P.Stored = P.Packed;
      Uncompressed = Packed->Uncompressed;
    }
    Compressed = uint32_t(P.Stored.size());
    Flags |= C == FatbinCompression::Lz4 ? fatbin_flags::CompressedLz4 : fatbin_flags::CompressedZstd;
  } else {
    P.Stored = Raw;
    P.AddNul = IsPtx;
  }

  // Variable part of the header: identifier (NUL, pad 8), then the options record and its data
  // (NUL, pad 8).
  uint64_t HeaderSize = 0x40;
  uint64_t IdentOffset = 0, OptionsOffset = 0;
  if (!Image.Identifier.empty()) {
    IdentOffset = HeaderSize;
    HeaderSize = alignTo8(HeaderSize + Image.Identifier.size() + 1);
  }
  if (WantOptions) {
    OptionsOffset = HeaderSize;
    HeaderSize = alignTo8(HeaderSize + 8 + OptionData.size() + 1);
  }
  if (HeaderSize > UINT32_MAX)
    return createStringError(inconvertibleErrorCode(), "fatbinary entry header too large");

  // (A deferred size is a zero placeholder, counted in by writeFatbin once the payload is written.)
  P.PayloadSize = P.SizeDeferred ? 0 : alignTo8((P.Generate ? P.GeneratedSize : P.Stored.size()) + (P.AddNul ? 1 : 0));
  std::string &E = P.Header;
  E.assign(HeaderSize, '\0');
  put16(E, 0x00, uint16_t(Image.Kind));
  put16(E, 0x02, 0x0101);
  put32(E, 0x04, uint32_t(HeaderSize));
  put64(E, 0x08, P.PayloadSize);
  put32(E, 0x10, Compressed);
  put32(E, 0x14, uint32_t(OptionsOffset));
  put16(E, 0x18, Image.VersionMinor);
  put16(E, 0x1A, Image.VersionMajor);
  put32(E, 0x1C, Image.Arch.Sm);
  put32(E, 0x20, uint32_t(IdentOffset));
  put32(E, 0x24, uint32_t(Image.Identifier.size()));
  put64(E, 0x28, Flags);
  put64(E, 0x30, 0);
  put64(E, 0x38, Uncompressed);
  if (IdentOffset)
    memcpy(&E[IdentOffset], Image.Identifier.data(), Image.Identifier.size());
  if (WantOptions) {
    put32(E, OptionsOffset, uint32_t(OptionsOffset + 8));
    put32(E, OptionsOffset + 4, uint32_t(OptionData.size()));
    if (!OptionData.empty())
      memcpy(&E[OptionsOffset + 8], OptionData.data(), OptionData.size());
  }
  return Error::success();
}

} // namespace

Expected<FatbinCompressionSetting> parseFatbinCompression(StringRef Text) {
  auto [SchemeName, LevelText] = Text.split(':');
  FatbinCompressionSetting Setting;
  Setting.Scheme = StringSwitch<FatbinCompression>(SchemeName)
                       .Case("zstd", FatbinCompression::Zstd)
                       .Case("lz4", FatbinCompression::Lz4)
                       .Case("none", FatbinCompression::None)
                       .Default(FatbinCompression::Unknown);
  // The levels each library accepts: zstd 1-22, LZ4 HC 1-12; `none` takes none.
  int MaxLevel = Setting.Scheme == FatbinCompression::Zstd  ? 22
                 : Setting.Scheme == FatbinCompression::Lz4 ? 12
                                                            : 0;
  if (Setting.Scheme == FatbinCompression::Unknown ||
      (!LevelText.empty() && (LevelText.getAsInteger(10, Setting.Level) || Setting.Level < 1 || Setting.Level > MaxLevel)))
    return createStringError(inconvertibleErrorCode(),
                             "--compress takes zstd[:1-22], lz4[:1-12] or none, got '" + Text + "'");
  return Setting;
}

Error packFatbinImage(FatbinImage &Image, const FatbinWriteOptions &Options) {
  if (Image.Kind != FatbinKind::Ptx || Options.Compression == FatbinCompression::None || Image.Packed)
    return Error::success();
  std::string Input;
  if (Image.PayloadWriter) {
    StringGatherStream OS(Input);
    Image.PayloadWriter(OS);
  } else {
    Input = std::move(Image.Payload);
  }
  // As planEntry: PTX is cut at an embedded NUL and terminated, and the stream covers the terminator.
  if (size_t Nul = Input.find('\0'); Nul != std::string::npos)
    Input.resize(Nul);
  Input.push_back('\0');
  auto Packed = packPayload(Input, Options);
  if (!Packed)
    return Packed.takeError();
  Image.Packed = std::move(*Packed);
  Image.Payload.clear();
  Image.PayloadWriter = nullptr;
  return Error::success();
}

// Every entry is planned first (headers, compression) so the container size is known; then headers
// and payloads go straight to the stream: an uncompressed payload is never copied. A generated payload
// (the linker's printed PTX, as large as the program) would have to be generated twice to be measured
// first; into a seekable file it is generated once, and the three size fields that depend on it (the
// container's, the entry's) are written over their placeholders at the end.
Error writeFatbin(ArrayRef<FatbinImage> Images, const FatbinWriteOptions &Options, raw_ostream &OS) {
  GatheringFdStream *File = Options.PatchableFile == &OS ? Options.PatchableFile : nullptr;
  bool CanPatch = File && File->supportsSeeking();
  std::vector<PlannedEntry> Entries(Images.size());
  for (const FatbinImage &Image : Images)
    if (Image.Kind != FatbinKind::Ptx && Image.Kind != FatbinKind::Elf && Image.Kind != FatbinKind::LtoIr)
      return createStringError(inconvertibleErrorCode(), "cannot write fatbinary image of kind %u",
                               unsigned(Image.Kind));
  // Planning compresses; the images are independent, so they are compressed in parallel (a --sass link's
  // PTX image and cubin each take ~50 ms with zstd:3 on the 100-module program). The first error in
  // image order is reported, so the result does not depend on scheduling.
  std::vector<std::optional<std::string>> PlanErrors(Images.size());
  auto Plan = [&](size_t I) {
    if (Error E = planEntry(Images[I], Options, /*MeasureGenerated=*/!CanPatch, Entries[I]))
      PlanErrors[I] = toString(std::move(E));
  };
  if (Options.Exec)
    Options.Exec->parallelFor(0, Images.size(), Plan);
  else
    for (size_t I = 0; I < Images.size(); ++I)
      Plan(I);
  uint64_t BodySize = 0;
  for (size_t I = 0; I < Images.size(); ++I) {
    if (PlanErrors[I])
      return createStringError(inconvertibleErrorCode(), *PlanErrors[I]);
    BodySize += Entries[I].Header.size() + Entries[I].PayloadSize;
  }
  std::string Header(16, '\0');
  put32(Header, 0, FatbinMagic);
  put16(Header, 4, 1);
  put16(Header, 6, 16);
  put64(Header, 8, BodySize);
  uint64_t Start = OS.tell();
  OS << Header;
  static const char Zeros[8] = {};
  std::vector<std::pair<uint64_t, uint64_t>> Patches; // (offset in the output, 64-bit value)
  for (PlannedEntry &P : Entries) {
    uint64_t HeaderAt = OS.tell() - Start;
    OS << P.Header;
    uint64_t Written = P.Stored.size();
    if (P.Generate) {
      OS.flush();
      PayloadStream Forward(&OS, P.AddNul, File);
      (*P.Generate)(Forward);
      Written = Forward.count(); // (Forward's end writes what it and the generator lent to File)
      if (P.SizeDeferred) {
        P.PayloadSize = alignTo8(Written + (P.AddNul ? 1 : 0));
        BodySize += P.PayloadSize;
        Patches.push_back({HeaderAt + 0x08, P.PayloadSize});
      } else if (Written != P.GeneratedSize) {
        return createStringError(inconvertibleErrorCode(),
                                 "fatbinary payload changed between measuring and writing it");
      }
    } else {
      OS.write(P.Stored.data(), P.Stored.size());
    }
    if (P.AddNul) {
      OS.write('\0');
      ++Written;
    }
    OS.write(Zeros, P.PayloadSize - Written);
  }
  if (!Patches.empty()) {
    Patches.push_back({8, BodySize});
    for (auto [At, Value] : Patches) {
      char Bytes[8];
      support::endian::write64le(Bytes, Value);
      File->pwrite(Bytes, sizeof(Bytes), Start + At);
    }
  }
  return Error::success();
}

} // namespace ptxlink
