// One typed, bounds-checked view of a 64-bit little-endian ELF file, shared by every reader of ELF in
// objtools: our relocatable objects (ElfReader.cpp), NVIDIA cubins (CubinReader.cpp), the cubins inside
// fatbinaries (FatbinElf.cpp) and host objects (HostEmbed.cpp).
//
// The problem: each of them used to walk the ELF tables by hand with magic offsets (0x28 for e_shoff,
// H + 0x18 for sh_offset, 24-byte symbols decoded field by field), and each had its own bounds checks.
// Here the records are LLVM's types for `llvm::object::ELFFile<ELF64LE>` (Elf_Ehdr, Elf_Shdr, Elf_Sym,
// Elf_Rela; packed, so they can be read in place at any offset) and the values are the constants of
// llvm/BinaryFormat/ELF.h (NVIDIA's own values are named in include/ptxlink/Cubin.h). Every offset, size and count is checked once, when the view is made or a
// table is asked for; what the view hands out afterwards lies inside the file.
//
// Why not ELFFile's own sections() and symbols(): they reject the whole table on the first inconsistent
// field, while the cubin, fatbinary and host-object readers must describe the rest of a broken file
// (warn and go on), and every message names a file offset. So a broken table is reported through a
// callback, `Problem(offset, message)`, in the order found, and the walk goes on with what is readable;
// a reader that treats any problem as fatal (our object reader) keeps the first one.
#pragma once

#include "ptxlink/Cubin.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ptxlink {

using ElfTypes = llvm::object::ELF64LE;
using ElfHeader = ElfTypes::Ehdr;
using ElfSectionHeader = ElfTypes::Shdr;
using ElfSymbol = ElfTypes::Sym;
using ElfRela = ElfTypes::Rela;
using ElfRel = ElfTypes::Rel;
using ElfProgramHeader = ElfTypes::Phdr;

/// Receives one problem found in the file: the offset (from the start of the viewed bytes) of the
/// field or record at fault, and what is wrong.
using ElfProblemFn = llvm::function_ref<void(uint64_t Offset, const llvm::Twine &Message)>;

/// The ELF header of Bytes if Bytes begin with the ELF magic, say ELFCLASS64 and ELFDATA2LSB and hold a
/// whole 64-byte header; otherwise null. Nothing else is checked.
const ElfHeader *elf64Header(llvm::StringRef Bytes);

/// Fixed-size records of one table (symbols, relocations, program headers): Count entries of type T,
/// Stride bytes apart (the table's entry size, at least sizeof(T)), every one inside the file.
template <class T> class ElfTable {
public:
  ElfTable() = default;
  ElfTable(const char *First, uint64_t FileOffset, size_t Count, uint64_t Stride)
      : First(First), FileOffset(FileOffset), Count(Count), Stride(Stride) {}

  size_t size() const { return Count; }
  bool empty() const { return Count == 0; }
  const T &operator[](size_t I) const { return *reinterpret_cast<const T *>(First + I * Stride); }
  /// Where entry I lies in the file (for messages).
  uint64_t offsetOf(size_t I) const { return FileOffset + I * Stride; }

private:
  const char *First = nullptr;
  uint64_t FileOffset = 0;
  size_t Count = 0;
  uint64_t Stride = sizeof(T);
};

class ElfView {
public:
  /// How much of a section header table that does not lie wholly in the file is kept.
  enum class TablePolicy {
    Whole,    // all or nothing: one problem, no sections (our objects, written whole by ptxlink-as)
    Readable, // the headers before the first one outside the file (cubins, host objects, fatbin images)
  };

  /// Views Bytes, which must satisfy elf64Header, and walks its section header table: e_shentsize must
  /// be at least 64 (entries are that far apart), extended numbering (e_shnum 0, e_shstrndx SHN_XINDEX)
  /// is followed, and each section's contents (where occupiesFile) must lie in the file.
  /// Each problem goes to Problem; a section whose contents do not fit keeps its header, with no contents.
  /// Checked, the table is handed to Checked a part at a time (4 MB of headers, front to back): a reader
  /// of a large file mapping gives those pages back, as the walk touches every header and the reader
  /// needs each again only when it comes to it (10^6 functions: 128 MB of headers).
  static std::optional<ElfView> open(llvm::StringRef Bytes, TablePolicy Policy, ElfProblemFn Problem,
                                     llvm::function_ref<void(llvm::StringRef)> Checked = {});

  const ElfHeader &header() const { return File.getHeader(); }
  bool contains(uint64_t Offset, uint64_t Size) const {
    return Offset <= File.getBufSize() && Size <= File.getBufSize() - Offset;
  }

  /// The section headers that were kept; index I is the ELF section index I.
  size_t sectionCount() const { return NumSections; }
  const ElfSectionHeader &section(size_t I) const {
    return *reinterpret_cast<const ElfSectionHeader *>(base() + sectionHeaderOffset(I));
  }
  uint64_t sectionHeaderOffset(size_t I) const { return header().e_shoff + I * header().e_shentsize; }
  /// e_shstrndx, or section 0's sh_link under extended numbering.
  uint32_t sectionNameTableIndex() const { return NameTableIndex; }

