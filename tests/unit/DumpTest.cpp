// Unit tests of ptxlink-dump run in-process: the JSON document's shape and version, agreement of the
// text and JSON renderings, --select's rules, and exit status 1 with located warnings on corrupt input.
#include "Dump.h"
#include "ptxlink/Fatbin.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace ptxlink;
using namespace llvm;

namespace {

struct TempFile {
  std::string Path;
  explicit TempFile(StringRef Contents) {
    SmallString<128> P;
    int FD;
    EXPECT_FALSE(sys::fs::createTemporaryFile("dump-test", "bin", FD, P));
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Contents;
    Path = P.str().str();
  }
  ~TempFile() { sys::fs::remove(Path); }
};

std::string fatbin(std::vector<std::string> Ptx, FatbinCompression C = FatbinCompression::None) {
  std::vector<FatbinImage> Images;
  for (const std::string &P : Ptx) {
    auto I = makePtxImage(P);
    EXPECT_TRUE(bool(I));
    Images.push_back(*I);
  }
  std::string Out;
  raw_string_ostream OS(Out);
  FatbinWriteOptions O;
  O.Compression = C;
  EXPECT_FALSE(errorToBool(writeFatbin(Images, O, OS)));
  return Out;
}

int run(std::vector<std::string> Args, std::string &Out, std::string &Err) {
  raw_string_ostream O(Out), E(Err);
  return runDumpTool(Args, O, E);
}

const std::string P80 = ".version 7.0\n.target sm_80\n.address_size 64\n";
const std::string P90a = ".version 8.0\n.target sm_90a\n.address_size 64\n";
const std::string P86 = ".version 7.1\n.target sm_86\n.address_size 64\n";

TEST(DumpTest, ListJsonHasVersionedSchemaAndAgreesWithText) {
  TempFile F(fatbin({P80, P90a}, FatbinCompression::Zstd));
  std::string Out, Err;
  ASSERT_EQ(run({"--list", "--json", F.Path}, Out, Err), 0) << Err;
  auto Doc = json::parse(Out);
  ASSERT_TRUE(bool(Doc)) << toString(Doc.takeError());
  const json::Object *Root = Doc->getAsObject();
  ASSERT_TRUE(Root);
  EXPECT_EQ(Root->getString("schema"), "ptxlink-dump");
  EXPECT_EQ(Root->getInteger("schemaVersion"), int64_t(DumpJsonSchemaVersion));
  const json::Array *Inputs = Root->getArray("inputs");
  ASSERT_TRUE(Inputs && Inputs->size() == 1);
  const json::Array *List = (*Inputs)[0].getAsObject()->getArray("list");
  ASSERT_TRUE(List && List->size() == 2);
  // The text view is a table whose header row names the same keys: every JSON value must be the
  // exact cell of its row and column (a substring search would find "1" anywhere).
  std::string Text, Err2;
  ASSERT_EQ(run({"--list", F.Path}, Text, Err2), 0);
  SmallVector<StringRef, 16> Lines;
  StringRef(Text).split(Lines, '\n', -1, false);
  auto Cells = [](StringRef Line) {
    SmallVector<StringRef, 16> C;
    Line.split(C, ' ', -1, false);
    return C;
  };
  auto Header = llvm::find_if(Lines, [](StringRef L) { return L.trim().starts_with("index "); });
  ASSERT_NE(Header, Lines.end()) << Text;
  SmallVector<StringRef, 16> Columns = Cells(*Header);
  ASSERT_GE(Lines.end() - Header, 1 + int(List->size())) << Text;
  for (size_t Row = 0; Row < List->size(); ++Row) {
    SmallVector<StringRef, 16> Values = Cells(Header[1 + Row]);
    ASSERT_EQ(Values.size(), Columns.size()) << Header[1 + Row].str();
    for (const auto &KV : *(*List)[Row].getAsObject()) {
      auto Col = llvm::find(Columns, KV.first.str());
      ASSERT_NE(Col, Columns.end()) << "no text column for " << KV.first.str();
      StringRef Cell = Values[Col - Columns.begin()];
      std::string Expected;
      if (auto S = KV.second.getAsString())
        Expected = S->str();
      else if (auto N = KV.second.getAsInteger())
        Expected = std::to_string(*N);
      else if (const json::Array *A = KV.second.getAsArray())
        for (const json::Value &E : *A)
          Expected += (Expected.empty() ? "" : ",") + E.getAsString().value_or("?").str();
      EXPECT_EQ(Cell.str(), Expected) << "row " << Row << ", " << KV.first.str();
    }
  }
  EXPECT_EQ((*List)[1].getAsObject()->getString("arch"), "compute_90a");
  EXPECT_EQ((*List)[1].getAsObject()->getString("compression"), "zstd");
}

TEST(DumpTest, SelectPrefersSassThenHighestCompatiblePtx) {
  TempFile F(fatbin({P80, P86, P90a}));
  std::string Out, Err;
  ASSERT_EQ(run({"--select", "sm_89", "--json", F.Path}, Out, Err), 0) << Err;
  auto Doc = json::parse(Out);
  ASSERT_TRUE(bool(Doc));
  const json::Object *Sel =
      (*Doc->getAsObject()->getArray("inputs"))[0].getAsObject()->getObject("select");
  ASSERT_TRUE(Sel);
  EXPECT_EQ(Sel->getString("how"), "ptx-jit");
  EXPECT_EQ(Sel->getString("selectedArch"), "compute_86"); // not compute_90a: arch-specific
  Out.clear();
  ASSERT_EQ(run({"--select", "sm_75", "--json", F.Path}, Out, Err), 0);
  auto Doc2 = json::parse(Out);
  ASSERT_TRUE(bool(Doc2));
  EXPECT_EQ((*Doc2->getAsObject()->getArray("inputs"))[0].getAsObject()->getObject("select")->getString("how"),
            "none");
}

TEST(DumpTest, CorruptInputWarnsWithOffsetAndExitsOne) {
  std::string Good = fatbin({P80, P86});
  std::string Bad = Good;
  Bad[16 + 4] = 0; // first entry header size 0x50 -> 0x00
  Bad[16 + 5] = 0;
  TempFile F(Bad);
  std::string Out, Err;
  EXPECT_EQ(run({"--list", F.Path}, Out, Err), 1);
  EXPECT_NE(Err.find("offset 0x14"), std::string::npos) << Err;
  // Truncation in the second image: the first is still listed.
  TempFile T(StringRef(Good).drop_back(9));
  Out.clear();
  Err.clear();
  EXPECT_EQ(run({"--list", T.Path}, Out, Err), 1);
  EXPECT_NE(Out.find("compute_80"), std::string::npos) << Out;
  EXPECT_NE(Err.find("warning"), std::string::npos);
}

TEST(DumpTest, BadCommandLines) {
  std::string Out, Err;
  EXPECT_EQ(run({"--no-such-view", "x"}, Out, Err), 1);
  EXPECT_EQ(run({"--list"}, Out, Err), 1);
  EXPECT_EQ(run({"--select", "gfx90a", "x"}, Out, Err), 1);
  EXPECT_EQ(run({"--list", "/nonexistent/file"}, Out, Err), 1);
  TempFile Junk("just some bytes");
  EXPECT_EQ(run({Junk.Path}, Out, Err), 1);
}

} // namespace
