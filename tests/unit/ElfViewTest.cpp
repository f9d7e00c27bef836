// The typed ELF view (objtools/lib/ElfView.h) on small hand-made ELF files: what it keeps of a broken
// section header table under each policy, which problems it reports and at which file offsets, and the
// table rules (entry size, remainder, extended numbering) that every ELF reader of ptxlink now shares.
#include "ElfView.h"
#include "FatbinInternal.h"
#include "PtxlinkElf.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

using namespace llvm;
using namespace ptxlink;

namespace {

/// A minimal ELF64 little-endian file: header, [.shstrtab, .symtab, .strtab contents], section headers.
/// Sections: 0 null, 1 .shstrtab, 2 .symtab (two symbols), 3 .strtab.
struct TinyElf {
  std::string Bytes;
  uint64_t ShOff = 0, SymtabOff = 0;

  static void put(std::string &B, uint64_t At, uint64_t V, unsigned Size) {
    for (unsigned I = 0; I < Size; ++I)
      B[At + I] = char(V >> (8 * I));
  }

  TinyElf() {
    std::string ShStr = std::string("\0.shstrtab\0.symtab\0.strtab\0", 27);
    std::string Str = std::string("\0first\0second", 13); // "second" unterminated at the table's end
    Bytes.assign(64, '\0');
    memcpy(&Bytes[0], "\x7f" "ELF\x02\x01\x01", 7);
    uint64_t ShStrOff = Bytes.size();
    Bytes += ShStr;
    while (Bytes.size() % 8)
      Bytes += '\0';
    SymtabOff = Bytes.size();
    Bytes.append(3 * 24, '\0'); // null symbol, "first", "second"
    put(Bytes, SymtabOff + 24, 1, 4);
    Bytes[SymtabOff + 24 + 4] = char((ELF::STB_GLOBAL << 4) | ELF::STT_FUNC);
    put(Bytes, SymtabOff + 48, 7, 4);
    uint64_t StrOff = Bytes.size();
    Bytes += Str;
    while (Bytes.size() % 8)
      Bytes += '\0';
    ShOff = Bytes.size();
    Bytes.append(4 * 64, '\0');
    auto Shdr = [&](unsigned I, uint32_t Name, uint32_t Type, uint64_t Off, uint64_t Size, uint32_t Link,
                    uint64_t EntSize) {
      uint64_t H = ShOff + 64 * I;
      put(Bytes, H, Name, 4);
      put(Bytes, H + 4, Type, 4);
      put(Bytes, H + 0x18, Off, 8);
      put(Bytes, H + 0x20, Size, 8);
      put(Bytes, H + 0x28, Link, 4);
      put(Bytes, H + 0x38, EntSize, 8);
    };
    Shdr(1, 1, ELF::SHT_STRTAB, ShStrOff, ShStr.size(), 0, 0);
    Shdr(2, 11, ELF::SHT_SYMTAB, SymtabOff, 3 * 24, 3, 24);
    Shdr(3, 19, ELF::SHT_STRTAB, StrOff, Str.size(), 0, 0);
    put(Bytes, 0x10, ELF::ET_REL, 2);
    put(Bytes, 0x12, ELF::EM_CUDA, 2);
    put(Bytes, 0x28, ShOff, 8);
    put(Bytes, 0x34, 64, 2);
    put(Bytes, 0x3a, 64, 2);
    put(Bytes, 0x3c, 4, 2);
    put(Bytes, 0x3e, 1, 2);
  }
};

using Problems = std::vector<std::pair<uint64_t, std::string>>;

std::optional<ElfView> open(StringRef B, ElfView::TablePolicy Policy, Problems &Out) {
  return ElfView::open(B, Policy, [&](uint64_t At, const Twine &M) { Out.emplace_back(At, M.str()); });
}

} // namespace

