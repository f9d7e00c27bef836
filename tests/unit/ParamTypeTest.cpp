// Tests of a parameter's type as ParamInfo keeps it: one byte, a position among the spellings that are PTX
// types (ptxTypeId, ObjectModel.h). Every spelling the assembler takes for a type has an id and comes back
// unchanged, nothing else has one, and a reader refuses an object whose parameter names no PTX type.
#include "ObjectFormatTestModel.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace ptxlink;

namespace {

TEST(ParamType, EveryTypeSpellingHasAnIdAndComesBack) {
  // The element types typeSizeBytes sizes, alone and packed by two and four, and the unsized ones.
  const char *Elements[] = {"b8",  "u8",  "s8",  "b16", "u16",  "s16",  "f16",   "bf16",  "b32",
                            "u32", "s32", "f32", "tf32", "b64", "u64", "s64", "f64", "b128", "e4m3",
                            "e5m2", "ue8m0", "ue4m3", "e2m3", "e3m2", "e2m1"};
  std::vector<std::string> Spellings = {".pred", ".texref", ".samplerref", ".surfref"};
  for (const char *E : Elements)
    for (const char *Pack : {"", "x2", "x4"})
      Spellings.push_back(std::string(".") + E + Pack);
  std::set<uint8_t> Ids;
  for (const std::string &S : Spellings) {
    if (S != ".texref" && S != ".samplerref" && S != ".surfref") {
      EXPECT_NE(typeSizeBytes(S), 0u) << S; // the list above is the one typeSizeBytes knows
    }
    uint8_t Id = ptxTypeId(S);
    EXPECT_NE(Id, 0) << S;
    EXPECT_EQ(ptxTypeName(Id), S);
    Ids.insert(Id);
    ParamInfo P;
    EXPECT_TRUE(P.setType(S));
    EXPECT_EQ(P.type(), S);
  }
  EXPECT_EQ(Ids.size(), Spellings.size()); // one id each
}

TEST(ParamType, NoOtherSpellingHasAnId) {
  for (const char *S : {"", ".b", ".b7", ".b32x3", ".u8x8", ".predx2", "b32", ".B32", ".f32 ", ".global", ".texrefx2",
                        ".samplerrefs", ".f16x02", ".f16x"}) {
    EXPECT_EQ(typeSizeBytes(S), 0u) << S;
    EXPECT_EQ(ptxTypeId(S), 0) << S;
    ParamInfo P;
    EXPECT_FALSE(P.setType(S)) << S;
    EXPECT_FALSE(P.hasType());
    EXPECT_EQ(P.type(), "");
  }
  EXPECT_EQ(ptxTypeName(255), ""); // an id out of range names nothing
}

// A spelling changed in any one byte, cut short or made longer has the id of the spelling it became, or
// none; and the parser takes it for a type (typeSizeBytes, which the reader's ids must cover) exactly when
// it has an id.
TEST(ParamType, EveryByteOfTheSpellingCounts) {
  std::vector<std::string> Spellings;
  for (unsigned Id = 1; !ptxTypeName(uint8_t(Id)).empty(); ++Id)
    Spellings.push_back(ptxTypeName(uint8_t(Id)).str());
  ASSERT_GT(Spellings.size(), 70u);
  auto IdOf = [&](const std::string &S) -> uint8_t { // the plain rule: the position of an equal spelling
    for (size_t I = 0; I < Spellings.size(); ++I)
      if (Spellings[I] == S)
        return uint8_t(I + 1);
    return 0;
  };
  auto IsTypeName = [](const std::string &S) { // the assembler's rule (PtxParser.cpp's isTypeName)
    return typeSizeBytes(S) != 0 || S == ".texref" || S == ".samplerref" || S == ".surfref";
  };
  for (const std::string &S : Spellings) {
    for (size_t At = 0; At < S.size(); ++At)
      for (unsigned Byte : {0u, 1u, unsigned('x'), unsigned('2'), 0x80u, 0xF0u, 0xFFu}) {
        std::string Changed = S;
        Changed[At] = char(Byte);
        EXPECT_EQ(ptxTypeId(Changed), IdOf(Changed)) << S << " at " << At;
        EXPECT_EQ(IsTypeName(Changed), IdOf(Changed) != 0) << Changed; // every type the parser takes has an id
      }
    for (size_t Size = 0; Size < S.size(); ++Size)
      EXPECT_EQ(ptxTypeId(S.substr(0, Size)), IdOf(S.substr(0, Size))) << S;
    for (const std::string &Tail : {std::string(1, '\0'), std::string("2"), std::string("x4"), std::string("\xf0")}) {
      EXPECT_EQ(ptxTypeId(S + Tail), IdOf(S + Tail)) << S;
      EXPECT_EQ(IsTypeName(S + Tail), IdOf(S + Tail) != 0) << S + Tail;
    }
  }
}

TEST(ParamType, SameTypeComparesTheSpelling) {
  ParamInfo A, B;
  ASSERT_TRUE(A.setType(".b32"));
  ASSERT_TRUE(B.setType(".b32"));
  EXPECT_TRUE(A.sameType(B));
  ASSERT_TRUE(B.setType(".u32")); // the same size, another spelling
  EXPECT_FALSE(A.sameType(B));
}

// An object whose parameter record names a string that is no PTX type (a damaged or foreign object) is
// refused with the record's place, not read into a parameter without a type.
TEST(ParamType, ReaderRefusesAParameterOfNoPtxType) {
  auto O = testmodel::buildFullModel();
  ModuleVariant &V = O->Variants[0];
  ASSERT_GE(V.Params.size(), 1u);
  ASSERT_TRUE(V.Params[0].setType(".e5m2x4")); // a spelling nothing else in the object has
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::Error Written = writeObject(*O, OS);
  ASSERT_FALSE(bool(Written)) << llvm::toString(std::move(Written));
  OS.flush();
  size_t At = Bytes.find(".e5m2x4");
  ASSERT_NE(At, std::string::npos);
  ASSERT_EQ(Bytes.find(".e5m2x4", At + 1), std::string::npos);
  Bytes[At + 6] = '3'; // ".e5m2x3": packed by three, no PTX type
  auto Read = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "damaged.o"));
  ASSERT_FALSE(bool(Read));
  std::string Message = llvm::toString(Read.takeError());
  EXPECT_NE(Message.find("parameter type '.e5m2x3' is no PTX type"), std::string::npos) << Message;
  EXPECT_NE(Message.find("damaged.o"), std::string::npos) << Message;
  EXPECT_NE(Message.find("offset"), std::string::npos) << Message; // where, in the file
}

} // namespace