  /// Whether section S's offset and size describe bytes of the file: not for SHT_NULL and SHT_NOBITS, nor
  /// in a cubin (EM_CUDA) for NVIDIA's memory-only types, which relocatable cubins (ptxas -c, nvcc -dc)
  /// write with an offset and a size but no bytes, as NOBITS: .nv.global (SHT_CUDA_GLOBAL), .nv.local.*
  /// (SHT_CUDA_LOCAL), .nv.shared.* and .nv_debug.shared (SHT_CUDA_SHARED: a kernel's 32 KB __shared__
  /// array is a 32 KB section in a 3 KB cubin), .nv.reservedSmem (SHT_CUDA_RESERVED_SHARED).
  bool occupiesFile(const ElfSectionHeader &S) const {
    switch (uint32_t(S.sh_type)) {
    case llvm::ELF::SHT_NULL:
    case llvm::ELF::SHT_NOBITS:
      return false;
    case nvelf::SHT_CUDA_GLOBAL:
    case nvelf::SHT_CUDA_LOCAL:
    case nvelf::SHT_CUDA_SHARED:
    case nvelf::SHT_CUDA_RESERVED_SHARED:
      return header().e_machine != llvm::ELF::EM_CUDA;
    default:
      return true;
    }
  }
  /// Whether section I's contents are in the file (false where occupiesFile is, and for broken headers).
  bool hasContents(const ElfSectionHeader &S) const { return occupiesFile(S) && contains(S.sh_offset, S.sh_size); }
  /// Section contents, empty where hasContents is false.
  llvm::StringRef contents(const ElfSectionHeader &S) const {
    return hasContents(S) ? llvm::StringRef(base() + S.sh_offset, S.sh_size) : llvm::StringRef();
  }
  llvm::StringRef contents(size_t I) const { return contents(section(I)); }

  /// Section I's name from the section name table ("" when that table or the name is unreadable).
  llvm::StringRef sectionName(size_t I) const { return stringAt(SectionNames, section(I).sh_name); }
  /// The NUL-terminated string at Offset of a string table (to its end when unterminated; "" outside it).
  static llvm::StringRef stringAt(llvm::StringRef Table, uint64_t Offset) {
    if (Offset >= Table.size())
      return {};
    return Table.substr(Offset).take_until([](char C) { return C == '\0'; });
  }

  /// The records of table section S: sh_entsize apart (sizeof(T) when sh_entsize is 0), the entries that
  /// lie wholly in its contents. An entry size below sizeof(T) ("<What> entry size N is smaller than 24")
  /// gives no entries; a size that is not a multiple of the entry size ("<What> size N is not a multiple
  /// of 24") keeps the whole entries. Both are reported at the section's contents.
  template <class T>
  ElfTable<T> table(const ElfSectionHeader &S, const char *What, ElfProblemFn Problem) const {
    uint64_t Entry = S.sh_entsize ? uint64_t(S.sh_entsize) : sizeof(T);
    if (Entry < sizeof(T)) {
      reportEntrySize(S, What, Entry, sizeof(T), Problem);
      return {};
    }
    llvm::StringRef Data = contents(S);
    if (LLVM_UNLIKELY(Data.size() % Entry))
      reportTableSize(S, What, Entry, Problem);
    // Counted by division: I * Entry + sizeof(T) can wrap around for a hostile entry size.
    size_t Count = Data.size() < sizeof(T) ? 0 : (Data.size() - sizeof(T)) / Entry + 1;
    return ElfTable<T>(Data.data(), S.sh_offset, Count, Entry);
  }

  /// The program headers that lie in the file, e_phentsize apart (none when that is below 56).
  ElfTable<ElfProgramHeader> programHeaders() const;

private:
  explicit ElfView(llvm::object::ELFFile<ElfTypes> File) : File(std::move(File)) {}
  const char *base() const { return reinterpret_cast<const char *>(File.base()); }
  void readSectionTable(TablePolicy Policy, ElfProblemFn Problem, llvm::function_ref<void(llvm::StringRef)> Checked);
  static void reportEntrySize(const ElfSectionHeader &S, const char *What, uint64_t Entry, size_t Min,
                              ElfProblemFn Problem);
  static void reportTableSize(const ElfSectionHeader &S, const char *What, uint64_t Entry, ElfProblemFn Problem);

  llvm::object::ELFFile<ElfTypes> File;
  size_t NumSections = 0;
  uint32_t NameTableIndex = 0;
  llvm::StringRef SectionNames;
};

/// readElfSections (Cubin.h) of a view the caller already opened, so that a reader of a host object or a
/// cubin builds its ElfView once (CubinReader.cpp).
std::vector<CubinSection> readElfSections(const ElfView &View, const CubinWarnFn &Warn);

} // namespace ptxlink
