// Tracing a line of a printed module back to its input (PrintedLayout, locatePrintedLine) and finding
// the token a ptxas message quotes (indexOfQuotedToken): what --verify and --sass rely on to report
// ptxas's messages at the input's file:line:col.
#include "ptxlink/Assembler.h"
#include "ptxlink/ObjectFormat.h"

#include <gtest/gtest.h>

using namespace ptxlink;

namespace {

const char *Module = ".version 8.0\n"
                     ".target sm_80\n"
                     ".address_size 64\n"
                     "\n"
                     ".global .u32 counter;\n"
                     "\n"
                     ".visible .func (.param .b32 r) helper(.param .b32 x)\n" // line 7
                     "{\n"
                     "\t.reg .b32 %r<3>;\n"
                     "\tld.param.u32 %r1, [x];\n" // line 10
                     "\tst.param.b32 [r], %r1;\n"
                     "\tret;\n"
                     "}\n"
                     "\n"
                     ".visible .entry k()\n" // line 15
                     "{\n"
                     "\tret;\n"
                     "}\n";

TEST(PrintedLayoutTest, EveryLineOfASectionMapsBackToItsInputLine) {
  ObjectFile Obj;
  std::string Errors;
  llvm::raw_string_ostream ErrOS(Errors);
  DiagnosticEngine Diags(ErrOS, "test");
  ASSERT_TRUE(assembleInto(Obj, Module, "in.ptx", Diags)) << Errors;
  const ModuleVariant &V = Obj.Variants.front();
  std::string Printed;
  llvm::raw_string_ostream OS(Printed);
  PrintedLayout Layout;
  printModule(V, V.Target, OS, Layout);
  ASSERT_FALSE(Layout.Spans.empty());

  // Every printed line that reads like an input line maps to an input line with the same text.
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  llvm::StringRef(Printed).split(Lines, '\n');
  llvm::SmallVector<llvm::StringRef, 32> InputLines;
  llvm::StringRef(Module).split(InputLines, '\n');
  unsigned Mapped = 0;
  for (unsigned L = 1; L <= Lines.size(); ++L) {
    auto O = locatePrintedLine(V, Layout, Printed, L);
    if (!O)
      continue;
    ++Mapped;
    EXPECT_EQ(O->File, "in.ptx");
    ASSERT_GE(O->Line, 1u);
    ASSERT_LE(O->Line, InputLines.size());
    // The text is the input's line from FirstColumn on (a section's first line starts after its
    // linkage directive), and the printed line ends with it.
    llvm::StringRef Input = InputLines[O->Line - 1];
    ASSERT_GE(O->FirstColumn, 1u);
    EXPECT_EQ(Input.drop_front(O->FirstColumn - 1), O->LineText) << "printed line " << L;
    EXPECT_TRUE(Lines[L - 1].ends_with(O->LineText)) << "printed line " << L << ": " << Lines[L - 1].str();
  }
  EXPECT_GE(Mapped, 10u); // the body lines at least
  // The header the printer writes is its own.
  EXPECT_FALSE(locatePrintedLine(V, Layout, Printed, 1));
  EXPECT_FALSE(locatePrintedLine(V, Layout, Printed, 100000));
}

TEST(PrintedLayoutTest, QuotedTokenIsFoundAsAWholeToken) {
  llvm::StringRef Line = "\tadd.s32 %r10, %r1, %r100;";
  EXPECT_EQ(indexOfQuotedToken("Unknown symbol '%r1'", Line), Line.find("%r1,"));
  EXPECT_EQ(indexOfQuotedToken("Unknown symbol '%r100'", Line), Line.find("%r100"));
  EXPECT_EQ(indexOfQuotedToken("Arguments mismatch for instruction 'add'", Line), Line.find("add"));
  EXPECT_EQ(indexOfQuotedToken("Unknown modifier '.s32'", Line), Line.find(".s32"));
  // Nothing quoted, or not on the line: the first non-blank character.
  EXPECT_EQ(indexOfQuotedToken("Ptx assembly aborted", Line), 1u);
  EXPECT_EQ(indexOfQuotedToken("Unknown symbol '%q'", Line), 1u);
}

} // namespace