TEST(ElfView, ReadsSectionsSymbolsAndNames) {
  TinyElf E;
  Problems P;
  auto V = open(E.Bytes, ElfView::TablePolicy::Whole, P);
  ASSERT_TRUE(V);
  EXPECT_TRUE(P.empty());
  ASSERT_EQ(V->sectionCount(), 4u);
  EXPECT_EQ(V->sectionName(2), ".symtab");
  EXPECT_EQ(V->header().e_machine, ELF::EM_CUDA);
  ElfTable<ElfSymbol> Syms = V->table<ElfSymbol>(V->section(2), "symbol table", [](uint64_t, const Twine &) {});
  ASSERT_EQ(Syms.size(), 3u);
  EXPECT_EQ(Syms.offsetOf(1), E.SymtabOff + 24);
  EXPECT_EQ(Syms[1].getBinding(), ELF::STB_GLOBAL);
  EXPECT_EQ(Syms[1].getType(), ELF::STT_FUNC);
  EXPECT_EQ(ElfView::stringAt(V->contents(3), Syms[1].st_name), "first");
  EXPECT_EQ(ElfView::stringAt(V->contents(3), Syms[2].st_name), "second"); // to the table's end
  EXPECT_EQ(ElfView::stringAt(V->contents(3), 1000), "");
}

TEST(ElfView, NotElf64LittleEndianIsNoView) {
  TinyElf E;
  Problems P;
  EXPECT_FALSE(open(StringRef(E.Bytes).take_front(63), ElfView::TablePolicy::Readable, P));
  std::string Big = E.Bytes;
  Big[ELF::EI_DATA] = ELF::ELFDATA2MSB;
  EXPECT_FALSE(open(Big, ElfView::TablePolicy::Readable, P));
  std::string Class32 = E.Bytes;
  Class32[ELF::EI_CLASS] = ELF::ELFCLASS32;
  EXPECT_EQ(elf64Header(Class32), nullptr);
  EXPECT_TRUE(P.empty());
}

// A table cut short by the end of the file: the readable headers are kept (cubins, host objects) or none
// (our objects), and the problem names the first missing header or e_shoff.
TEST(ElfView, TruncatedHeaderTableByPolicy) {
  TinyElf E;
  std::string Cut = E.Bytes.substr(0, E.ShOff + 2 * 64 + 10);
  Problems Readable;
  auto V = open(Cut, ElfView::TablePolicy::Readable, Readable);
  ASSERT_TRUE(V);
  EXPECT_EQ(V->sectionCount(), 2u);
  ASSERT_EQ(Readable.size(), 1u);
  EXPECT_EQ(Readable[0].first, E.ShOff + 2 * 64);
  EXPECT_EQ(Readable[0].second, "section header 2 lies outside the file (" + std::to_string(Cut.size()) + " bytes)");

  Problems Whole;
  auto W = open(Cut, ElfView::TablePolicy::Whole, Whole);
  ASSERT_TRUE(W);
  EXPECT_EQ(W->sectionCount(), 0u);
  ASSERT_EQ(Whole.size(), 1u);
  EXPECT_EQ(Whole[0].first, offsetof(ElfHeader, e_shoff));
  EXPECT_NE(Whole[0].second.find("4 entries) extends past the end of the file"), std::string::npos);
}

TEST(ElfView, ContentsOutsideTheFileKeepTheHeader) {
  TinyElf E;
  TinyElf::put(E.Bytes, E.ShOff + 3 * 64 + 0x18, 1 << 20, 8); // .strtab's sh_offset
  Problems P;
  auto V = open(E.Bytes, ElfView::TablePolicy::Readable, P);
  ASSERT_TRUE(V);
  EXPECT_EQ(V->sectionCount(), 4u);
  EXPECT_FALSE(V->hasContents(V->section(3)));
  EXPECT_TRUE(V->contents(3).empty());
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].first, E.ShOff + 3 * 64 + 0x18);
  EXPECT_EQ(P[0].second.rfind("section 3: contents [1048576, +13) lie outside the file", 0), 0u) << P[0].second;
}

