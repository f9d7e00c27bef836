// Fatbinaries embedded in host (CPU) ELF files, as nvcc lays them out: finding them in objects,
// executables and shared libraries, and writing the C source that embeds one (what
// `fatbinary --embedded-fatbin` produces), so a host compiler can link our output into a program.
#pragma once

#include "ptxlink/Cubin.h"
#include "ptxlink/Fatbin.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// One section holding fatbinary containers (`.nv_fatbin` or `__nv_relfatbin`).
struct EmbeddedFatbin {
  std::string SectionName;
  uint64_t FileOffset = 0;
  llvm::StringRef Bytes; // points into the input
};

/// One `__fatBinC_Wrapper_t` record in `.nvFatBinSegment`.
struct FatbinWrapper {
  uint64_t FileOffset = 0;
  uint32_t Magic = 0, Version = 0;
  uint64_t Data = 0, FilenameOrFatbins = 0;
  std::string DataTarget; // what the data pointer refers to ("__nv_relfatbin+0", or a section name)
};

struct HostEmbedInfo {
  uint16_t Type = 0;    // e_type
  uint16_t Machine = 0; // e_machine
  std::vector<EmbeddedFatbin> Fatbins;
  std::vector<FatbinWrapper> Wrappers;
  /// `.nvHRKE` etc. and their NUL-separated names (host references used by nvlink --use-host-info).
  std::vector<std::pair<std::string, std::vector<std::string>>> HostRefs;
  std::string ModuleId; // contents of __nv_module_id, if present (the first string)
  /// Every module id named in __nv_module_id: an `nvcc -rdc` object holds its own (`_<hash>_<n>_<file>_...`),
  /// a device-link object (nvcc -dlink, ptxlink --emit host-object) one `def <id>` per linked module;
  /// listed here without the `def `.
  std::vector<std::string> ModuleIds;
  /// Names of the `__cudaRegisterLinkedBinary_<id>` functions an object defines (a device-link object).
  std::vector<std::string> LinkedBinaryFunctions;
  /// The identifier-like strings of the object's read-only data (`.rodata*`), sorted and unique: the
  /// names its static initializer passes to `__cudaRegisterFunction` / `__cudaRegisterVar` are string
  /// literals there. A superset of what the object registers (a user's own literal may match a name).
  std::vector<std::string> ReadOnlyNames;
};

constexpr uint32_t FatbinWrapperMagic = 0x466243B1;

/// True for a 64-bit little-endian ELF that is not a device ELF (e_machine != EM_CUDA).
bool isHostElf(llvm::StringRef Bytes);

/// Finds the embedded fatbinaries and wrappers; problems go to Warn with file offsets.
HostEmbedInfo readHostEmbedding(llvm::StringRef Bytes, const CubinWarnFn &Warn);

/// Writes C source that places Fatbin in `.nv_fatbin` (or `__nv_relfatbin` when Relocatable) and
/// defines the wrapper record in `.nvFatBinSegment`, like `fatbinary --embedded-fatbin`. The source
/// declares the wrapper type itself, so it compiles without CUDA's headers. For Relocatable the wrapper
/// is the global `__fatbinwrap_<ModuleId>`, otherwise the static `__fatDeviceText`.
void writeEmbeddedFatbinSource(llvm::StringRef Fatbin, llvm::raw_ostream &OS, bool Relocatable = false,
                               llvm::StringRef ModuleId = "");

/// The device code of one host object made by `nvcc -rdc=true -c` / `nvcc -dc`, as a device link needs it.
struct HostDeviceCode {
  std::string ModuleId;              // from __nv_module_id: the <id> of __cudaRegisterLinkedBinary<id>
  /// The images of __nv_relfatbin in stored order, as stored (compressed payloads stay compressed:
  /// decompressFatbinPayload); EntryOffset counts from the start of the host object.
  std::vector<FatbinImage> Images;
  bool HasRelocatableFatbin = false; // false: no device code to link (a plain host object, or `nvcc -c`)
  /// The device names the host code may register with the CUDA runtime (HostEmbedInfo::ReadOnlyNames):
  /// a kernel or variable not among them is never looked up by name, so the link may rename it.
  std::vector<std::string> RegisteredNames;
};

/// Reads the relocatable fatbinary and module id of a host ELF object. Errors name Name and the byte
/// offset of the problem (a damaged fatbinary, a relocatable fatbinary without a module id).
llvm::Expected<HostDeviceCode> readHostDeviceCode(llvm::StringRef Bytes, llvm::StringRef Name);

/// Writes the device-link object of a CUDA program for x86-64 Linux (what `nvcc -dlink` writes): Fatbin
/// in `.nv_fatbin`, the `__fatDeviceText` wrapper (version 2, with the NULL-terminated list of the
/// modules' relocatable fatbins) in `.nvFatBinSegment`, and `__cudaRegisterLinkedBinary<id>` for every
/// id in ModuleIds, which registers the linked fatbinary with the CUDA runtime once every module's
/// static initializer has called in. See docs/host-link.md for the code and why it is hand-encoded.
llvm::Error writeDeviceLinkObject(llvm::StringRef Fatbin, llvm::ArrayRef<std::string> ModuleIds, llvm::raw_ostream &OS);

} // namespace ptxlink
