// Unit tests for StaticLibrary: the symbol index of archives written by LLVM's archive writer for our
// EM_CUDA objects (globals, weak and common symbols are indexed; locals and undefined ones are not), index
// lookups, and corrupt archives rejected with the file name and the byte offset of the problem.
//
// Members are tiny ELF objects made with LLVM's yaml2obj, shaped like ptxlink objects (EM_CUDA, OSABI
// 0x50), so these tests do not depend on the object writer.

#include "ptxlink/Archive.h"

#include "llvm/Object/ArchiveWriter.h"
#include "llvm/ObjectYAML/yaml2obj.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/YAMLTraits.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace ptxlink;

namespace {

// One symbol of a test object: "f" global, "w" weak, "c" common, "u" undefined, "l" local.
struct TestSymbol {
  std::string Name;
  char Kind;
};

std::string makeElf(const std::vector<TestSymbol> &Symbols) {
  std::string Yaml = R"(--- !ELF
FileHeader:
  Class: ELFCLASS64
  Data: ELFDATA2LSB
  OSABI: 0x50
  Type: ET_REL
  Machine: EM_CUDA
Sections:
  - Name: .ptx.func
    Type: SHT_PROGBITS
    Content: "00"
Symbols:
)";
  for (const TestSymbol &S : Symbols) {
    Yaml += "  - Name: " + S.Name + "\n";
    switch (S.Kind) {
    case 'f':
      Yaml += "    Section: .ptx.func\n    Binding: STB_GLOBAL\n    Type: STT_FUNC\n";
      break;
    case 'w':
      Yaml += "    Section: .ptx.func\n    Binding: STB_WEAK\n    Type: STT_FUNC\n";
      break;
    case 'c':
      Yaml += "    Index: SHN_COMMON\n    Binding: STB_GLOBAL\n    Type: STT_OBJECT\n    Value: 8\n    Size: 64\n";
      break;
    case 'u':
      Yaml += "    Binding: STB_GLOBAL\n";
      break;
    case 'l':
      Yaml += "    Section: .ptx.func\n";
      break;
    }
  }
  SmallString<0> Out;
  raw_svector_ostream OS(Out);
  yaml::Input In(Yaml);
  std::string Errors;
  bool Ok = yaml::convertYAML(In, OS, [&](const Twine &Msg) { Errors += Msg.str(); });
  EXPECT_TRUE(Ok) << Errors;
  return std::string(Out.str());
}

std::string makeArchive(const std::vector<std::pair<std::string, std::string>> &Members) {
  std::vector<NewArchiveMember> New;
  for (const auto &[Name, Bytes] : Members) {
    NewArchiveMember M;
    M.Buf = MemoryBuffer::getMemBuffer(Bytes, Name, false);
    M.MemberName = Name;
    New.push_back(std::move(M));
  }
  Expected<std::unique_ptr<MemoryBuffer>> Out =
      writeArchiveToBuffer(New, SymtabWritingMode::NormalSymtab, object::Archive::K_GNU, true, false);
  EXPECT_TRUE(bool(Out));
  if (!Out) {
    consumeError(Out.takeError());
    return "";
  }
  return std::string((*Out)->getBuffer());
}

Expected<std::unique_ptr<StaticLibrary>> openBytes(StringRef Bytes, StringRef Name = "libt.a") {
  return StaticLibrary::open(MemoryBuffer::getMemBufferCopy(Bytes, Name));
}

std::string openError(StringRef Bytes, StringRef Name = "libt.a") {
  auto Lib = openBytes(Bytes, Name);
  if (Lib)
    return "";
  return toString(Lib.takeError());
}

TEST(Archive, IsArchive) {
  EXPECT_TRUE(isArchive("!<arch>\n"));
  EXPECT_TRUE(isArchive("!<arch>\nrest"));
  EXPECT_FALSE(isArchive("!<thin>\n"));
  EXPECT_FALSE(isArchive("!<arch>"));
  EXPECT_FALSE(isArchive("\x7f" "ELF"));
}

