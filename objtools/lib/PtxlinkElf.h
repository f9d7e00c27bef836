// Constants of the ptxlink object format (docs/object-format.md) shared by the writer and the reader, so
// the two cannot drift apart. Everything here is described, byte by byte, in that document. Standard ELF
// values and record types are not here: they come from llvm/BinaryFormat/ELF.h and ElfView.h.
#pragma once

#include <cstdint>

namespace ptxlink::elf {

constexpr uint8_t OsAbi = 0x50; // 'P': distinct from NVIDIA's cubin OSABIs 0x41 and 0x33 (Cubin.h)
// e_flags. The low bits carry NVIDIA's EF_CUDA_* machine flags (the SM number, 64-bit addressing, the
// virtual SM the PTX targets) so that LLVM's tools can tell the processor (llvm-objdump crashed on 0);
// the fat-object flag therefore lives in bit 31, which NVIDIA does not use. Format version 1 kept it in
// bit 0 and set nothing else.
constexpr uint32_t FlagFat = 0x80000000;
constexpr uint32_t FlagFatV1 = 1;

constexpr uint32_t NoteType = 1;
constexpr char NoteOwner[] = "ptxlink"; // namesz 8 with the NUL

constexpr uint32_t ShtSections = 0x80000001;
constexpr uint32_t ShtSymbols = 0x80000002;
constexpr uint32_t ShtAbi = 0x80000003;
constexpr uint32_t ShtFiles = 0x80000004;
constexpr uint32_t ShtLabels = 0x80000005; // since format version 4; only in a module with label records
constexpr uint32_t ShtVariant = 0x80000010;

constexpr uint32_t SectionRecordSize = 48; // 40 before format version 3 (no ODR hash)
constexpr uint32_t SymbolRecordSize = 32;
constexpr uint32_t FileRecordSize = 32;
constexpr uint32_t LabelRecordSize = 12;
constexpr uint32_t AbiVersion = 1;

// Note flags.
constexpr uint32_t NoteFat = 1, NoteDebug = 2, NoteMapF64 = 4, NoteAddressSizeGiven = 8;

// Side-table symbol flags.
constexpr uint8_t SymInitialized = 1, SymInitializedCommon = 2;

// Section record flags.
constexpr uint8_t SecHasOdrHash = 1;

// Relocation types. RelCall is a RelName whose name is the callee of a `call` (Relocation::CallSite),
// RelCallTarget one in a `.calltargets` list (Relocation::CallTargetSite).
constexpr uint32_t RelName = 1, RelFile = 2, RelData32 = 3, RelData64 = 4, RelSectionOffset = 5, RelCall = 6,
                   RelCallTarget = 7;
// RelSectionOffset packs the replaced text's length into the addend's low 16 bits, the offset above them.
constexpr unsigned SectionOffsetLengthBits = 16;

} // namespace ptxlink::elf