// NVIDIA's memory-only section types (.nv.shared.*, .nv.global, .nv.local.* in relocatable cubins) have
// an offset and a size but no bytes, like NOBITS, in a cubin only; any other ELF's are checked as usual.
TEST(ElfView, CubinMemorySectionsHaveNoBytes) {
  for (uint32_t Type : {nvelf::SHT_CUDA_SHARED, nvelf::SHT_CUDA_GLOBAL, nvelf::SHT_CUDA_LOCAL,
                        nvelf::SHT_CUDA_RESERVED_SHARED}) {
    TinyElf E;
    TinyElf::put(E.Bytes, E.ShOff + 3 * 64 + 0x04, Type, 4);    // .strtab's sh_type
    TinyElf::put(E.Bytes, E.ShOff + 3 * 64 + 0x20, 1 << 15, 8); // sh_size: 32 KB, past the end
    TinyElf::put(E.Bytes, offsetof(ElfHeader, e_machine), ELF::EM_X86_64, 2);
    Problems Other;
    auto V = open(E.Bytes, ElfView::TablePolicy::Readable, Other);
    ASSERT_TRUE(V);
    EXPECT_EQ(Other.size(), 1u) << "type " << Type << " outside a cubin is checked";
    TinyElf::put(E.Bytes, offsetof(ElfHeader, e_machine), ELF::EM_CUDA, 2);
    Problems Cubin;
    V = open(E.Bytes, ElfView::TablePolicy::Readable, Cubin);
    ASSERT_TRUE(V);
    EXPECT_TRUE(Cubin.empty()) << "type " << Type << ": " << (Cubin.empty() ? "" : Cubin[0].second);
    EXPECT_FALSE(V->occupiesFile(V->section(3)));
    EXPECT_FALSE(V->hasContents(V->section(3)));
    EXPECT_TRUE(V->contents(3).empty());
  }
}

TEST(ElfView, NameTableIndexOutOfRange) {
  TinyElf E;
  TinyElf::put(E.Bytes, 0x3e, 9, 2);
  Problems P;
  auto V = open(E.Bytes, ElfView::TablePolicy::Readable, P);
  ASSERT_TRUE(V);
  EXPECT_EQ(V->sectionName(2), "");
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].first, 0x3eu);
  EXPECT_EQ(P[0].second, "section name table index 9 is out of range");
}

// e_shstrndx SHN_UNDEF says "no section name table", which is no problem: a file whose table holds no
// section (e_shnum 0, section 0's sh_size 0) is not reported for it, the cubin reader says nothing (as
// before the view), and the object reader's error is that there are no section headers.
TEST(ElfView, NoSectionsAndNoNameTableIsNoProblem) {
  TinyElf E;
  TinyElf::put(E.Bytes, 0x3c, 0, 2); // e_shnum
  TinyElf::put(E.Bytes, 0x3e, ELF::SHN_UNDEF, 2);
  Problems P;
  auto V = open(E.Bytes, ElfView::TablePolicy::Readable, P);
  ASSERT_TRUE(V);
  EXPECT_EQ(V->sectionCount(), 0u);
  EXPECT_TRUE(P.empty()) << P[0].second;

  E.Bytes[ELF::EI_OSABI] = char(elf::OsAbi);
  E.Bytes[ELF::EI_ABIVERSION] = char(ObjectFormatVersion);
  auto Object = readObject(MemoryBuffer::getMemBuffer(E.Bytes, "empty.o", false));
  ASSERT_FALSE(Object);
  EXPECT_EQ(toString(Object.takeError()), "empty.o: offset 0x3C: no section headers");
}

TEST(ElfView, SmallHeaderEntrySizeGivesNoSections) {
  TinyElf E;
  TinyElf::put(E.Bytes, 0x3a, 40, 2);
  Problems P;
  auto V = open(E.Bytes, ElfView::TablePolicy::Readable, P);
  ASSERT_TRUE(V);
  EXPECT_EQ(V->sectionCount(), 0u);
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].first, 0x3au);
  EXPECT_EQ(P[0].second, "section header size 40 is smaller than 64");
}

// Extended numbering: e_shnum 0 and e_shstrndx SHN_XINDEX send the reader to section 0.
TEST(ElfView, ExtendedSectionNumbering) {
  TinyElf E;
  TinyElf::put(E.Bytes, 0x3c, 0, 2);
  TinyElf::put(E.Bytes, 0x3e, ELF::SHN_XINDEX, 2);
  TinyElf::put(E.Bytes, E.ShOff + 0x20, 4, 8); // section 0's sh_size: the count
  TinyElf::put(E.Bytes, E.ShOff + 0x28, 1, 4); // section 0's sh_link: the name table
  Problems P;
  auto V = open(E.Bytes, ElfView::TablePolicy::Whole, P);
  ASSERT_TRUE(V);
  EXPECT_TRUE(P.empty());
  EXPECT_EQ(V->sectionCount(), 4u);
  EXPECT_EQ(V->sectionNameTableIndex(), 1u);
  EXPECT_EQ(V->sectionName(3), ".strtab");
}

