// Unit tests for ArchiveExtractor with fake libraries and a fake linker: extraction to a fixpoint,
// cycles between libraries, whole-archive order, first-library-wins ties, no second definition pulled in
// through a stale list of undefined names, untouched members never read, and the --why-extract format.

#include "ArchiveExtraction.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>

using namespace llvm;
using namespace ptxlink;

namespace {

// A member of a fake library: the names it defines and the names it refers to.
struct FakeMember {
  std::string Name;
  std::vector<std::string> Defines;
  std::vector<std::string> Refers;
  bool Corrupt = false; // memberBuffer fails
  std::vector<std::string> IndexOnly; // names the index says it defines but it does not
};

class FakeLibrary final : public StaticLibrary {
public:
  FakeLibrary(std::string File, std::vector<FakeMember> Members, unsigned *Reads)
      : File(std::move(File)), Members(std::move(Members)), Reads(Reads) {
    for (size_t I = 0; I < this->Members.size(); ++I)
      for (const auto *Names : {&this->Members[I].Defines, &this->Members[I].IndexOnly})
        for (const std::string &D : *Names) {
          Index.emplace_back(D, I);
          Defining.try_emplace(D, I);
        }
  }
  StringRef fileName() const override { return File; }
  size_t memberCount() const override { return Members.size(); }
  StringRef memberName(size_t M) const override { return Members[M].Name; }
  Expected<MemoryBufferRef> memberBuffer(size_t M) const override {
    ++*Reads;
    if (Members[M].Corrupt)
      return createStringError(inconvertibleErrorCode(), File + ": corrupt member " + Members[M].Name);
    // The fake "bytes" are the member name; the fake linker finds the member again through it.
    return MemoryBufferRef(Members[M].Name, File);
  }
  std::optional<size_t> memberDefining(StringRef Name) const override {
    auto It = Defining.find(Name);
    if (It == Defining.end())
      return std::nullopt;
    return It->second;
  }
  bool hasSymbolIndex() const override { return HasIndex; }
  ArrayRef<std::pair<StringRef, size_t>> symbolIndex() const override {
    IndexRefs.clear();
    for (const auto &[N, M] : Index)
      IndexRefs.emplace_back(N, M);
    return IndexRefs;
  }
  mutable std::vector<std::pair<StringRef, size_t>> IndexRefs;

  std::string File;
  std::vector<FakeMember> Members;
  std::vector<std::pair<std::string, size_t>> Index;
  StringMap<size_t> Defining;
  unsigned *Reads;
  bool HasIndex = true;
};

// The linker side: which names are defined (by whom) and which are referenced (by whom, in order),
// each also reported to the extractor as the linker does (through views that outlive it).
class FakeLink {
public:
  explicit FakeLink(ArchiveExtractor &X) : X(X) {}

  void addObject(const std::string &Name, const std::vector<std::string> &Defines,
                 const std::vector<std::string> &Refers, const std::vector<std::string> &WeakOrCommon = {}) {
    const uint32_t Input = input(Name);
    for (const std::string &D : Defines)
      define(D, Name);
    for (const std::string &D : WeakOrCommon)
      define(D, Name);
    for (const std::string &R : Refers)
      refer(R, Name, Input);
  }

  std::vector<std::pair<std::string, std::string>> pending() const {
    std::vector<std::pair<std::string, std::string>> Out;
    std::set<std::string> Seen;
    for (const auto &[Name, By] : Refs)
      if (!Definitions.count(Name) && Seen.insert(Name).second)
        Out.emplace_back(Name, By);
    return Out;
  }

  // Loads a member: its definitions and references come from the library it was taken from.
  Error load(const std::vector<FakeLibrary *> &Libs, const ExtractedMember &M) {
    const FakeMember &FM = Libs[M.Library]->Members[M.Member];
    EXPECT_EQ(M.Buffer.getBuffer(), FM.Name);
    const uint32_t Input = input(M.DisplayName);
    for (const std::string &D : FM.Defines)
      define(D, M.DisplayName);
    for (const std::string &R : FM.Refers)
      refer(R, M.DisplayName, Input);
    return Error::success();
  }

