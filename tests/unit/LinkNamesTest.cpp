// Unit tests for the link's one table of names (linker/lib/LinkNames.h): each visible name interned once
// at load, each symbol's id recorded per variant (fat objects too), module-local names and labels left
// out, and the table freed when its last user is done.
#include "LinkNames.h"

#include <gtest/gtest.h>

using namespace ptxlink;

namespace {

void addSymbol(ModuleVariant &V, llvm::StringRef Name, Binding Bind, SymbolKind Kind = SymbolKind::Function) {
  Symbol S;
  S.setName(Name);
  S.Bind = Bind;
  S.Kind = Kind;
  V.Symbols.push_back(S);
}

TEST(LinkNames, InternsEachVisibleNameOnceAndRecordsEverySymbolsId) {
  LinkNames Names;
  ObjectFile A, B;
  A.Variants.emplace_back();
  addSymbol(A.Variants[0], "f", Binding::Global);
  addSymbol(A.Variants[0], "local", Binding::Local);
  addSymbol(A.Variants[0], "$L__tmp0", Binding::Local, SymbolKind::Label);
  addSymbol(A.Variants[0], "g", Binding::Undefined);
  // A fat object: its second variant's ids follow its first's.
  B.Variants.resize(2);
  addSymbol(B.Variants[0], "g", Binding::Weak);
  addSymbol(B.Variants[1], "h", Binding::Common, SymbolKind::Variable);
  addSymbol(B.Variants[1], "f", Binding::Undefined);
  Names.addObject(A, 0);
  Names.addObject(B, 1);

  ASSERT_EQ(Names.size(), 3u);
  llvm::ArrayRef<uint32_t> IdsA = Names.symbolIds(0, A, A.Variants[0]);
  ASSERT_EQ(IdsA.size(), 4u);
  EXPECT_EQ(Names.text(IdsA[0]), "f");
  EXPECT_EQ(IdsA[1], LinkNames::None); // module-local
  EXPECT_EQ(IdsA[2], LinkNames::None); // a label
  EXPECT_EQ(Names.text(IdsA[3]), "g");
  llvm::ArrayRef<uint32_t> IdsB0 = Names.symbolIds(1, B, B.Variants[0]);
  llvm::ArrayRef<uint32_t> IdsB1 = Names.symbolIds(1, B, B.Variants[1]);
  ASSERT_EQ(IdsB0.size(), 1u);
  ASSERT_EQ(IdsB1.size(), 2u);
  EXPECT_EQ(IdsB0[0], IdsA[3]); // one id per name, whatever binding or input
  EXPECT_EQ(Names.text(IdsB1[0]), "h");
  EXPECT_EQ(IdsB1[1], IdsA[0]);
  EXPECT_EQ(Names.find("h"), IdsB1[0]);
  EXPECT_EQ(Names.find("local"), LinkNames::None);
  // An input never added has no ids (the resolver then interns its names itself).
  EXPECT_TRUE(Names.symbolIds(2, A, A.Variants[0]).empty());
}

TEST(LinkNames, TheLastUserFreesTheTable) {
  LinkNames Names;
  ObjectFile A;
  A.Variants.emplace_back();
  addSymbol(A.Variants[0], "f", Binding::Global);
  Names.addObject(A, 0);
  Names.addUsers(2);
  Names.doneWith();
  EXPECT_EQ(Names.find("f"), 0u); // one group is still linking
  Names.doneWith();
  EXPECT_EQ(Names.size(), 0u);
  EXPECT_EQ(Names.find("f"), LinkNames::None);
  EXPECT_TRUE(Names.symbolIds(0, A, A.Variants[0]).empty());
}

} // namespace