// elfExtent (a cubin's true size inside a zero-padded fatbinary entry) counts the section header table
// at the count extended numbering gives: e_shnum is 0 there, and the table (last in this file) must not
// be cut off.
TEST(ElfView, ExtentUnderExtendedSectionNumbering) {
  TinyElf E;
  const uint64_t Size = E.Bytes.size();
  EXPECT_EQ(elfExtent(E.Bytes + std::string(128, '\0')), Size);
  TinyElf::put(E.Bytes, 0x3c, 0, 2);
  TinyElf::put(E.Bytes, 0x3e, ELF::SHN_XINDEX, 2);
  TinyElf::put(E.Bytes, E.ShOff + 0x20, 4, 8);
  TinyElf::put(E.Bytes, E.ShOff + 0x28, 1, 4);
  EXPECT_EQ(elfExtent(E.Bytes + std::string(128, '\0')), Size);
}

// One rule for every table: entries sh_entsize apart (sizeof(T) for 0), a too small entry size gives no
// entries, a remainder keeps the whole entries; both reported at the table's contents.
TEST(ElfView, TableEntrySizeAndRemainder) {
  TinyElf E;
  Problems P;
  auto Report = [&](uint64_t At, const Twine &M) { P.emplace_back(At, M.str()); };
  TinyElf::put(E.Bytes, E.ShOff + 2 * 64 + 0x38, 8, 8);
  auto V = open(E.Bytes, ElfView::TablePolicy::Readable, P);
  ASSERT_TRUE(V && P.empty());
  EXPECT_TRUE(V->table<ElfSymbol>(V->section(2), "symbol table", Report).empty());
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0], std::make_pair(E.SymtabOff, std::string("symbol table entry size 8 is smaller than 24")));

  P.clear();
  TinyElf::put(E.Bytes, E.ShOff + 2 * 64 + 0x38, 0, 8);      // sizeof(Elf_Sym)
  TinyElf::put(E.Bytes, E.ShOff + 2 * 64 + 0x20, 3 * 24 - 5, 8); // the last symbol cut short
  V = open(E.Bytes, ElfView::TablePolicy::Readable, P);
  ASSERT_TRUE(V && P.empty());
  EXPECT_EQ(V->table<ElfSymbol>(V->section(2), "symbol table", Report).size(), 2u);
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].second, "symbol table size 67 is not a multiple of 24");

  // A hostile entry size cannot wrap the count around (I * EntSize + 24 overflowing).
  P.clear();
  TinyElf::put(E.Bytes, E.ShOff + 2 * 64 + 0x20, 3 * 24, 8);
  TinyElf::put(E.Bytes, E.ShOff + 2 * 64 + 0x38, ~uint64_t(0) - 7, 8);
  V = open(E.Bytes, ElfView::TablePolicy::Readable, P);
  ASSERT_TRUE(V);
  EXPECT_EQ(V->table<ElfSymbol>(V->section(2), "symbol table", Report).size(), 1u);
}

// identifyElf reads e_machine in the file's own byte order, for either class; too short or not ELF: none.
TEST(ElfView, IdentifyAnyElf) {
  std::string Big(20, '\0');
  memcpy(Big.data(), "\x7f" "ELF", 4);
  Big[ELF::EI_CLASS] = ELF::ELFCLASS64;
  Big[ELF::EI_DATA] = ELF::ELFDATA2MSB;
  Big[ELF::EI_OSABI] = 0x41;
  support::endian::write16be(Big.data() + 18, ELF::EM_PPC64);
  std::optional<ElfIdentity> Id = identifyElf(Big);
  ASSERT_TRUE(Id.has_value());
  EXPECT_TRUE(Id->Is64Bit);
  EXPECT_TRUE(Id->BigEndian);
  EXPECT_EQ(Id->OsAbi, 0x41);
  EXPECT_EQ(Id->Machine, ELF::EM_PPC64);

  std::string Little = Big;
  Little[ELF::EI_CLASS] = ELF::ELFCLASS32;
  Little[ELF::EI_DATA] = ELF::ELFDATA2LSB;
  support::endian::write16le(Little.data() + 18, ELF::EM_CUDA);
  Id = identifyElf(Little);
  ASSERT_TRUE(Id.has_value());
  EXPECT_FALSE(Id->Is64Bit);
  EXPECT_FALSE(Id->BigEndian);
  EXPECT_EQ(Id->Machine, ELF::EM_CUDA);

  EXPECT_FALSE(identifyElf(StringRef(Big).take_front(19)).has_value());
  EXPECT_FALSE(identifyElf("!<arch>\n0123456789abcdef").has_value());
}