  void define(const std::string &Name, const std::string &By) {
    X.define(keep(Name));
    if (!Definitions.emplace(Name, By).second)
      Duplicates.push_back(Name);
  }
  void refer(const std::string &Name, const std::string &By, uint32_t Input) {
    X.refer(keep(Name), Input);
    Refs.emplace_back(Name, By);
  }
  StringRef inputName(uint32_t Input) const { return Inputs[Input]; }

  std::map<std::string, std::string> Definitions;
  std::vector<std::pair<std::string, std::string>> Refs;
  std::vector<std::string> Duplicates;

private:
  uint32_t input(const std::string &Name) {
    Inputs.push_back(Name);
    return uint32_t(Inputs.size() - 1);
  }
  StringRef keep(const std::string &S) { return Strings.emplace_back(S); }
  ArchiveExtractor &X;
  std::deque<std::string> Strings, Inputs; // stable addresses: the extractor keeps views
};

struct Harness {
  LinkNames Names;
  ArchiveExtractor X{Names};
  FakeLink Link{X};
  std::vector<FakeLibrary *> Libs;
  unsigned Reads = 0;

  void lib(const std::string &File, std::vector<FakeMember> Members, bool Whole = false) {
    auto L = std::make_unique<FakeLibrary>(File, std::move(Members), &Reads);
    Libs.push_back(L.get());
    X.addLibrary(std::move(L), Whole);
  }
  Error run() {
    return X.run([&](uint32_t Input) { return Link.inputName(Input); },
                 [&](const ExtractedMember &M) { return Link.load(Libs, M); });
  }
  std::vector<std::string> extracted() const {
    std::vector<std::string> Out;
    for (const ExtractedMember &M : X.extracted())
      Out.push_back(M.DisplayName);
    return Out;
  }
};

using Names = std::vector<std::string>;

TEST(ArchiveExtraction, OnlyNeededMembersToAFixpoint) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"a"});
  H.lib("libx.a", {{"a.o", {"a"}, {"b"}}, {"b.o", {"b"}, {"c"}}, {"c.o", {"c"}, {}}, {"unused.o", {"z"}, {"nope"}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"libx.a(a.o)", "libx.a(b.o)", "libx.a(c.o)"}));
  EXPECT_EQ(H.Reads, 3u); // unused.o never read
  EXPECT_TRUE(H.Link.Duplicates.empty());
  const ExtractedMember &B = H.X.extracted()[1];
  EXPECT_EQ(B.Symbol, "b");
  EXPECT_EQ(B.ReferencedBy, "libx.a(a.o)");
  EXPECT_EQ(B.Library, 0u);
  EXPECT_EQ(B.Member, 1u);
}

TEST(ArchiveExtraction, NothingUndefinedNothingExtracted) {
  Harness H;
  H.Link.addObject("main.o", {"main", "a"}, {"a"});
  H.lib("libx.a", {{"a.o", {"a"}, {}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_TRUE(H.extracted().empty());
  EXPECT_EQ(H.Reads, 0u);
}

TEST(ArchiveExtraction, WeakOrCommonDefinitionPresentPullsNothing) {
  // The linker does not report a name as undefined when a weak or common definition exists, so a
  // strong definition in a library member is not pulled in.
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"w", "c"}, {"w", "c"});
  H.lib("libx.a", {{"w.o", {"w"}, {}}, {"c.o", {"c"}, {}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_TRUE(H.extracted().empty());
}

TEST(ArchiveExtraction, CycleBetweenTwoLibraries) {
  // libA(x.o) needs y from libB, which needs x2 from libA again: a single left-to-right pass over the
  // libraries (GNU ld) would miss x2; the fixpoint does not.
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"x"});
  H.lib("libA.a", {{"x.o", {"x"}, {"y"}}, {"x2.o", {"x2"}, {}}});
  H.lib("libB.a", {{"y.o", {"y"}, {"x2"}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"libA.a(x.o)", "libB.a(y.o)", "libA.a(x2.o)"}));
  EXPECT_TRUE(H.Link.pending().empty());
}

TEST(ArchiveExtraction, LibraryOrderDoesNotChangeTheSetForDisjointLibraries) {
  auto Run = [](bool Reverse) {
    Harness H;
    H.Link.addObject("main.o", {"main"}, {"p", "q"});
    std::vector<std::pair<std::string, std::vector<FakeMember>>> Libs = {
        {"libP.a", {{"p.o", {"p"}, {"q2"}}, {"pp.o", {"pp"}, {}}}},
        {"libQ.a", {{"q.o", {"q"}, {"p2"}}, {"q2.o", {"q2"}, {}}, {"p2.o", {"p2"}, {}}}}};
    if (Reverse)
      std::reverse(Libs.begin(), Libs.end());
    for (auto &[F, M] : Libs)
      H.lib(F, M);
    EXPECT_FALSE(bool(H.run()));
    std::set<std::string> Set;
    for (const std::string &N : H.extracted())
      Set.insert(N);
    return Set;
  };
  std::set<std::string> Forward = Run(false), Backward = Run(true);
  EXPECT_EQ(Forward, Backward);
  EXPECT_EQ(Forward, (std::set<std::string>{"libP.a(p.o)", "libQ.a(q.o)", "libQ.a(q2.o)", "libQ.a(p2.o)"}));
}

TEST(ArchiveExtraction, FirstLibraryOnTheCommandLineWinsATie) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"f"});
  H.lib("lib1.a", {{"f1.o", {"f"}, {}}});
  H.lib("lib2.a", {{"f2.o", {"f"}, {}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"lib1.a(f1.o)"}));
}

