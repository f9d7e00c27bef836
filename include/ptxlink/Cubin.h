// Inspecting NVIDIA cubins (device ELF from ptxas -c, nvlink, nvcc): the facts a user of a GPU binary
// asks for (which arch, which kernels, their parameter layout, registers, stack and shared memory, who
// calls whom) decoded from NVIDIA's private ELF conventions (docs/nvidia-formats.md).
//
// Read from memory, every bound checked: a broken section is reported through the warning callback
// with its file offset and skipped, the rest of the file is still described.
#pragma once

#include "ptxlink/Target.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// NVIDIA's ELF values that llvm/BinaryFormat/ELF.h does not name (EM_CUDA, ELFOSABI_CUDA and EF_CUDA_*
/// are there), in one place for the readers, the writers and ptxlink-dump (docs/nvidia-formats.md).
namespace nvelf {
constexpr uint8_t ELFOSABI_CUDA_V2 = 0x41; // today's cubins (ABI version 8); older ones: ELFOSABI_CUDA, 0x33

// Processor-specific section types, as cuobjdump names them: PTXLINK_CUDA_SECTION_TYPES(X) calls
// X(name, value) for each, so that the constants below and cudaSectionTypeName come from one list.
#define PTXLINK_CUDA_SECTION_TYPES(X)                                                                         \
  X(SHT_CUDA_INFO, 0x70000000)          /* .nv.info, .nv.info.<function>: attribute records */               \
  X(SHT_CUDA_CALLGRAPH, 0x70000001)     /* .nv.callgraph: {caller, callee} pairs */                          \
  X(SHT_CUDA_PROTOTYPE, 0x70000002)                                                                           \
  X(SHT_CUDA_RESOLVED_RELA, 0x70000003)                                                                       \
  X(SHT_CUDA_METADATA, 0x70000004)                                                                            \
  X(SHT_CUDA_CONSTANT, 0x70000006)                                                                            \
  X(SHT_CUDA_GLOBAL, 0x70000007)                                                                              \
  X(SHT_CUDA_GLOBAL_INIT, 0x70000008)                                                                         \
  X(SHT_CUDA_LOCAL, 0x70000009)                                                                               \
  X(SHT_CUDA_SHARED, 0x7000000a)                                                                              \
  X(SHT_CUDA_RELOCINFO, 0x7000000b)                                                                           \
  X(SHT_CUDA_UFT, 0x7000000e)                                                                                 \
  X(SHT_CUDA_UFT_INDEX, 0x70000010)                                                                           \
  X(SHT_CUDA_UFT_ENTRY, 0x70000011)                                                                           \
  X(SHT_CUDA_UDT, 0x70000012)                                                                                 \
  X(SHT_CUDA_UDT_ENTRY, 0x70000014)                                                                           \
  X(SHT_CUDA_RESERVED_SHARED, 0x70000015)                                                                     \
  X(SHT_CUDA_COMPAT, 0x70000086)
#define PTXLINK_DEFINE_CUDA_SECTION_TYPE(Name, Value) constexpr uint32_t Name = Value;
PTXLINK_CUDA_SECTION_TYPES(PTXLINK_DEFINE_CUDA_SECTION_TYPE)
#undef PTXLINK_DEFINE_CUDA_SECTION_TYPE
/// Constant banks 0..17: SHT_CUDA_CONSTANT_B0 + bank.
constexpr uint32_t SHT_CUDA_CONSTANT_B0 = 0x70000064, CudaConstantBanks = 18;

/// st_other of a cubin symbol: the kernel flag and the state space (bits 5-7).
constexpr uint8_t STO_CUDA_ENTRY = 0x10, STO_CUDA_SPACE_MASK = 0xe0, STO_CUDA_GLOBAL = 0x20,
                  STO_CUDA_SHARED = 0x40, STO_CUDA_CONSTANT = 0x80;
/// st_info type of a variable in a relocatable cubin (STT_LOPROC).
constexpr uint8_t STT_CUDA_VARIABLE = llvm::ELF::STT_LOPROC;
} // namespace nvelf

using CubinWarnFn = std::function<void(uint64_t Offset, const llvm::Twine &Message)>;

struct CubinSection {
  uint32_t Index = 0;
  std::string Name;
  uint32_t Type = 0;
  uint64_t Flags = 0, Offset = 0, Size = 0, Addr = 0;
  uint32_t Link = 0, Info = 0;
  uint64_t Align = 0, EntSize = 0;
};

struct CubinSymbol {
  uint32_t Index = 0;
  std::string Name;
  uint8_t Bind = 0, Type = 0, Other = 0;
  uint16_t Shndx = 0;
  uint64_t Value = 0, Size = 0;
  bool isKernel() const { return Other & nvelf::STO_CUDA_ENTRY; }
};