TEST(Archive, IndexHoldsGlobalWeakAndCommonDefinitions) {
  std::string A = makeElf({{"f", 'f'}, {"u", 'u'}, {"l", 'l'}});
  std::string B = makeElf({{"w", 'w'}, {"c", 'c'}, {"f", 'u'}});
  std::string Bytes = makeArchive({{"a.o", A}, {"b.o", B}});
  auto Lib = openBytes(Bytes);
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  StaticLibrary &L = **Lib;
  EXPECT_EQ(L.fileName(), "libt.a");
  ASSERT_EQ(L.memberCount(), 2u);
  EXPECT_EQ(L.memberName(0), "a.o");
  EXPECT_EQ(L.memberName(1), "b.o");
  EXPECT_EQ(L.memberDefining("f"), std::optional<size_t>(0));
  EXPECT_EQ(L.memberDefining("w"), std::optional<size_t>(1));
  EXPECT_EQ(L.memberDefining("c"), std::optional<size_t>(1));
  EXPECT_EQ(L.memberDefining("u"), std::nullopt); // undefined references are not in the index
  EXPECT_EQ(L.memberDefining("l"), std::nullopt); // nor module-local symbols
  EXPECT_EQ(L.memberDefining("nothere"), std::nullopt);
  auto Index = L.symbolIndex();
  ASSERT_EQ(Index.size(), 3u);
  EXPECT_EQ(Index[0], std::make_pair(StringRef("f"), size_t(0)));
  EXPECT_EQ(Index[1].second, 1u);
  EXPECT_EQ(Index[2].second, 1u);

  Expected<MemoryBufferRef> M1 = L.memberBuffer(1);
  ASSERT_TRUE(bool(M1)) << toString(M1.takeError());
  EXPECT_EQ(M1->getBuffer(), StringRef(B));
  Expected<MemoryBufferRef> Bad = L.memberBuffer(7);
  EXPECT_FALSE(bool(Bad));
  consumeError(Bad.takeError());
}

TEST(Archive, FirstMemberInIndexOrderWins) {
  std::string A = makeElf({{"dup", 'f'}});
  std::string B = makeElf({{"dup", 'f'}, {"other", 'f'}});
  auto Lib = openBytes(makeArchive({{"a.o", A}, {"b.o", B}, {"c.o", A}}));
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  EXPECT_EQ((*Lib)->memberDefining("dup"), std::optional<size_t>(0));
  EXPECT_EQ((*Lib)->memberDefining("other"), std::optional<size_t>(1));
  EXPECT_EQ((*Lib)->symbolIndex().size(), 4u);
}

TEST(Archive, LongMemberNames) {
  std::string A = makeElf({{"f", 'f'}});
  std::string Long = "a_member_name_longer_than_sixteen_bytes.o";
  auto Lib = openBytes(makeArchive({{Long, A}, {"b.o", makeElf({{"g", 'f'}})}}));
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  EXPECT_EQ((*Lib)->memberName(0), Long);
  EXPECT_EQ((*Lib)->memberName(1), "b.o");
  EXPECT_EQ((*Lib)->memberDefining("g"), std::optional<size_t>(1));
}

TEST(Archive, EmptyArchive) {
  auto Lib = openBytes("!<arch>\n");
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  EXPECT_EQ((*Lib)->memberCount(), 0u);
  EXPECT_TRUE((*Lib)->symbolIndex().empty());
}

TEST(Archive, NotAnArchive) {
  std::string E = openError("\x7f" "ELF junk", "x.o");
  EXPECT_NE(E.find("x.o: not an archive"), std::string::npos) << E;
  EXPECT_NE(E.find("offset 0"), std::string::npos) << E;
}

TEST(Archive, ThinArchiveRejected) {
  std::string E = openError("!<thin>\n");
  EXPECT_NE(E.find("thin archives are not supported"), std::string::npos) << E;
}

