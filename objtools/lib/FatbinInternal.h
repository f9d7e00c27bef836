// Small bounds-checked ELF64 helpers shared by the fatbinary reader and writer. They work on raw bytes
// (never trusting a size or offset field) because fatbinary payloads are padded, possibly truncated
// copies of cubins, and the writer must not depend on a full ELF parser to find one section.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace ptxlink {

/// Contents of the first section called Name in a 64-bit little-endian ELF image, if the headers are
/// sound and the section lies inside Elf.
std::optional<llvm::StringRef> findElfSection(llvm::StringRef Elf, llvm::StringRef Name);

/// End of the furthest ELF header, program header table, section header table, segment or (non-NOBITS)
/// section, clamped to Elf.size(); 0 if Elf is not a readable ELF64 header.
uint64_t elfExtent(llvm::StringRef Elf);

} // namespace ptxlink
