// Unit tests of "did you mean" for undefined symbols (suggestNearMisses in AbiCheck.h).
#include "ptxlink/AbiCheck.h"

#include <gtest/gtest.h>

using namespace ptxlink;

namespace {

std::vector<std::string> suggest(llvm::StringRef Undefined, std::vector<llvm::StringRef> Defined) {
  std::vector<DiagSite> Out;
  suggestNearMisses(Undefined, Defined, Out);
  std::vector<std::string> Texts;
  for (const DiagSite &S : Out)
    Texts.push_back(S.Text);
  return Texts;
}

TEST(AbiNearMiss, CxxOtherParameterTypes) {
  EXPECT_EQ(suggest("_Z5scalePfi", {"_Z5scalePff", "_Z5otherv", "kernel"}),
            std::vector<std::string>{"did you mean 'scale(float*, float)' (_Z5scalePff)? differs in parameters "
                                     "(float*, int) vs (float*, float)"});
}

TEST(AbiNearMiss, CxxOtherNamespaceAndQualifiers) {
  EXPECT_EQ(suggest("_ZN2v11fEi", {"_ZN2v21fEi"}),
            std::vector<std::string>{"did you mean 'v2::f(int)' (_ZN2v21fEi)? differs in scope 'v1' vs 'v2'"});
  EXPECT_EQ(suggest("_ZNK1S3getEv", {"_ZN1S3getEv"}),
            std::vector<std::string>{"did you mean 'S::get()' (_ZN1S3getEv)? differs in qualifiers 'const' vs ''"});
}

TEST(AbiNearMiss, BestFirstAtMostThree) {
  auto Out = suggest("_Z1fi", {"_Z1fd", "_ZN1a1fEi", "_ZN1b1fEd", "_Z1fl", "_Z1gi"});
  ASSERT_EQ(Out.size(), 3u);
  EXPECT_EQ(Out[0], "did you mean 'f(double)' (_Z1fd)? differs in parameters (int) vs (double)");
  EXPECT_EQ(Out[1], "did you mean 'f(long)' (_Z1fl)? differs in parameters (int) vs (long)");
  EXPECT_EQ(Out[2], "did you mean 'a::f(int)' (_ZN1a1fEi)? differs in scope '::' vs 'a'");
}

TEST(AbiNearMiss, ExternCAgainstCxx) {
  EXPECT_EQ(suggest("saxpy", {"_Z5saxpyifPfS_"}),
            std::vector<std::string>{"did you mean 'saxpy(int, float, float*, float*)' (_Z5saxpyifPfS_)? it is a "
                                     "C++ name: is 'saxpy' declared extern \"C\" on one side only?"});
  EXPECT_EQ(suggest("_Z5saxpyi", {"saxpy"}),
            std::vector<std::string>{"did you mean 'saxpy'? it is an extern \"C\" name: is 'saxpy(int)' declared "
                                     "extern \"C\" on one side only?"});
}

TEST(AbiNearMiss, PlainNamesByEditDistance) {
  EXPECT_EQ(suggest("reduce_sum", {"reduce_sun", "reduce_max", "Reduce_Sum", "unrelated"}),
            (std::vector<std::string>{"did you mean 'Reduce_Sum'?", "did you mean 'reduce_sun'?"}));
  // One edit is allowed even in short names, but not one that replaces the whole name.
  EXPECT_EQ(suggest("f", {"g", "ff"}), std::vector<std::string>{"did you mean 'ff'?"});
  EXPECT_TRUE(suggest("u", {"k"}).empty());
  EXPECT_TRUE(suggest("compute", {"other_thing"}).empty());
}

} // namespace