TEST(Archive, MissingIndexIsReported) {
  std::vector<NewArchiveMember> New(1);
  std::string A = makeElf({{"f", 'f'}});
  New[0].Buf = MemoryBuffer::getMemBuffer(A, "a.o", false);
  New[0].MemberName = "a.o";
  auto Out = writeArchiveToBuffer(New, SymtabWritingMode::NoSymtab, object::Archive::K_GNU, true, false);
  ASSERT_TRUE(bool(Out));
  // Readable (a dump tool lists it); the extractor refuses it for lazy linking (ArchiveExtractionTest).
  auto Lib = openBytes((*Out)->getBuffer());
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  EXPECT_FALSE((*Lib)->hasSymbolIndex());
  EXPECT_EQ((*Lib)->memberDefining("f"), std::nullopt);
  EXPECT_EQ((*Lib)->memberCount(), 1u);
  EXPECT_EQ((*Lib)->memberName(0), "a.o");
}

// In LLVM's GNU layout the index member's header starts at 8 and its data at 68.
constexpr size_t IndexData = 68;

TEST(Archive, IndexCountTooLarge) {
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}});
  ASSERT_EQ(Bytes.substr(8, 2), "/ ");
  support::endian::write32be(&Bytes[IndexData], 0x10000000);
  std::string E = openError(Bytes);
  EXPECT_NE(E.find("libt.a: malformed archive: symbol index at offset 68 claims 268435456 symbols"),
            std::string::npos)
      << E;
}

TEST(Archive, IndexEntryPointsBetweenMembers) {
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}});
  support::endian::write32be(&Bytes[IndexData + 4], 12345);
  std::string E = openError(Bytes);
  EXPECT_NE(E.find("symbol index entry 0 ('f', at offset 72) refers to offset 12345, which is not the start "
                   "of a member"),
            std::string::npos)
      << E;
}

TEST(Archive, IndexNameNotTerminated) {
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}});
  // The index holds one entry: count, one offset, "f\0" (then padding). Overwrite the NUL and padding.
  size_t NameAt = IndexData + 8;
  ASSERT_EQ(Bytes[NameAt], 'f');
  size_t IndexSize = std::stoul(Bytes.substr(8 + 48, 10));
  for (size_t I = NameAt; I < IndexData + IndexSize; ++I)
    Bytes[I] = 'x';
  std::string E = openError(Bytes);
  EXPECT_NE(E.find("name of symbol index entry 0 at offset 76 runs past the end of the index"), std::string::npos)
      << E;
}

TEST(Archive, TruncatedMemberFoundWhenRead) {
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}, {"b.o", makeElf({{"g", 'f'}})}});
  Bytes.resize(Bytes.size() - 100);
  // Opening reads only the index, so it succeeds; the damage shows when b.o is read or every header is.
  auto Lib = openBytes(Bytes);
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  ASSERT_EQ((*Lib)->memberDefining("g"), std::optional<size_t>(1));
  Expected<MemoryBufferRef> A = (*Lib)->memberBuffer(0);
  EXPECT_TRUE(bool(A)) << toString(A.takeError());
  Expected<MemoryBufferRef> B = (*Lib)->memberBuffer(1);
  ASSERT_FALSE(bool(B));
  std::string E = toString(B.takeError());
  EXPECT_NE(E.find("libt.a: malformed archive: member at offset "), std::string::npos) << E;
  EXPECT_NE(E.find("past the end of the archive (" + std::to_string(Bytes.size()) + " bytes)"), std::string::npos)
      << E;
  Error All = (*Lib)->readAllMembers();
  ASSERT_TRUE(bool(All));
  std::string W = toString(std::move(All));
  EXPECT_NE(W.find("libt.a: malformed archive:"), std::string::npos) << W;
  EXPECT_NE(W.find("offset"), std::string::npos) << W;
}

