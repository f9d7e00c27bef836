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
