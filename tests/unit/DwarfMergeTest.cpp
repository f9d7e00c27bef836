// Unit tests of the compile-unit re-encoding a link applies to DWARF (DwarfMerge.h), on hand-built units
// where every byte is known: the shared abbreviation table, file numbers that need a wider form, DIE
// references and relocations that move with the DIEs, and the DWARF the walk refuses.
#include "DwarfMerge.h"

#include <gtest/gtest.h>

#include <string>

using namespace ptxlink;
using namespace llvm;

namespace {

// DWARF numbers used below.
constexpr uint8_t TagCompileUnit = 0x11, TagSubprogram = 0x2e, TagBaseType = 0x24;
constexpr uint8_t AtName = 0x03, AtLowPc = 0x11, AtDeclFile = 0x3a, AtType = 0x49;
constexpr uint8_t FormAddr = 0x01, FormData1 = 0x0b, FormData2 = 0x05, FormString = 0x08, FormRef4 = 0x13;

std::string le(uint64_t V, unsigned Width) {
  std::string S;
  for (unsigned I = 0; I < Width; ++I)
    S.push_back(char((V >> (8 * I)) & 0xff));
  return S;
}

/// One abbreviation table: codes First, First+1, First+2 = compile unit, subprogram, base type.
std::string abbrevTable(uint8_t First) {
  return std::string{char(First), TagCompileUnit, 1, AtName, FormString, 0, 0} +
         std::string{char(First + 1), TagSubprogram, 0, AtLowPc, FormAddr, AtDeclFile, FormData1, AtType, FormRef4, 0, 0} +
         std::string{char(First + 2), TagBaseType, 0, AtName, FormString, 0, 0} + std::string(1, '\0');
}

/// A unit: compile unit "a", a subprogram (low_pc relocated against Label, decl_file File, type -> the
/// base type), base type "int". Offsets: header 11, CU DIE 11..14, subprogram 14..28, base type 28..33.
std::string unit(uint8_t FirstCode, uint8_t File) {
  std::string Dies = std::string{char(FirstCode), 'a', 0} + std::string{char(FirstCode + 1)} + le(0, 8) +
                     std::string{char(File)} + le(28, 4) + std::string{char(FirstCode + 2), 'i', 'n', 't', 0} +
                     std::string(1, '\0');
  return le(7 + Dies.size(), 4) + le(2, 2) + le(0, 4) + std::string{8} + Dies;
}

struct Fixture {
  ModuleVariant M;
  Section Info, Abbrev;
  std::string InfoBytes, AbbrevBytes;

  Fixture() {
    M.Symbols.resize(2);
    M.Symbols[0].setName(".debug_abbrev");
    M.Symbols[0].Kind = SymbolKind::Section;
    M.Symbols[1].setName("$L__func_begin0");
    M.Symbols[1].Kind = SymbolKind::Label;
    // Two tables (as in an object ptxlink -r wrote before tables were shared), numbered differently.
    std::string Second = abbrevTable(7);
    AbbrevBytes = abbrevTable(1) + Second;
    std::string U1 = unit(1, 3), U2 = unit(7, 2);
    InfoBytes = U1 + U2;
    uint64_t SecondTable = AbbrevBytes.size() - Second.size();
    std::vector<Relocation> Relocs;
    for (uint64_t Base : {uint64_t(0), uint64_t(U1.size())}) {
      Relocs.push_back({uint32_t(Base + 6), 0, RelocKind::Data32, 0, int32_t(Base ? SecondTable : 0)});
      Relocs.push_back({uint32_t(Base + 15), 1, RelocKind::Data64, 0, 0});
    }
    M.appendRelocs(Info, Relocs); // Info is M's, though not in M.Sections
    EXPECT_TRUE(M.labelSection(Info, ".debug_info", {}));
    Info.Kind = SectionKind::Debug;
    Info.setContents(InfoBytes);
    EXPECT_TRUE(M.labelSection(Abbrev, ".debug_abbrev", {}));
    Abbrev.Kind = SectionKind::Debug;
    Abbrev.setContents(AbbrevBytes);
  }
};

TEST(DwarfMerge, SharesOneTableWidensFileNumbersAndMovesReferences) {
  Fixture F;
  SharedAbbrevTable Shared;
  // File 3 becomes 300 (no longer fits data1), file 2 becomes 5.
  auto MapFile = [](uint64_t I) -> uint64_t { return I == 3 ? 300 : I == 2 ? 5 : I; };
  auto Out = rewriteDebugInfo(F.M, F.Info, F.Abbrev, MapFile, Shared);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());

  // Unit 1: the subprogram's decl_file is data2 now, so the base type starts one byte later (29) and the
  // type reference says so; the unit is one byte longer.
  std::string Dies1 = std::string{1, 'a', 0} + std::string{2} + le(0, 8) + le(300, 2) + le(29, 4) +
                      std::string{3, 'i', 'n', 't', 0} + std::string(1, '\0');
  // Unit 2: its codes 7, 8, 9 are the shared 1, 4 (subprogram with a data1 file), 3.
  std::string Dies2 = std::string{1, 'a', 0} + std::string{4} + le(0, 8) + std::string{5} + le(28, 4) +
                      std::string{3, 'i', 'n', 't', 0} + std::string(1, '\0');
  std::string U1 = le(7 + Dies1.size(), 4) + le(2, 2) + le(0, 4) + std::string{8} + Dies1;
  std::string U2 = le(7 + Dies2.size(), 4) + le(2, 2) + le(0, 4) + std::string{8} + Dies2;
  EXPECT_EQ(Out->Contents, U1 + U2);