TEST(Archive, UnextractedMembersAreNotRead) {
  // Corrupt the second member's header: a link that needs only the first never notices.
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}, {"b.o", makeElf({{"g", 'f'}})}});
  size_t Second = Bytes.find("b.o/");
  ASSERT_NE(Second, std::string::npos);
  Bytes.replace(Second + 58, 2, "XX"); // the header's terminator
  auto Lib = openBytes(Bytes);
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  Expected<MemoryBufferRef> A = (*Lib)->memberBuffer(*(*Lib)->memberDefining("f"));
  EXPECT_TRUE(bool(A)) << toString(A.takeError());
  Expected<MemoryBufferRef> B = (*Lib)->memberBuffer(*(*Lib)->memberDefining("g"));
  ASSERT_FALSE(bool(B));
  std::string E = toString(B.takeError());
  EXPECT_NE(E.find("(member header at offset " + std::to_string(Second) + ")"), std::string::npos) << E;
}

TEST(Archive, IndexEntryInsideAMember) {
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}, {"b.o", makeElf({{"g", 'f'}})}});
  size_t Second = Bytes.find("b.o/");
  // Entry 1 ('g') points 4 bytes into b.o's header.
  support::endian::write32be(&Bytes[IndexData + 8], Second + 4);
  auto Lib = openBytes(Bytes);
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  Expected<MemoryBufferRef> B = (*Lib)->memberBuffer(*(*Lib)->memberDefining("g"));
  ASSERT_FALSE(bool(B));
  consumeError(B.takeError());
  Error All = (*Lib)->readAllMembers();
  ASSERT_TRUE(bool(All));
  std::string W = toString(std::move(All));
  EXPECT_NE(W.find("the symbol index refers to offset " + std::to_string(Second + 4) +
                   ", which is not the start of a member"),
            std::string::npos)
      << W;
}

TEST(Archive, UnsortedIndexStillNumbersMembersInArchiveOrder) {
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}, {"b.o", makeElf({{"g", 'f'}})}});
  // Swap the two entries' offsets: f now points at b.o and g at a.o.
  uint32_t First = support::endian::read32be(&Bytes[IndexData + 4]);
  uint32_t Second = support::endian::read32be(&Bytes[IndexData + 8]);
  support::endian::write32be(&Bytes[IndexData + 4], Second);
  support::endian::write32be(&Bytes[IndexData + 8], First);
  auto Lib = openBytes(Bytes);
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  EXPECT_EQ((*Lib)->memberDefining("f"), std::optional<size_t>(1));
  EXPECT_EQ((*Lib)->memberDefining("g"), std::optional<size_t>(0));
  EXPECT_EQ((*Lib)->memberName(0), "a.o");
  EXPECT_EQ((*Lib)->memberName(1), "b.o");
  EXPECT_FALSE(bool((*Lib)->readAllMembers()));
  EXPECT_EQ((*Lib)->memberCount(), 2u);
}

TEST(Archive, MembersWithoutIndexEntriesComeLast) {
  // A member that defines nothing external is not in the index; the full walk numbers it after the
  // indexed ones.
  std::string Bytes = makeArchive({{"local.o", makeElf({{"l", 'l'}})}, {"a.o", makeElf({{"f", 'f'}})}});
  auto Lib = openBytes(Bytes);
  ASSERT_TRUE(bool(Lib)) << toString(Lib.takeError());
  EXPECT_EQ((*Lib)->memberDefining("f"), std::optional<size_t>(0));
  EXPECT_FALSE(bool((*Lib)->readAllMembers()));
  ASSERT_EQ((*Lib)->memberCount(), 2u);
  EXPECT_EQ((*Lib)->memberName(0), "a.o");
  EXPECT_EQ((*Lib)->memberName(1), "local.o");
}

TEST(Archive, CorruptMemberHeader) {
  std::string Bytes = makeArchive({{"a.o", makeElf({{"f", 'f'}})}});
  size_t IndexSize = std::stoul(Bytes.substr(8 + 48, 10));
  size_t Member = IndexData + IndexSize + (IndexSize & 1);
  ASSERT_EQ(Bytes.substr(Member, 4), "a.o/");
  Bytes.replace(Member + 48, 10, "99999zzzzz"); // size field not a number
  std::string E = openError(Bytes);
  EXPECT_NE(E.find("libt.a: malformed archive:"), std::string::npos) << E;
  EXPECT_NE(E.find("offset"), std::string::npos) << E;
}

} // namespace
