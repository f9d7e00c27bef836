// Reading NVIDIA fatbinary containers from memory, as the CUDA driver and cuobjdump do, but defensively.
//
// The problem: a fatbinary is a chain of length-prefixed records with no index and no checksum; every
// size in it may lie. The reader checks each field against the bytes that are really there, reports a
// broken image with its byte offset and moves on to the next image (or, when a container header is
// unreadable, stops), so a dump tool can show everything that is intact. Decompression never allocates
// more than the entry's declared size, nor more than a sane multiple of the compressed size.
#include "ptxlink/Fatbin.h"

#include "FatbinInternal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <lz4.h>
#include <zstd.h>

using namespace llvm;

namespace ptxlink {
namespace {

uint16_t rd16(StringRef B, uint64_t Off) { return support::endian::read16le(B.data() + Off); }
uint32_t rd32(StringRef B, uint64_t Off) { return support::endian::read32le(B.data() + Off); }
uint64_t rd64(StringRef B, uint64_t Off) { return support::endian::read64le(B.data() + Off); }

// LZ4 cannot expand more than 255:1 (every further 255 bytes of a match length costs one input byte),
// so its output buffer - allocated whole before decoding - is bounded by that; zstd can in theory
// (RLE blocks) reach ~32768:1 but real images stay far below 4096:1, and its output grows only as it
// really appears. The bounds stop a lying size field or a bomb from allocating gigabytes.
constexpr uint64_t MaxRatioLz4 = 255, MaxRatioZstd = 4096;
constexpr uint64_t MaxDecompressed = uint64_t(4) << 30;

/// The most bytes codec C can produce from Stored bytes (within MaxDecompressed).
uint64_t codecBound(FatbinCompression C, uint64_t Stored) {
  return std::min<uint64_t>(MaxDecompressed, C == FatbinCompression::Lz4 ? Stored * MaxRatioLz4 + 16
                                                                         : Stored * MaxRatioZstd + (1 << 20));
}

} // namespace

std::string fatbinKindName(FatbinKind Kind) {
  switch (Kind) {
  case FatbinKind::Ptx:
    return "ptx";
  case FatbinKind::Elf:
    return "elf";
  case FatbinKind::LtoIr:
    return "ltoir";
  }
  return "kind" + std::to_string(unsigned(Kind));
}

StringRef fatbinCompressionName(FatbinCompression C) {
  switch (C) {
  case FatbinCompression::None:
    return "none";
  case FatbinCompression::Lz4:
    return "lz4";
  case FatbinCompression::Zstd:
    return "zstd";
  case FatbinCompression::Unknown:
    break;
  }
  return "unknown";
}

std::string fatbinArchName(const FatbinImage &Image) {
  return Image.Arch.name(/*Virtual=*/Image.Kind == FatbinKind::Ptx);
}

bool isFatbin(StringRef Bytes) { return Bytes.size() >= 4 && rd32(Bytes, 0) == FatbinMagic; }

Expected<std::string> decompressFatbinPayload(StringRef Stored, FatbinCompression C, uint64_t Expected) {
  uint64_t Bound = codecBound(C, Stored.size());
  if (Expected > Bound)
    return createStringError(inconvertibleErrorCode(),
                             "implausible uncompressed size %llu for %zu compressed bytes",
                             (unsigned long long)Expected, Stored.size());
  std::string Out;
  if (C == FatbinCompression::Lz4) {
    if (Expected > uint64_t(INT32_MAX) || Stored.size() > uint64_t(INT32_MAX))
      return createStringError(inconvertibleErrorCode(), "LZ4 image too large");
    Out.resize(Expected);
    int N = LZ4_decompress_safe(Stored.data(), Out.data(), int(Stored.size()), int(Out.size()));
    if (N < 0)
      return createStringError(inconvertibleErrorCode(), "corrupt LZ4 block");
    if (uint64_t(N) != Expected)
      return createStringError(inconvertibleErrorCode(), "LZ4 block decompresses to %d bytes, header says %llu",
                               N, (unsigned long long)Expected);
    return Out;
  }
  if (C == FatbinCompression::Zstd) {
    // Stream into a buffer that grows only as output really appears (never past Expected).
    ZSTD_DCtx *D = ZSTD_createDCtx();
    if (!D)
      return createStringError(inconvertibleErrorCode(), "out of memory");
    ZSTD_inBuffer In{Stored.data(), Stored.size(), 0};
    size_t Chunk = std::max<size_t>(ZSTD_DStreamOutSize(), 1);
    bool Done = false;
    std::string Err;
    for (;;) {
      size_t Want = std::min<uint64_t>(Chunk, Expected - Out.size() + 1); // +1 to notice overrun
      size_t Old = Out.size();
      Out.resize(Old + Want);
      ZSTD_outBuffer OutB{Out.data() + Old, Want, 0};
      size_t R = ZSTD_decompressStream(D, &OutB, &In);
      Out.resize(Old + OutB.pos);
      if (ZSTD_isError(R)) {
        Err = std::string("corrupt zstd frame: ") + ZSTD_getErrorName(R);
        break;
      }
      if (Out.size() > Expected) {
        Err = formatv("zstd frame decompresses to more than the {0} bytes the header says", Expected).str();
        break;
      }
      if (R == 0) {
        Done = true;
        break;
      }
      if (In.pos == In.size && OutB.pos < Want) {
        Err = "truncated zstd frame";
        break;
      }
    }
    ZSTD_freeDCtx(D);
    if (!Err.empty())
      return createStringError(inconvertibleErrorCode(), Err);
    if (!Done)
      return createStringError(inconvertibleErrorCode(), "truncated zstd frame");
    if (Out.size() != Expected)
      return createStringError(inconvertibleErrorCode(), "zstd frame decompresses to %zu bytes, header says %llu",
                               Out.size(), (unsigned long long)Expected);
    return Out;
  }
  return createStringError(inconvertibleErrorCode(), "unknown compression scheme");
}

void forEachFatbinEntry(StringRef Bytes, const std::function<void(uint64_t, const Twine &)> &Warn,
                        function_ref<void(FatbinEntry &)> Visit) {
  uint64_t Pos = 0;
  while (Pos < Bytes.size()) {
    // Host sections pad between containers with zeros (a container never starts with a zero byte).
    if (Bytes[Pos] == 0) {
      ++Pos;
      continue;
    }
    if (Bytes.size() - Pos < 16) {
      Warn(Pos, formatv("truncated fatbinary header: {0} bytes left, need 16", Bytes.size() - Pos));
      break;
    }
    if (rd32(Bytes, Pos) != FatbinMagic) {
      Warn(Pos, formatv("bad fatbinary magic 0x{0:x-8}", rd32(Bytes, Pos)));
      break;
    }
    uint16_t Version = rd16(Bytes, Pos + 4), HeaderSize = rd16(Bytes, Pos + 6);
    uint64_t BodySize = rd64(Bytes, Pos + 8);
    if (Version != 1)
      Warn(Pos + 4, formatv("unexpected fatbinary version {0}", Version));
    if (HeaderSize < 16 || HeaderSize > Bytes.size() - Pos) {
      Warn(Pos + 6, formatv("bad fatbinary header size {0}", HeaderSize));
      break;
    }
    uint64_t Body = Pos + HeaderSize;
    uint64_t End = Body + BodySize;
    if (BodySize > Bytes.size() - Body) {
      Warn(Pos + 8, formatv("fatbinary size {0} runs past the end of the input ({1} bytes left)", BodySize,
                            Bytes.size() - Body));
      End = Bytes.size();
    }
    uint64_t E = Body;
    while (E < End) {
      if (End - E < 0x40) {
        Warn(E, formatv("truncated fatbinary entry header: {0} bytes left, need 64", End - E));
        break;
      }
      FatbinEntry Entry;
      FatbinImage &I = Entry.Image;
      I.EntryOffset = E;
      uint16_t Kind = rd16(Bytes, E);
      I.Kind = FatbinKind(Kind);
      I.HeaderSize = rd32(Bytes, E + 4);
      I.StoredSize = rd64(Bytes, E + 8);
      I.CompressedSize = rd32(Bytes, E + 0x10);
      uint32_t OptOff = rd32(Bytes, E + 0x14);
      I.VersionMinor = rd16(Bytes, E + 0x18);
      I.VersionMajor = rd16(Bytes, E + 0x1A);
      I.Arch.Sm = rd32(Bytes, E + 0x1C);
      uint32_t IdOff = rd32(Bytes, E + 0x20), IdLen = rd32(Bytes, E + 0x24);
      I.RawFlags = rd64(Bytes, E + 0x28);
      I.UncompressedSize = rd64(Bytes, E + 0x38);
      I.Is64Bit = I.RawFlags & fatbin_flags::Is64Bit;
      I.Debug = I.RawFlags & fatbin_flags::Debug;
      I.Arch.Suffix = I.RawFlags & fatbin_flags::ArchSpecific     ? 'a'
                      : I.RawFlags & fatbin_flags::FamilySpecific ? 'f'
                                                                  : 0;
      bool Lz4 = I.RawFlags & fatbin_flags::CompressedLz4, Zstd = I.RawFlags & fatbin_flags::CompressedZstd;
      I.Compression = Lz4 && Zstd ? FatbinCompression::Unknown
                      : Lz4       ? FatbinCompression::Lz4
                      : Zstd      ? FatbinCompression::Zstd
                                  : FatbinCompression::None;
      // Compressed LTO-IR uses a scheme of its own: nvcc -dlto sets 0x8000 together with 0x10000 and a
      // non-zero reserved field, but the payload is no zstd frame. Keep it opaque (as stored).
      if (I.Kind == FatbinKind::LtoIr && I.Compression != FatbinCompression::None)
        I.Compression = FatbinCompression::Unknown;
      if (I.Compression == FatbinCompression::None && I.CompressedSize != 0)
        I.Compression = FatbinCompression::Unknown;

      uint64_t Left = End - E;
      if (I.HeaderSize < 0x40 || I.HeaderSize > Left) {
        Warn(E + 4, formatv("bad entry header size {0} ({1} bytes left in the container)", I.HeaderSize, Left));
        break; // cannot find the next entry
      }
      bool Stop = false;
      uint64_t Stored = I.StoredSize;
      if (Stored > Left - I.HeaderSize) {
        Warn(E + 8, formatv("entry payload size {0} runs past the end of the container ({1} bytes left)", Stored,
                            Left - I.HeaderSize));
        Stored = Left - I.HeaderSize;
        Stop = true;
      }
      StringRef Header = Bytes.substr(E, I.HeaderSize);
      if (IdOff) {
        if (IdOff < 0x40 || IdOff > Header.size() || IdLen > Header.size() - IdOff)
          Warn(E + 0x20, formatv("identifier ({0} bytes at entry offset {1}) lies outside the entry header", IdLen,
                                 IdOff));
        else
          I.Identifier = Header.substr(IdOff, IdLen).str();
      }
      if (OptOff) {
        if (OptOff < 0x40 || OptOff > Header.size() || Header.size() - OptOff < 8) {
          Warn(E + 0x14, formatv("options record at entry offset {0} lies outside the entry header", OptOff));
        } else {
          uint32_t DataOff = rd32(Header, OptOff), DataLen = rd32(Header, OptOff + 4);
          if (DataOff > Header.size() || DataLen > Header.size() - DataOff)
            Warn(E + OptOff, formatv("options data ({0} bytes at entry offset {1}) lies outside the entry header",
                                     DataLen, DataOff));
          else
            I.Options = Header.substr(DataOff, DataLen).str();
        }
      }
      Entry.Stored = Bytes.substr(E + I.HeaderSize, Stored);
      Entry.PayloadOffset = E + I.HeaderSize;
      Visit(Entry);
      if (Kind != 1 && Kind != 2 && Kind != 8 && Kind != 4)
        Warn(E, formatv("unknown fatbinary image kind {0}", Kind));
      if (Stop)
        break;
      E = E + I.HeaderSize + Stored;
    }
    Pos = End;
  }
}

bool loadFatbinPayload(FatbinEntry &Entry, const std::function<void(uint64_t, const Twine &)> &Warn,
                       bool Decompress, DecompressionBudget *Budget) {
  FatbinImage &I = Entry.Image;
  StringRef Payload = Entry.Stored;
  uint64_t PayloadPos = Entry.PayloadOffset;
  bool Good = true;
  if (I.Compression != FatbinCompression::None) {
    bool Decodable = I.Compression == FatbinCompression::Lz4 || I.Compression == FatbinCompression::Zstd;
    if (I.CompressedSize > Payload.size()) {
      Warn(I.EntryOffset + 0x10, formatv("compressed size {0} exceeds the stored payload ({1} bytes)",
                                         I.CompressedSize, Payload.size()));
      Good = false;
    } else if (Decompress && Budget && Decodable &&
               I.UncompressedSize <= codecBound(I.Compression, I.CompressedSize) && // else implausible
               !Budget->take(I.UncompressedSize)) {
      // Only ptxlink-dump hands the reader a budget (the linker charges its own, HostInputs.cpp).
      Warn(PayloadPos, formatv("image of {0} bytes exceeds what is left of this run's decompression "
                               "budget ({1} bytes): not decompressed (raise the budget with --max-decompressed SIZE)",
                               I.UncompressedSize, Budget->remaining()));
      Good = false;
    } else if (Decompress && Decodable) {
      auto Out = decompressFatbinPayload(Payload.take_front(I.CompressedSize), I.Compression, I.UncompressedSize);
      if (!Out) {
        Warn(PayloadPos, toString(Out.takeError()));
        Good = false;
      } else {
        I.Payload = std::move(*Out);
      }
    } else {
      I.Payload = Payload.take_front(I.CompressedSize ? I.CompressedSize : Payload.size()).str();
    }
  } else {
    I.Payload = Payload.str();
  }
  if (Good && I.Kind == FatbinKind::Ptx && (I.Compression == FatbinCompression::None || Decompress))
    I.Payload.resize(StringRef(I.Payload).find('\0') == StringRef::npos ? I.Payload.size()
                                                                        : StringRef(I.Payload).find('\0'));
  return Good;
}

std::vector<FatbinImage> readFatbin(StringRef Bytes, const std::function<void(uint64_t, const Twine &)> &Warn,
                                    bool Decompress, DecompressionBudget *Budget) {
  std::vector<FatbinImage> Images;
  forEachFatbinEntry(Bytes, Warn, [&](FatbinEntry &Entry) {
    if (loadFatbinPayload(Entry, Warn, Decompress, Budget))
      Images.push_back(std::move(Entry.Image));
  });
  return Images;
}

uint64_t payloadTrueSize(const FatbinImage &Image) {
  StringRef P = Image.Payload;
  if (Image.Kind == FatbinKind::Ptx)
    return P.find('\0') == StringRef::npos ? P.size() : P.find('\0');
  if (Image.Kind == FatbinKind::Elf) {
    uint64_t N = elfExtent(P);
    return N ? N : P.size();
  }
  return P.size();
}

} // namespace ptxlink