  // The abbreviation offsets now name the shared table (addend 0); low_pc relocations moved with the DIEs.
  ASSERT_EQ(Out->Relocs.size(), 4u);
  EXPECT_EQ(Out->Relocs[0].Offset, 6u);
  EXPECT_EQ(Out->Relocs[0].Addend, 0);
  EXPECT_EQ(Out->Relocs[1].Offset, 15u);
  EXPECT_EQ(Out->Relocs[1].Symbol, 1u);
  EXPECT_EQ(Out->Relocs[2].Offset, U1.size() + 6);
  EXPECT_EQ(Out->Relocs[2].Addend, 0);
  EXPECT_EQ(Out->Relocs[3].Offset, U1.size() + 15);

  std::string Table =
      std::string{1, TagCompileUnit, 1, AtName, FormString, 0, 0} +
      std::string{2, TagSubprogram, 0, AtLowPc, FormAddr, AtDeclFile, FormData2, AtType, FormRef4, 0, 0} +
      std::string{3, TagBaseType, 0, AtName, FormString, 0, 0} +
      std::string{4, TagSubprogram, 0, AtLowPc, FormAddr, AtDeclFile, FormData1, AtType, FormRef4, 0, 0} +
      std::string(1, '\0');
  EXPECT_EQ(Shared.size(), 4u);
  EXPECT_EQ(Shared.encode(), Table);
}

TEST(DwarfMerge, NameTablesFollowTheDies) {
  Fixture F;
  SharedAbbrevTable Shared;
  auto Out = rewriteDebugInfo(F.M, F.Info, F.Abbrev, [](uint64_t I) -> uint64_t { return I == 3 ? 300 : I; }, Shared);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_TRUE(Out->Moved);
  uint64_t OldUnit1 = unit(1, 3).size(), NewUnit1 = OldUnit1 + 1;
  // Unit starts and DIE starts map; offsets inside a DIE do not.
  EXPECT_EQ(Out->newOffset(0), std::optional<uint64_t>(0));
  EXPECT_EQ(Out->newOffset(28), std::optional<uint64_t>(29));
  EXPECT_EQ(Out->newOffset(OldUnit1), std::optional<uint64_t>(NewUnit1));
  EXPECT_EQ(Out->newOffset(OldUnit1 + 28), std::optional<uint64_t>(NewUnit1 + 28));
  EXPECT_EQ(Out->newOffset(15), std::nullopt);

  // A .debug_pubnames set for unit 1 (its unit offset a relocation, addend 0): the subprogram at 14 and
  // the base type at 28, which moved to 29; the unit's length grew by one.
  auto set = [](uint64_t UnitSize, uint64_t TypeDie) {
    std::string Entries = le(14, 4) + "f" + std::string(1, '\0') + le(TypeDie, 4) + "int" + std::string(1, '\0') + le(0, 4);
    return le(2 + 4 + 4 + Entries.size(), 4) + le(2, 2) + le(0, 4) + le(UnitSize, 4) + Entries;
  };
  std::string Bytes = set(OldUnit1, 28);
  Section Pub;
  ModuleVariant PubModule;
  EXPECT_TRUE(PubModule.labelSection(Pub, ".debug_pubnames", {}));
  Pub.Kind = SectionKind::Debug;
  Pub.setContents(Bytes);
  PubModule.appendRelocs(Pub, {Relocation{6, 0, RelocKind::Data32, 0, 0}});
  auto Table = rewriteNameTable(PubModule, Pub, *Out);
  ASSERT_TRUE(bool(Table)) << toString(Table.takeError());
  EXPECT_EQ(*Table, set(NewUnit1, 29));

  // An entry naming no DIE is refused.
  std::string Bad = set(OldUnit1, 27);
  Pub.setContents(Bad);
  auto Refused = rewriteNameTable(PubModule, Pub, *Out);
  ASSERT_FALSE(bool(Refused));
  EXPECT_NE(toString(Refused.takeError()).find("unit offset 27, where no DIE starts"), std::string::npos);
}

TEST(DwarfMerge, RefusesWhatItCannotWalk) {
  auto expectFailure = [](Fixture &F, StringRef Message) {
    SharedAbbrevTable Shared;
    auto Out = rewriteDebugInfo(F.M, F.Info, F.Abbrev, [](uint64_t I) { return I; }, Shared);
    ASSERT_FALSE(bool(Out));
    std::string Text = toString(Out.takeError());
    EXPECT_NE(Text.find(Message.str()), std::string::npos) << Text;
  };
  {
    Fixture F; // an attribute form the walk does not know (0x7f): the first table's subprogram type
    F.AbbrevBytes[4 + 7 + 4] = 0x7f;
    F.Abbrev.setContents(F.AbbrevBytes);
    expectFailure(F, "unknown attribute form 127 at offset 24 of .debug_info");
  }
  {
    Fixture F; // a DIE whose code its table does not declare
    F.InfoBytes[14] = 5;
    F.Info.setContents(F.InfoBytes);
    expectFailure(F, "uses abbreviation code 5");
  }
  {
    Fixture F; // DWARF64
    F.InfoBytes.replace(0, 4, le(0xffffffff, 4));
    F.Info.setContents(F.InfoBytes);
    expectFailure(F, "DWARF64");
  }
  {
    Fixture F; // a unit longer than the section
    F.InfoBytes.resize(F.InfoBytes.size() - 3);
    F.Info.setContents(F.InfoBytes);
    expectFailure(F, "longer than the section");
  }
  {
    Fixture F; // a relocation inside the file number the link rewrites
    F.M.Relocs.insert(F.M.Relocs.begin() + F.Info.RelocBegin + 2, Relocation{23, 1, RelocKind::Data32, 0, 0});
    ++F.Info.RelocCount;
    expectFailure(F, "a relocation inside a DWARF field that the link rewrites at offset 23");
  }
}

} // namespace