struct CubinReloc {
  uint32_t Section = 0;       // the relocation section's index
  uint32_t Target = 0;        // the section it applies to (sh_info)
  uint64_t Offset = 0;
  uint32_t Type = 0;
  uint32_t Symbol = 0;
  int64_t Addend = 0;
};

/// One `.nv.info` attribute record.
struct CubinAttribute {
  uint32_t Section = 0;       // section index holding it
  uint64_t FileOffset = 0;    // of the record
  uint8_t Format = 0, Id = 0;
  uint16_t Value = 0;         // formats 2/3: the value; 4: payload size
  std::string Payload;        // format 4 payload
};

/// One parameter from an EIATTR_KPARAM_INFO record.
struct CubinParam {
  uint32_t Ordinal = 0, Offset = 0, Size = 0;
  uint32_t Word = 0; // the raw flags word (size in bits 18-31)
};

/// What the .nv.info records say about one function or kernel.
struct CubinFunction {
  std::string Name;
  bool IsKernel = false;
  uint32_t TextSection = 0;
  uint64_t CodeSize = 0;
  std::optional<uint32_t> Registers, FrameSize, MinStack, MaxStack, MaxRegCount, ParamSize;
  std::optional<uint32_t> ParamBankOffset;
  uint64_t SharedSize = 0; // from .nv.shared.<name>
  std::vector<CubinParam> Params; // sorted by ordinal
};

struct CubinCallEdge {
  std::string Caller, Callee;
};

/// The e_type of a cubin ptxas makes for nvcc -ewp ("extensible whole program"): relocatable code that
/// nvlink links, as an ET_REL one (ELF's ET_LOPROC).
constexpr uint16_t EwpCubinType = 0xff00;

/// Whether nvlink links a cubin of this e_type with others: -c (ET_REL) and -ewp code, not an executable.
inline bool isLinkableCubinType(uint16_t Type) { return Type == 1 /* ET_REL */ || Type == EwpCubinType; }

struct CubinInfo {
  uint16_t Type = 0; // e_type: 1 REL, 2 EXEC, 0xff00 -ewp (isLinkableCubinType)
  uint8_t OsAbi = 0, AbiVersion = 0;
  uint32_t Flags = 0;
  Target Arch;            // from e_flags (and .nv.compat from ABI 8 on); never family-specific
  uint32_t VirtualSm = 0; // ABI 7 only
  std::vector<CubinSection> Sections;
  std::vector<CubinSymbol> Symbols;
  std::vector<CubinReloc> Relocs;
  std::vector<CubinAttribute> Attributes;
  std::vector<CubinFunction> Functions;
  std::vector<CubinCallEdge> CallGraph;
  /// Function names for the symbol indices used inside .nv.info / .nv.callgraph records (which can
  /// differ from .symtab's, see docs/nvidia-formats.md), keyed by that index.
  std::vector<std::pair<uint32_t, std::string>> InfoSymbolNames;
  /// Names from .note.nv.tkinfo (tool, version, command line), if present.
  std::vector<std::string> ToolInfo;

  std::string archName() const { return Arch.name(); }
};

/// True for a 64-bit ELF with e_machine EM_CUDA and NVIDIA's OSABI (0x41 / 0x33).
bool isCubin(llvm::StringRef Bytes);

/// What the identification bytes and e_machine of any ELF file say, 32- or 64-bit, in either byte order:
/// enough to name a file that is not what a tool wanted ("an ELF file for another machine").
struct ElfIdentity {
  bool Is64Bit = false;
  bool BigEndian = false; // EI_DATA is ELFDATA2MSB; e_machine was read in that order
  uint8_t OsAbi = 0;
  uint16_t Machine = 0;
};
/// std::nullopt unless Bytes start with the ELF magic and hold e_machine (20 bytes).
std::optional<ElfIdentity> identifyElf(llvm::StringRef Bytes);

/// The section table of any 64-bit little-endian ELF file (host objects too), names resolved; problems
/// go to Warn. Empty if the ELF header is unusable.
std::vector<CubinSection> readElfSections(llvm::StringRef Bytes, const CubinWarnFn &Warn);

/// Decodes a cubin; problems go to Warn. Returns std::nullopt only if not even the ELF header is usable.
std::optional<CubinInfo> readCubin(llvm::StringRef Bytes, const CubinWarnFn &Warn);

/// "R_CUDA_ABS55_16_34" etc, or "" if the type number is unknown.
llvm::StringRef cudaRelocName(uint32_t Type);
/// "EIATTR_REGCOUNT" etc, or "" if unknown.
llvm::StringRef cudaAttributeName(uint8_t Id);
/// "SHT_CUDA_INFO" etc for NVIDIA's processor-specific section types, "" otherwise.
llvm::StringRef cudaSectionTypeName(uint32_t Type);

} // namespace ptxlink
