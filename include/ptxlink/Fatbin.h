// NVIDIA's fatbinary container (the file the CUDA driver loads): reading, writing, (de)compression.
// Layout as observed in shared/reference/nvidia-formats.md and confirmed in docs/nvidia-formats.md.
#pragma once

#include "ptxlink/Diagnostics.h"
#include "ptxlink/GatherStream.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ptxlink/Target.h"

namespace ptxlink {

class Executor;

enum class FatbinKind : uint16_t { Ptx = 1, Elf = 2, LtoIr = 8 };
enum class FatbinCompression : uint8_t { None, Lz4, Zstd, Unknown };

/// One image (entry) of a fatbinary.
struct FatbinImage {
  FatbinKind Kind = FatbinKind::Ptx;
  Target Arch;                     // {90, 'a'} for sm_90a / compute_90a: the entry's SM field and flags
  uint16_t VersionMajor = 0, VersionMinor = 0; // PTX .version for PTX images; ELF: 1 / EI_ABIVERSION
  bool Is64Bit = true;
  bool Debug = false;
  std::string Identifier;          // --ident, may be empty
  std::string Options;             // options record data (e.g. "--compile-only  " for -rdc PTX)
  /// Uncompressed payload: PTX text without the trailing NUL and padding, or the ELF bytes (for images
  /// read from a file, exact only for compressed images; uncompressed ELF payloads keep their padding,
  /// see payloadTrueSize()).
  std::string Payload;
  /// Optional, instead of Payload: produces the payload on demand so the writer streams it to the output
  /// without holding it in memory (the linker's printed PTX). writeFatbin calls it twice, once to measure,
  /// once to write: it must produce the same bytes both times. Text it passes to writeBorrowed must stay
  /// valid until it returns.
  std::function<void(GatherStream &)> PayloadWriter;
  /// Set by packFatbinImage, instead of Payload and PayloadWriter: the payload as stored, compressed.
  struct PackedPayload {
    std::string Bytes;         // the compressed stream
    uint64_t Uncompressed = 0; // what it decompresses to (PTX: with its terminating NUL)
    FatbinCompression With = FatbinCompression::None;
  };
  std::optional<PackedPayload> Packed;

