// Diagnostic sites: one spelling of a place in text ("a.ptx:5:10 (a.o)"), and its parts as JSON.
#include "ptxlink/Diagnostics.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

using namespace ptxlink;

namespace {

TEST(DiagnosticSites, OnePlaceSpelling) {
  EXPECT_EQ((SiteLocation{"a.ptx", {5, 10}, "a.o"}).str(), "a.ptx:5:10 (a.o)");
  // The object is named only when it is another file than the source.
  EXPECT_EQ((SiteLocation{"a.ptx", {5, 10}, "a.ptx"}).str(), "a.ptx:5:10");
  EXPECT_EQ((SiteLocation{"a.ptx", {5, 0}, ""}).str(), "a.ptx:5");
  EXPECT_EQ((SiteLocation{"m.ptx", {}, "lib.a(m.o)"}).str(), "m.ptx (lib.a(m.o))");
  EXPECT_EQ(DiagSite::at("defined at", {"a.ptx", {5, 10}, "a.o"}, " (used)").text(),
            "defined at a.ptx:5:10 (a.o) (used)");
  EXPECT_EQ(DiagSite::at("", {"a.ptx", {}, "a.o"}, ": .target sm_90a").text(), "a.ptx (a.o): .target sm_90a");
  EXPECT_EQ((DiagSite{"and 3 more"}).text(), "and 3 more");
}

TEST(DiagnosticSites, TextAndJsonCarryTheSameSite) {
  auto Emit = [](bool Json) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    DiagnosticEngine Diags(OS);
    Diags.setJson(Json);
    Diags.error("duplicate symbol: f",
                {DiagSite::at("defined at", {"a.ptx", {4, 10}, "a.o"}),
                 DiagSite::at("referenced by", {"b.ptx", {7, 3}, "b.ptx"}, " in k"),
                 DiagSite::at("declared at", {"c.ptx", {2, 9}, ""}, ": .extern .func f"), DiagSite{"C++: f(int)"}},
                "duplicate-symbol");
    return Out;
  };
  EXPECT_EQ(Emit(false), "ptxlink: error: duplicate symbol: f\n"
                         ">>> defined at a.ptx:4:10 (a.o)\n"
                         ">>> referenced by b.ptx:7:3 in k\n"
                         ">>> declared at c.ptx:2:9: .extern .func f\n"
                         ">>> C++: f(int)\n");
  EXPECT_EQ(Emit(true), R"J({"code":"duplicate-symbol","message":"duplicate symbol: f","severity":"error","sites":[)J"
                        R"J({"column":10,"file":"a.ptx","line":4,"message":"defined at","object":"a.o"},)J"
                        R"J({"column":3,"detail":"in k","file":"b.ptx","line":7,"message":"referenced by"},)J"
                        R"J({"column":9,"detail":".extern .func f","file":"c.ptx","line":2,"message":"declared at"},)J"
                        R"J({"message":"C++: f(int)"}]})J"
                        "\n");
}

} // namespace

// Issue 29, item 12: no line of a diagnostic is printed past MaxDiagnosticLineBytes, whether it goes
// through the engine (text or JSON) or straight to a capping stream; short lines pass unchanged.
TEST(DiagnosticLines, LongLinesAreCutAroundTheMiddle) {
  std::string Huge = "unknown option '" + std::string(5000000, 'x') + "'";
  std::string Cut = ptxlink::capLongLines(Huge + "\nshort line\n");
  EXPECT_LT(Cut.size(), 1100u);
  EXPECT_NE(Cut.find(" [... 4999057 bytes ...] "), std::string::npos);
  EXPECT_TRUE(llvm::StringRef(Cut).starts_with("unknown option 'xxx"));
  EXPECT_TRUE(llvm::StringRef(Cut).ends_with("xxx'\nshort line\n"));
  EXPECT_EQ(ptxlink::capLongLines("a\nb"), "a\nb");

  for (bool Json : {false, true}) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    ptxlink::DiagnosticEngine Diags(OS, "tool");
    Diags.setJson(Json);
    Diags.error(Huge);
    EXPECT_LT(Text.size(), 1200u);
    EXPECT_NE(Text.find("bytes ...]"), std::string::npos);
  }

  std::string Streamed;
  {
    llvm::raw_string_ostream Target(Streamed);
    ptxlink::LineCappingStream OS(Target);
    OS << "tool: error: '";
    for (int I = 0; I < 1000; ++I) // in pieces, as a stream receives them
      OS << std::string(5000, 'y');
    OS << "'\nnext\n" << std::string(900, 'z') << "\n";
  }
  EXPECT_LT(Streamed.size(), 2100u);
  EXPECT_TRUE(llvm::StringRef(Streamed).starts_with("tool: error: 'yyy"));
  EXPECT_NE(Streamed.find(" [... 4999055 bytes ...] yyy"), std::string::npos);
  EXPECT_TRUE(llvm::StringRef(Streamed).ends_with("y'\nnext\n" + std::string(900, 'z') + "\n"));
}
