// The ELF view's checks (see ElfView.h): the header's identification, the section header table and each
// section's contents, each checked once and each problem reported with the file offset of the field
// that is wrong.
#include "ElfView.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstddef>

using namespace llvm;

namespace ptxlink {

std::optional<ElfIdentity> identifyElf(StringRef Bytes) {
  // e_machine is at offset 18 in both classes, after e_ident (16 bytes) and e_type.
  if (Bytes.size() < 20 || !Bytes.starts_with(ELF::ElfMagic))
    return std::nullopt;
  ElfIdentity Id;
  Id.Is64Bit = uint8_t(Bytes[ELF::EI_CLASS]) == ELF::ELFCLASS64;
  Id.BigEndian = uint8_t(Bytes[ELF::EI_DATA]) == ELF::ELFDATA2MSB;
  Id.OsAbi = uint8_t(Bytes[ELF::EI_OSABI]);
  Id.Machine = Id.BigEndian ? support::endian::read16be(Bytes.data() + 18) : support::endian::read16le(Bytes.data() + 18);
  return Id;
}

const ElfHeader *elf64Header(StringRef Bytes) {
  if (Bytes.size() < sizeof(ElfHeader) || !Bytes.starts_with(ELF::ElfMagic))
    return nullptr;
  const auto *H = reinterpret_cast<const ElfHeader *>(Bytes.data());
  if (H->getFileClass() != ELF::ELFCLASS64 || H->getDataEncoding() != ELF::ELFDATA2LSB)
    return nullptr;
  return H;
}

std::optional<ElfView> ElfView::open(StringRef Bytes, TablePolicy Policy, ElfProblemFn Problem,
                                     function_ref<void(StringRef)> Checked) {
  if (!elf64Header(Bytes))
    return std::nullopt;
  Expected<object::ELFFile<ElfTypes>> File = object::ELFFile<ElfTypes>::create(Bytes);
  if (!File) { // only for a buffer shorter than the header, excluded above
    consumeError(File.takeError());
    return std::nullopt;
  }
  ElfView View(std::move(*File));
  View.readSectionTable(Policy, Problem, Checked);
  return View;
}

void ElfView::readSectionTable(TablePolicy Policy, ElfProblemFn Problem, function_ref<void(StringRef)> Checked) {
  const ElfHeader &H = header();
  const uint64_t Size = File.getBufSize(), ShOff = H.e_shoff, EntSize = H.e_shentsize;
  uint64_t Count = H.e_shnum;
  uint32_t NameIndex = H.e_shstrndx;
  bool Cut = false;
  if (Count == 0 && ShOff == 0)
    return; // no section header table at all
  if (EntSize < sizeof(ElfSectionHeader)) {
    Problem(offsetof(ElfHeader, e_shentsize),
            formatv("section header size {0} is smaller than {1}", EntSize, sizeof(ElfSectionHeader)));
    return;
  }
  if (!contains(ShOff, sizeof(ElfSectionHeader))) {
    if (Policy == TablePolicy::Whole) {
      Problem(offsetof(ElfHeader, e_shoff), "section header table (offset 0x" + utohexstr(ShOff) +
                                                ") extends past the end of the file");
      return;
    }
    Problem(ShOff, formatv("section header 0 lies outside the file ({0} bytes)", Size));
    Count = 0;
  } else {
    // Extended section numbering: the real count and name table index live in section 0.
    const auto &Zero = *reinterpret_cast<const ElfSectionHeader *>(base() + ShOff);
    if (Count == 0)
      Count = Zero.sh_size;
    if (NameIndex == ELF::SHN_XINDEX)
      NameIndex = Zero.sh_link;
    // Headers are EntSize apart, the last one needs only its 64 bytes; counted by division (no wrap-around).
    const uint64_t Fit = (Size - ShOff - sizeof(ElfSectionHeader)) / EntSize + 1;
    if (Count > Fit) {
      if (Policy == TablePolicy::Whole) {
        Problem(offsetof(ElfHeader, e_shoff), "section header table (offset 0x" + utohexstr(ShOff) + ", " +
                                                  Twine(Count) + " entries) extends past the end of the file");
        return;
      }
      Count = Fit; // the headers that fit are checked first, then the cut is reported (file order)
      Cut = true;
    }
  }
  NumSections = Count;
  NameTableIndex = NameIndex;
  constexpr size_t HeadersPerPart = (size_t(4) << 20) / sizeof(ElfSectionHeader);
  size_t PartStart = 0;
  for (size_t I = 0; I < Count; ++I) {
    if (Checked && I - PartStart == HeadersPerPart) {
      Checked(StringRef(base() + sectionHeaderOffset(PartStart), (I - PartStart) * EntSize));
      PartStart = I;
    }
    const ElfSectionHeader &S = section(I);
    if (!occupiesFile(S) || contains(S.sh_offset, S.sh_size))
      continue;
    Problem(sectionHeaderOffset(I) + offsetof(ElfSectionHeader, sh_offset),
            formatv("section {0}: contents [{1}, +{2}) lie outside the file ({3} bytes)", I,
                    uint64_t(S.sh_offset), uint64_t(S.sh_size), Size));
  }
  if (Cut)
    Problem(sectionHeaderOffset(Count), formatv("section header {0} lies outside the file ({1} bytes)", Count, Size));
  // SHN_UNDEF says the file has no section name table: not a problem (its sections have no names).
  if (NameIndex != ELF::SHN_UNDEF && NameIndex >= Count)
    Problem(offsetof(ElfHeader, e_shstrndx), formatv("section name table index {0} is out of range", NameIndex));
  if (NameIndex < Count)
    SectionNames = contents(NameIndex);
}

void ElfView::reportEntrySize(const ElfSectionHeader &S, const char *What, uint64_t Entry, size_t Min,
                              ElfProblemFn Problem) {
  Problem(S.sh_offset, formatv("{0} entry size {1} is smaller than {2}", What, Entry, Min));
}

void ElfView::reportTableSize(const ElfSectionHeader &S, const char *What, uint64_t Entry, ElfProblemFn Problem) {
  Problem(S.sh_offset, formatv("{0} size {1} is not a multiple of {2}", What, uint64_t(S.sh_size), Entry));
}

ElfTable<ElfProgramHeader> ElfView::programHeaders() const {
  const ElfHeader &H = header();
  const uint64_t PhOff = H.e_phoff, EntSize = H.e_phentsize;
  if (H.e_phnum == 0 || EntSize < sizeof(ElfProgramHeader) || !contains(PhOff, sizeof(ElfProgramHeader)))
    return {};
  const uint64_t Fit = (File.getBufSize() - PhOff - sizeof(ElfProgramHeader)) / EntSize + 1;
  return ElfTable<ElfProgramHeader>(base() + PhOff, PhOff, std::min<uint64_t>(H.e_phnum, Fit), EntSize);
}

} // namespace ptxlink
