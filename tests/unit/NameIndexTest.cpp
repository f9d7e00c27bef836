// Unit tests of NameIndex, the name -> position table of the assembler's symbols and the linker's visible
// names: every name found at the position it was inserted with, across growth from empty and from a
// reserved size that is no power of two, probe chains that wrap past the table's end, and the sizes that
// issue 15's finding 8 depends on (a table sized for N names is 4/3 N slots, not the next power of two past 2 N).
#include "ptxlink/NameIndex.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ptxlink;

namespace {

struct Table {
  std::vector<std::string> Names;
  NameIndex Index;
  auto nameOf() const {
    return [this](uint32_t I) { return llvm::StringRef(Names[I]); };
  }
  /// Inserts Name; true if it was new.
  bool add(const std::string &Name) {
    auto [Pos, Inserted] = Index.insert(Name, Names.size(), nameOf());
    if (Inserted)
      Names.push_back(Name);
    else
      EXPECT_EQ(Names[Pos], Name);
    return Inserted;
  }
  uint32_t find(llvm::StringRef Name) const { return Index.find(Name, nameOf()); }
};

TEST(NameIndexTest, EmptyIndexFindsNothing) {
  Table T;
  EXPECT_EQ(T.find("f"), NameIndex::None);
  T.Index.reset(0);
  EXPECT_EQ(T.find("f"), NameIndex::None);
}

TEST(NameIndexTest, GrowsFromEmptyAndKeepsEveryPosition) {
  Table T;
  for (int I = 0; I < 100000; ++I)
    ASSERT_TRUE(T.add("f" + std::to_string(I)));
  for (int I = 0; I < 100000; ++I)
    ASSERT_FALSE(T.add("f" + std::to_string(I))); // a second insert finds the first
  for (int I = 0; I < 100000; ++I)
    ASSERT_EQ(T.find("f" + std::to_string(I)), uint32_t(I));
  EXPECT_EQ(T.find("g0"), NameIndex::None);
  EXPECT_EQ(T.find(""), NameIndex::None);
}

TEST(NameIndexTest, ReservedSizesThatAreNoPowerOfTwoHoldTheirNamesWithoutGrowing) {
  // 1000 names reserve 1334 slots: every probe chain, including those that wrap past the last slot,
  // must still find its name, and inserting exactly the reserved count must not move anything.
  for (size_t N : {1u, 7u, 1000u, 4099u}) {
    Table T;
    T.Index.reset(N);
    const size_t Slots = T.Index.slotCount();
    EXPECT_EQ(Slots, std::max<size_t>(16, N + N / 3 + 1));
    for (size_t I = 0; I < N; ++I)
      ASSERT_TRUE(T.add("name_" + std::to_string(I * 7919)));
    EXPECT_EQ(T.Index.slotCount(), Slots) << N;
    for (size_t I = 0; I < N; ++I)
      ASSERT_EQ(T.find("name_" + std::to_string(I * 7919)), uint32_t(I)) << N;
    EXPECT_EQ(T.find("name_x"), NameIndex::None);
  }
}

TEST(NameIndexTest, AMillionNamesTakeFourThirdsOfASlotEach) {
  NameIndex Index;
  Index.reset(1000000);
  // 8-byte slots: 10.7 MB, where the power of two past twice the names took 2^21 slots (16.8 MB).
  EXPECT_EQ(Index.slotCount(), 1333334u);
}

TEST(NameIndexTest, StaysAtMostThreeQuartersFull) {
  Table T;
  for (int I = 0; I < 5000; ++I) {
    T.add("v" + std::to_string(I));
    ASSERT_LE(4 * T.Names.size(), 3 * T.Index.slotCount()) << I;
  }
}

} // namespace

// The linker releases its index once emit has chosen the output symbols (GlobalNameIndex::release): the
// table's memory goes (its pages given back first), and an index reset afterwards works as a new one.
TEST(NameIndexTest, ReleaseFreesTheTableAndAResetStartsAgain) {
  Table T;
  T.Index.reset(100000);
  for (int I = 0; I < 100000; ++I)
    T.add("f" + std::to_string(I));
  EXPECT_EQ(T.find("f99999"), 99999u);
  T.Index.release();
  EXPECT_EQ(T.Index.slotCount(), 0u);
  EXPECT_EQ(T.find("f99999"), NameIndex::None);
  T.Names.clear();
  T.Index.reset(4);
  EXPECT_TRUE(T.add("g"));
  EXPECT_FALSE(T.add("g"));
  EXPECT_EQ(T.find("g"), 0u);
}