  // Filled by the reader, ignored by the writer:
  uint64_t EntryOffset = 0;        // from the start of the container's first byte
  uint32_t HeaderSize = 0;
  uint64_t StoredSize = 0;         // payload size field (padded to 8)
  uint32_t CompressedSize = 0;
  uint64_t UncompressedSize = 0;
  uint64_t RawFlags = 0;
  FatbinCompression Compression = FatbinCompression::None;
};

struct FatbinWriteOptions {
  FatbinCompression Compression = FatbinCompression::None; // applied to PTX images
  bool Host64 = true;
  bool CompressElf = false; // also compress ELF images (fatbinary --compress-all)
  /// Also compress ELF images with debug information (Image.Debug), as nvcc -dlink does: a -G cubin is
  /// mostly DWARF, which zstd makes a ninth of its size, and a debug build does not mind the driver
  /// decompressing it at the first launch.
  bool CompressDebugElf = false;
  int ZstdLevel = 19;       // zstd level when Compression == Zstd
  int Lz4Level = 0;         // LZ4: 0 = the fast compressor, 1-12 = LZ4 HC at that level
  /// The output stream itself, when the caller knows it is a file it opened for writing from the start
  /// (not standard output, not O_APPEND): sizes of streamed payloads are then written over placeholders
  /// afterwards instead of generating each payload twice (once only to measure it).
  /// It also takes the payloads' lent text by reference (GatherStream.h).
  GatheringFdStream *PatchableFile = nullptr;
  /// Where the images are compressed in parallel (the process's pool, Executor.h); null: one after another.
  Executor *Exec = nullptr;
};

/// A `--compress` value as ptxlink and ptxlink-dump both take it: `none`, `lz4[:1-12]` (a level selects LZ4
/// HC, without one the fast compressor) or `zstd[:1-22]`.
struct FatbinCompressionSetting {
  FatbinCompression Scheme = FatbinCompression::None;
  int Level = 0; // 0: no level given (the tool picks its default for the scheme)
};

/// Parses a `--compress` value ("zstd", "zstd:19", "lz4:9", "none"); the Error says what is accepted and
/// quotes Text.
llvm::Expected<FatbinCompressionSetting> parseFatbinCompression(llvm::StringRef Text);

/// Flag bits of an entry header (docs/nvidia-formats.md).
namespace fatbin_flags {
constexpr uint64_t Is64Bit = 0x1, Debug = 0x2, HostLinux = 0x10, HostMac = 0x20, HostWindows = 0x40,
                   CompressedLz4 = 0x2000, CompressedZstd = 0x8000, ArchSpecific = 0x100000,
                   FamilySpecific = 0x200000, CompatInOptions = 0x1000000;
} // namespace fatbin_flags

constexpr uint32_t FatbinMagic = 0xBA55ED50;

/// Compresses a PTX image's payload now, as writeFatbin would with Options, and keeps only the result
/// (Image.Packed), so that the work can be done ahead, on another thread: a `--sass` link's PTX image is
/// known before ptxas and nvlink run. Does nothing where Options compress no PTX.
llvm::Error packFatbinImage(FatbinImage &Image, const FatbinWriteOptions &Options);

/// Writes one container holding Images in order. Deterministic.
llvm::Error writeFatbin(llvm::ArrayRef<FatbinImage> Images, const FatbinWriteOptions &Options, llvm::raw_ostream &OS);

/// True if Bytes starts with the fatbinary magic.
bool isFatbin(llvm::StringRef Bytes);

/// How many bytes a run may still decompress, over all its images and inputs: each image's declared
/// size is taken from it before any buffer is allocated, so many small bombs cannot add up to
/// gigabytes. A tool starts with Base and adds PerInputByte for each byte of input it reads, which keeps
/// its peak memory near the issue-15 target of twice the input plus 100 MB.
class DecompressionBudget {
public:
  static constexpr uint64_t Base = uint64_t(100) << 20;
  static constexpr uint64_t PerInputByte = 2;
  DecompressionBudget() = default;
  /// A budget of exactly Bytes (a pass whose images are dropped again gets what is left of the run's).
  explicit DecompressionBudget(uint64_t Bytes) : Left(Bytes) {}
  void addInput(uint64_t Bytes) { Left.fetch_add(PerInputByte * Bytes, std::memory_order_relaxed); }
  /// Takes N bytes if that many are left; false (and nothing taken) otherwise. Thread-safe: the linker
  /// decompresses the PTX of several host objects at once.
  bool take(uint64_t N) {
    uint64_t Now = Left.load(std::memory_order_relaxed);
    while (N <= Now)
      if (Left.compare_exchange_weak(Now, Now - N, std::memory_order_relaxed))
        return true;
    return false;
  }
  uint64_t remaining() const { return Left.load(std::memory_order_relaxed); }

private:
  std::atomic<uint64_t> Left{Base};
};

/// Reads every container in Bytes (several may follow each other, as in a host .nv_fatbin section).
/// Problems with one image are reported through Warn (with the byte offset) and the reader goes on
/// with the next image; a broken container header ends the walk. Never trusts a size field beyond the
/// input. `Decompress` = false leaves compressed payloads as stored. With a Budget, an image whose
/// declared size exceeds what is left of it is reported and skipped, undecompressed.
std::vector<FatbinImage> readFatbin(llvm::StringRef Bytes, const std::function<void(uint64_t Offset, const llvm::Twine &)> &Warn,
                                    bool Decompress = true, DecompressionBudget *Budget = nullptr);

/// One entry of a fatbinary as a walk meets it: the header fields decoded into Image (its Payload still
/// empty) and the payload bytes as stored, so that a caller can hold one image at a time.
struct FatbinEntry {
  FatbinImage Image;
  llvm::StringRef Stored;     // within the walked bytes; still compressed for compressed images
  uint64_t PayloadOffset = 0; // of Stored, from the start of the walked bytes
};

/// The walk readFatbin makes, one entry at a time: header problems are reported through Warn, then Visit
/// is called with the entry (it may load the payload, see loadFatbinPayload), then the next entry is
/// read. Nothing is kept: memory does not grow with the number of entries.
void forEachFatbinEntry(llvm::StringRef Bytes, const std::function<void(uint64_t Offset, const llvm::Twine &)> &Warn,
                        llvm::function_ref<void(FatbinEntry &)> Visit);

/// Fills Entry.Image.Payload as readFatbin does (decompressed when Decompress, charged to Budget when one
/// is given); false, with the reason through Warn, when the payload cannot be had (readFatbin then
/// leaves the image out).
bool loadFatbinPayload(FatbinEntry &Entry, const std::function<void(uint64_t Offset, const llvm::Twine &)> &Warn,
                       bool Decompress, DecompressionBudget *Budget);

/// "sm_90a" / "sm_100f" / "sm_80" spelled from an image's fields.
std::string fatbinArchName(const FatbinImage &Image);

/// "ptx", "elf", "ltoir" or "kind<N>".
std::string fatbinKindName(FatbinKind Kind);
/// "none", "lz4", "zstd", "unknown".
llvm::StringRef fatbinCompressionName(FatbinCompression C);

/// The true size of an image's payload: for PTX the text up to the first NUL; for ELF the end of the
/// furthest header, section or segment named by the ELF headers (payloads are stored padded to 8);
/// otherwise the payload size. Never exceeds Payload.size().
uint64_t payloadTrueSize(const FatbinImage &Image);

/// Builds a PTX image from PTX text: SM, a/f, version and address size from its .version / .target /
/// .address_size directives (an error if .version or .target is missing or malformed).
llvm::Expected<FatbinImage> makePtxImage(llvm::StringRef Ptx);

/// Builds an ELF image from an NVIDIA cubin: SM from e_flags, `a` from .nv.compat, version fields as
/// fatbinary writes them. An error if Bytes is not a 64-bit little-endian EM_CUDA ELF.
llvm::Expected<FatbinImage> makeCubinImage(llvm::StringRef Bytes);

/// Decompresses one stored payload. `Expected` is the uncompressed size recorded in the entry; the
/// output never exceeds it, nor what the codec can produce from the stored bytes (LZ4: 255 to 1; zstd,
/// whose format allows more, 4096 to 1, far above real images).
llvm::Expected<std::string> decompressFatbinPayload(llvm::StringRef Stored, FatbinCompression C, uint64_t Expected);

} // namespace ptxlink