TEST(ArchiveExtraction, StaleUndefinedListDoesNotPullASecondDefinition) {
  // main needs a and b. lib2(ab.o) defines both; lib1(b.o) defines b too. Extracting ab.o for a
  // satisfies b, so b.o must not be pulled in as well (that would be a duplicate definition).
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"a", "b"});
  H.lib("lib1.a", {{"b.o", {"b"}, {}}});
  H.lib("lib2.a", {{"ab.o", {"a", "b"}, {}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"lib2.a(ab.o)"}));
  EXPECT_TRUE(H.Link.Duplicates.empty());
}

TEST(ArchiveExtraction, WholeArchiveFirstInLibraryOrder) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"lazy"});
  H.lib("liblazy.a", {{"lazy.o", {"lazy"}, {}}, {"other.o", {"other"}, {}}});
  H.lib("libw1.a", {{"w1a.o", {"w1a"}, {}}, {"w1b.o", {"w1b"}, {"lazy"}}}, /*Whole=*/true);
  H.lib("libw2.a", {{"w2.o", {"w2"}, {}}}, /*Whole=*/true);
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(),
            (Names{"libw1.a(w1a.o)", "libw1.a(w1b.o)", "libw2.a(w2.o)", "liblazy.a(lazy.o)"}));
  EXPECT_EQ(H.X.extracted()[0].Symbol, "");
  EXPECT_EQ(H.X.extracted()[0].ReferencedBy, "--whole-archive");
}

TEST(ArchiveExtraction, WholeArchiveDefinitionsSatisfyLazyReferences) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"f"});
  H.lib("liblazy.a", {{"f_lazy.o", {"f"}, {}}});
  H.lib("libwhole.a", {{"f_whole.o", {"f"}, {}}}, /*Whole=*/true);
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"libwhole.a(f_whole.o)"}));
}

TEST(ArchiveExtraction, NeverExtractedCorruptMemberIsHarmless) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"good"});
  H.lib("libx.a", {{"good.o", {"good"}, {}}, {"bad.o", {"bad"}, {}, /*Corrupt=*/true}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"libx.a(good.o)"}));
}

TEST(ArchiveExtraction, ExtractedCorruptMemberIsAnError) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"bad"});
  H.lib("libx.a", {{"bad.o", {"bad"}, {}, /*Corrupt=*/true}});
  Error E = H.run();
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(toString(std::move(E)), "libx.a: corrupt member bad.o");
}

TEST(ArchiveExtraction, LoadErrorStopsExtraction) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"a", "b"});
  H.lib("libx.a", {{"a.o", {"a"}, {}}, {"b.o", {"b"}, {}}});
  unsigned Loads = 0;
  Error E = H.X.run([&](uint32_t Input) { return H.Link.inputName(Input); },
                    [&](const ExtractedMember &M) -> Error {
                      ++Loads;
                      return createStringError(inconvertibleErrorCode(), "cannot load " + M.DisplayName);
                    });
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(toString(std::move(E)), "cannot load libx.a(a.o)");
  EXPECT_EQ(Loads, 1u);
}

