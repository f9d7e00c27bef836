// Unit tests of the facts the assembler records for the link (object format version 3): which names are
// called or listed in `.calltargets`, and the ODR hash of each weak definition, equal exactly where the
// definitions differ only in what nvcc numbers per module; and that the object keeps both.

#include "ptxlink/Assembler.h"
#include "ptxlink/ObjectFormat.h"
#include "ptxlink/OdrHash.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <string>

using namespace ptxlink;

namespace {

std::unique_ptr<ObjectFile> assemble(const std::string &Text) {
  auto Obj = std::make_unique<ObjectFile>();
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  DiagnosticEngine Engine(OS, "ptxlink-as");
  const bool Ok = assembleInto(*Obj, Text, "t.ptx", Engine);
  EXPECT_TRUE(Ok) << Errors;
  return Ok ? std::move(Obj) : nullptr;
}

/// The recorded ODR hash of the definition of Name in a module of the given header and body.
std::optional<uint64_t> weakHash(const std::string &Module, llvm::StringRef Name = "w") {
  auto Obj = assemble(".version 8.0\n.target sm_80\n.address_size 64\n" + Module);
  if (!Obj)
    return std::nullopt;
  const ModuleVariant &V = Obj->Variants[0];
  const uint32_t S = V.findSymbol(Name);
  EXPECT_NE(S, NoSymbol);
  if (S == NoSymbol || V.Symbols[S].Section == NoSection)
    return std::nullopt;
  std::optional<uint64_t> H = V.odrHashOf(V.Symbols[S].Section);
  // The recorded number is the function of the model that the -r writer and the docs describe.
  if (H)
    EXPECT_EQ(*H, odrHash(V, V.Symbols[S].Section));
  return H;
}

const char *Callees = ".extern .func f();\n.extern .func g();\n.func local1() { ret; }\n.func local2() { ret; }\n";

TEST(OdrHash, OnlyWeakDefinitionsHaveOne) {
  EXPECT_TRUE(weakHash(".weak .func w() { ret; }").has_value());
  EXPECT_FALSE(weakHash(".visible .func w() { ret; }").has_value());
  EXPECT_FALSE(weakHash(".func w() { ret; }").has_value());
  EXPECT_TRUE(weakHash(".weak .global .u32 w = 3;").has_value());
}

TEST(OdrHash, PerModuleNumberingDoesNotCount) {
  auto A = weakHash(std::string(Callees) +
                    ".weak .func w()\n{\n .local .align 4 .b8 __local_depot3[8];\n .reg .pred %p<2>;\n"
                    " // callseq 3\n @%p1 bra $L__BB3_2;\n call.uni local1, ();\n$L__BB3_2:\n$L__tmp7:\n ret;\n}");
  auto B = weakHash(std::string(Callees) +
                    ".weak .func w()\n{\n  .local .align 4 .b8 __local_depot9[8];\n .reg .pred   %p<2>;\n"
                    " // callseq 40\n @%p1 bra $L__BB9_7;   /* note */\n call.uni local2, ();\n$L__BB9_7:\n ret;\n}");
  ASSERT_TRUE(A && B);
  EXPECT_EQ(*A, *B);
}

TEST(OdrHash, CodeAndVisibleNamesCount) {
  const std::string Body = ".weak .func w()\n{\n .reg .b32 %r<2>;\n mov.u32 %r1, 1;\n call.uni f, ();\n ret;\n}";
  auto A = weakHash(Callees + Body);
  auto OtherConstant = weakHash(Callees + std::string(".weak .func w()\n{\n .reg .b32 %r<2>;\n mov.u32 %r1, 2;\n"
                                                      " call.uni f, ();\n ret;\n}"));
  auto OtherCallee = weakHash(Callees + std::string(".weak .func w()\n{\n .reg .b32 %r<2>;\n mov.u32 %r1, 1;\n"
                                                    " call.uni g, ();\n ret;\n}"));
  ASSERT_TRUE(A && OtherConstant && OtherCallee);
  EXPECT_NE(*A, *OtherConstant);
  EXPECT_NE(*A, *OtherCallee); // calling another visible function is a different definition
  // The label numbering is by order of first use: branches to two labels swapped are a difference.
  auto Fwd = weakHash(".weak .func w()\n{\n bra L1;\nL1:\n bra L2;\nL2:\n ret;\n}");
  auto Back = weakHash(".weak .func w()\n{\n bra L2;\nL1:\n bra L1;\nL2:\n ret;\n}");
  ASSERT_TRUE(Fwd && Back);
  EXPECT_NE(*Fwd, *Back);
}

TEST(OdrHash, CallsAndCallTargetsAreMarkedAndKeptInTheObject) {
  auto Obj = assemble(".version 8.0\n.target sm_80\n.address_size 64\n" + std::string(Callees) +
                      ".weak .func w()\n{\n .reg .pred %p<2>;\n .reg .b64 %rd<2>;\n mov.u64 %rd1, g;\n @%p1 call f, ();\n"
                      " ft: .calltargets g;\n ret;\n}\n");
  ASSERT_TRUE(Obj);
  auto Check = [](const ModuleVariant &V) {
    const Section &S = V.Sections[V.Symbols[V.findSymbol("w")].Section];
    unsigned Calls = 0, Targets = 0, Plain = 0;
    for (const Relocation &R : V.relocs(S)) {
      const llvm::StringRef Name = V.Symbols[R.Symbol].name();
      if (R.isCall()) {
        ++Calls;
        EXPECT_EQ(Name, "f");
      } else if (R.isCallTarget()) {
        ++Targets;
        EXPECT_EQ(Name, "g");
      } else {
        ++Plain; // its own name, and `mov` of g's address
      }
    }
    EXPECT_EQ(Calls, 1u);
    EXPECT_EQ(Targets, 1u);
    EXPECT_EQ(Plain, 2u);
  };
  Check(Obj->Variants[0]);
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  ASSERT_FALSE(bool(writeObject(*Obj, OS)));
  auto Read = readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "t.o"));
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  Check((*Read)->Variants[0]);
  ASSERT_EQ((*Read)->Variants[0].odrHashes().size(), Obj->Variants[0].odrHashes().size());
  ASSERT_EQ(Obj->Variants[0].odrHashes().size(), 1u);
  EXPECT_EQ((*Read)->Variants[0].odrHashes()[0].Section, Obj->Variants[0].odrHashes()[0].Section);
  EXPECT_EQ((*Read)->Variants[0].odrHashes()[0].Hash, Obj->Variants[0].odrHashes()[0].Hash);
}

} // namespace
