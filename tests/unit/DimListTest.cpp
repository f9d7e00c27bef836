// Tests of DimList (ObjectModel.h), the one-word list of an array declarator's dimensions that every
// parameter of a link holds: none, one held in the word, more (or one too large for it) in a block of
// their own; copies, moves and comparisons across the three forms, and a round trip through an object.
#include "ObjectFormatTestModel.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

using namespace ptxlink;

namespace {

std::vector<uint64_t> values(const DimList &D) { return std::vector<uint64_t>(D.begin(), D.end()); }

constexpr uint64_t Huge = (uint64_t(1) << 63) + 5; // too large to be held in the word

TEST(DimList, HoldsNoneOneAndMany) {
  DimList None;
  EXPECT_TRUE(None.empty());
  EXPECT_EQ(None.size(), 0u);
  EXPECT_EQ(values(None), std::vector<uint64_t>{});

  for (uint64_t One : {uint64_t(0), uint64_t(16), (uint64_t(1) << 63) - 1, Huge}) {
    DimList D;
    D.push_back(One);
    EXPECT_FALSE(D.empty());
    ASSERT_EQ(D.size(), 1u);
    EXPECT_EQ(D[0], One);
  }

  DimList Many;
  for (uint64_t X : {3, 4, 5})
    Many.push_back(X);
  EXPECT_EQ(values(Many), (std::vector<uint64_t>{3, 4, 5}));
  DimList FromRef(llvm::ArrayRef<uint64_t>({7, Huge}));
  EXPECT_EQ(values(FromRef), (std::vector<uint64_t>{7, Huge}));
}

TEST(DimList, CopiesMovesAndCompares) {
  DimList One({16}), Many({3, 4, 5}), Big({Huge});
  DimList CopyOne = One, CopyMany = Many, CopyBig = Big;
  EXPECT_TRUE(CopyOne == One);
  EXPECT_TRUE(CopyMany == Many);
  EXPECT_TRUE(CopyBig == Big);
  EXPECT_FALSE(One == Many);
  EXPECT_FALSE(One == Big);
  EXPECT_TRUE(DimList({16}) != DimList({16, 1}));
  EXPECT_TRUE(DimList() == DimList(llvm::ArrayRef<uint64_t>()));

  // A copy owns its block: changing the copy leaves the original as it was.
  CopyMany.push_back(6);
  EXPECT_EQ(values(Many), (std::vector<uint64_t>{3, 4, 5}));
  EXPECT_EQ(values(CopyMany), (std::vector<uint64_t>{3, 4, 5, 6}));

  DimList Moved = std::move(CopyMany);
  EXPECT_EQ(values(Moved), (std::vector<uint64_t>{3, 4, 5, 6}));
  EXPECT_TRUE(CopyMany.empty()); // NOLINT(bugprone-use-after-move): moved-from is empty, by contract

  // Assignments between the forms, and to itself.
  Moved = One;
  EXPECT_EQ(values(Moved), std::vector<uint64_t>{16});
  Moved = Big;
  EXPECT_EQ(values(Moved), std::vector<uint64_t>{Huge});
  const DimList &Same = Moved;
  Moved = Same;
  EXPECT_EQ(values(Moved), std::vector<uint64_t>{Huge});
  Moved = DimList();
  EXPECT_TRUE(Moved.empty());
}

// Appending is amortized constant time: the reader appends an object's dimensions one by one, and a
// hostile object may declare a parameter with millions of them (bounded only by the section's size).
// Copying the list on every append made that quadratic: 200,000 appends took over a minute.
TEST(DimList, AppendingManyDimensionsTakesLinearTime) {
  constexpr size_t Many = 1 << 20;
  const auto Start = std::chrono::steady_clock::now();
  DimList D;
  for (size_t I = 0; I < Many; ++I)
    D.push_back(I * 3);
  const double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  ASSERT_EQ(D.size(), Many);
  for (size_t I = 0; I < Many; I += 4099)
    EXPECT_EQ(D[I], I * 3);
  EXPECT_EQ(D[Many - 1], (Many - 1) * 3);
  EXPECT_LT(Seconds, 5.0); // linear: milliseconds, even under sanitizers
}

// Every form survives an object: written by ElfWriter, read back by the reader.
TEST(DimList, RoundTripsThroughAnObject) {
  auto O = testmodel::buildFullModel();
  ModuleVariant &V = O->Variants[0];
  ASSERT_GE(V.Params.size(), 3u);
  V.Params[0].ArrayDims = DimList({3, 4, 5});
  V.Params[1].ArrayDims = DimList({Huge});
  V.Params[2].ArrayDims = DimList({0});
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::Error Written = writeObject(*O, OS);
  ASSERT_FALSE(bool(Written)) << llvm::toString(std::move(Written));
  OS.flush();
  auto Read = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "dims.o"));
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  const ModuleVariant &R = (*Read)->Variants[0];
  ASSERT_EQ(R.Params.size(), V.Params.size());
  EXPECT_EQ(values(R.Params[0].ArrayDims), (std::vector<uint64_t>{3, 4, 5}));
  EXPECT_EQ(values(R.Params[1].ArrayDims), std::vector<uint64_t>{Huge});
  EXPECT_EQ(values(R.Params[2].ArrayDims), std::vector<uint64_t>{0});
}

// The reader appends a parameter's dimensions one by one: an object that declares a million of them (8 MB
// of records, which the section's size allows) reads in linear time.
TEST(DimList, AnObjectWithAMillionDimensionsReadsInLinearTime) {
  auto O = testmodel::buildFullModel();
  ModuleVariant &V = O->Variants[0];
  ASSERT_GE(V.Params.size(), 1u);
  std::vector<uint64_t> Dims(1 << 20);
  for (size_t I = 0; I < Dims.size(); ++I)
    Dims[I] = I + 1;
  V.Params[0].ArrayDims = DimList(llvm::ArrayRef<uint64_t>(Dims));
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::Error Written = writeObject(*O, OS);
  ASSERT_FALSE(bool(Written)) << llvm::toString(std::move(Written));
  OS.flush();
  const auto Start = std::chrono::steady_clock::now();
  auto Read = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "dims.o"));
  const double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  EXPECT_EQ(values((*Read)->Variants[0].Params[0].ArrayDims), Dims);
  EXPECT_LT(Seconds, 5.0); // appending by copying the list made this hours
}

} // namespace