TEST(ArchiveExtraction, UnresolvableNamesAreAskedAboutOnce) {
  // A name no library defines stays undefined (the linker reports it later); the extractor stops.
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"missing", "a"});
  H.lib("libx.a", {{"a.o", {"a"}, {"missing2"}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"libx.a(a.o)"}));
  EXPECT_EQ(H.Link.pending().size(), 2u);
}

TEST(ArchiveExtraction, AMemberThatDoesNotDefineItsNameLeavesItToTheNextLibrary) {
  // lib1's index says liar.o defines f; loaded, it does not: f is still undefined, and the next
  // library's member is taken for it (as when the names were asked for again after each load).
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"f", "g"});
  FakeMember Liar{"liar.o", {}, {}};
  Liar.IndexOnly = {"f"};
  H.lib("lib1.a", {Liar, {"g.o", {"g"}, {}}});
  H.lib("lib2.a", {{"f.o", {"f"}, {}}});
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"lib1.a(liar.o)", "lib2.a(f.o)", "lib1.a(g.o)"}));
  EXPECT_TRUE(H.Link.pending().empty());
}

TEST(ArchiveExtraction, NamesAreLookedAtOnceNotOncePerMember) {
  // A chain of 20,000 members (each needs the next) beside 20,000 names no library defines: asking for
  // every undefined name again after each member took 4*10^8 look-ups; the work list takes one each.
  Harness H;
  constexpr int N = 20000;
  std::vector<std::string> Missing;
  for (int I = 0; I < N; ++I)
    Missing.push_back("missing" + std::to_string(I));
  Missing.push_back("c0");
  H.Link.addObject("main.o", {"main"}, Missing);
  std::vector<FakeMember> Members;
  for (int I = 0; I < N; ++I)
    Members.push_back({"c" + std::to_string(I) + ".o", {"c" + std::to_string(I)},
                       I + 1 < N ? std::vector<std::string>{"c" + std::to_string(I + 1)} : std::vector<std::string>{}});
  H.lib("libchain.a", std::move(Members));
  ASSERT_FALSE(bool(H.run()));
  ASSERT_EQ(H.extracted().size(), size_t(N));
  EXPECT_EQ(H.extracted().back(), "libchain.a(c19999.o)");
  EXPECT_EQ(H.X.extracted().back().ReferencedBy, "libchain.a(c19998.o)");
  EXPECT_TRUE(H.X.isUndefined("missing0"));
  EXPECT_FALSE(H.X.isUndefined("c5"));
}

TEST(ArchiveExtraction, LazyLibraryWithoutIndexIsAnError) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"a"});
  H.lib("libnoidx.a", {{"a.o", {"a"}, {}}});
  H.Libs.back()->HasIndex = false;
  Error E = H.run();
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(toString(std::move(E)), "libnoidx.a: archive has no symbol index; add one with 'ptxlink-ar s libnoidx.a'");
}

TEST(ArchiveExtraction, WholeLibraryWithoutIndexIsFine) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"a"});
  H.lib("libnoidx.a", {{"a.o", {"a"}, {}}}, /*Whole=*/true);
  H.Libs.back()->HasIndex = false;
  ASSERT_FALSE(bool(H.run()));
  EXPECT_EQ(H.extracted(), (Names{"libnoidx.a(a.o)"}));
}

TEST(ArchiveExtraction, WhyExtractFormat) {
  Harness H;
  H.Link.addObject("main.o", {"main"}, {"a"});
  H.lib("libx.a", {{"a.o", {"a"}, {"b"}}, {"b.o", {"b"}, {}}});
  H.lib("libw.a", {{"w.o", {"w"}, {}}}, /*Whole=*/true);
  ASSERT_FALSE(bool(H.run()));
  std::string Out;
  raw_string_ostream OS(Out);
  H.X.writeWhyExtract(OS);
  EXPECT_EQ(OS.str(), "reference\textracted\tsymbol\n"
                      "--whole-archive\tlibw.a(w.o)\t\n"
                      "main.o\tlibx.a(a.o)\ta\n"
                      "libx.a(a.o)\tlibx.a(b.o)\tb\n");
}

} // namespace
