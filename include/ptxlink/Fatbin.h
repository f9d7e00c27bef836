// NVIDIA's fatbinary container (the file the CUDA driver loads): reading, writing, (de)compression.
// Layout as observed in shared/reference/nvidia-formats.md and confirmed in docs/nvidia-formats.md.
#pragma once

#include "ptxlink/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ptxlink {

enum class FatbinKind : uint16_t { Ptx = 1, Elf = 2, LtoIr = 8 };
enum class FatbinCompression : uint8_t { None, Lz4, Zstd, Unknown };

/// One image (entry) of a fatbinary.
struct FatbinImage {
  FatbinKind Kind = FatbinKind::Ptx;
  uint32_t Sm = 0;                 // 90 for sm_90 / sm_90a / compute_90
  bool ArchSpecific = false;       // sm_XXa
  bool FamilySpecific = false;     // sm_XXXf
  uint16_t VersionMajor = 0, VersionMinor = 0; // PTX .version for PTX images; ELF: 1 / EI_ABIVERSION
  bool Is64Bit = true;
  bool Debug = false;
  std::string Identifier;          // --ident, may be empty
  std::string Options;             // options record data (e.g. "--compile-only  " for -rdc PTX)
  /// Uncompressed payload: PTX text without the trailing NUL and padding, or the ELF bytes (for images
  /// read from a file, exact only for compressed images; uncompressed ELF payloads keep their padding,
  /// see payloadTrueSize()).
  std::string Payload;

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
};

/// Writes one container holding Images in order. Deterministic.
llvm::Error writeFatbin(llvm::ArrayRef<FatbinImage> Images, const FatbinWriteOptions &Options, llvm::raw_ostream &OS);

/// True if Bytes starts with the fatbinary magic.
bool isFatbin(llvm::StringRef Bytes);

/// Reads every container in Bytes (several may follow each other, as in a host .nv_fatbin section).
/// Problems with one image are reported through Warn (with the byte offset) and the reader goes on
/// with the next image; a broken container header ends the walk. Never trusts a size field beyond the
/// input. `Decompress` = false leaves compressed payloads as stored.
std::vector<FatbinImage> readFatbin(llvm::StringRef Bytes, const std::function<void(uint64_t Offset, const llvm::Twine &)> &Warn,
                                    bool Decompress = true);

/// "sm_90a" / "sm_100f" / "sm_80" spelled from an image's fields.
std::string fatbinArchName(const FatbinImage &Image);

} // namespace ptxlink
