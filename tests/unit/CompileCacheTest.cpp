// Unit tests of the --sass compile cache: entry format, corruption, LRU eviction, keys, sizes.
#include "CompileCache.h"

#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sys/stat.h>
#include <unistd.h>

using namespace ptxlink;
using namespace llvm;

namespace {

struct TempDir {
  SmallString<128> Path;
  TempDir() { EXPECT_FALSE(sys::fs::createUniqueDirectory("ptxlink-cache-test", Path)); }
  ~TempDir() { sys::fs::remove_directories(Path); }
};

TEST(CompileCache, EntryRoundTripsAndRejectsDamage) {
  std::string Payload = "\x7f" "ELF some cubin bytes";
  std::string Key = CompileCache::key({"unit"});
  std::string Entry = CompileCache::encodeEntry(Payload, Key);
  ASSERT_EQ(CompileCache::decodeEntry(Entry, Key), Payload);
  // The payload comes first and the checksum after it: nvlink reads an entry's file as the cubin itself.
  EXPECT_TRUE(StringRef(Entry).starts_with(Payload));
  EXPECT_EQ(Entry.size(), Payload.size() + 32);
  EXPECT_EQ(CompileCache::decodeEntry(Entry.substr(0, Entry.size() - 1), Key), std::nullopt); // truncated
  EXPECT_EQ(CompileCache::decodeEntry(Entry + "x", Key), std::nullopt);                      // too long
  for (size_t I = 0; I < Entry.size(); ++I) {                                                 // any byte flipped
    std::string Bad = Entry;
    Bad[I] ^= 0x20;
    EXPECT_EQ(CompileCache::decodeEntry(Bad, Key), std::nullopt) << "byte " << I;
  }
  EXPECT_EQ(CompileCache::decodeEntry("", Key), std::nullopt);
  // Intact, but another key's entry, or the other kind's: not this one (the property test's saboteur
  // copied valid entries over others, and the link used the wrong code).
  EXPECT_EQ(CompileCache::decodeEntry(Entry, CompileCache::key({"other unit"})), std::nullopt);
  EXPECT_EQ(CompileCache::decodeEntry(Entry, Key, CompileCache::EntryKind::Link), std::nullopt);
}

// A valid entry copied to another key's path is a miss there.
TEST(CompileCache, AnEntryCopiedToAnotherKeysPathIsAMiss) {
  TempDir D;
  CompileCache C(std::string(D.Path), CompileCache::DefaultLimitBytes);
  std::string A = CompileCache::key({"a"}), B = CompileCache::key({"b"});
  ASSERT_FALSE(errorToBool(C.store(A, "code of a")));
  ASSERT_FALSE(errorToBool(C.store(B, "code of b")));
  ASSERT_FALSE(sys::fs::copy_file(C.entryPath(A), C.entryPath(B)));
  EXPECT_EQ(C.lookup(A), std::optional<std::string>("code of a"));
  EXPECT_EQ(C.lookup(B), std::nullopt);
  ASSERT_FALSE(sys::fs::copy_file(C.entryPath(A), C.entryPath(A, CompileCache::EntryKind::Link)));
  EXPECT_EQ(C.lookup(A, CompileCache::EntryKind::Link), std::nullopt);
}

TEST(CompileCache, KeyDependsOnEveryPartAndItsBoundaries) {
  std::string K = CompileCache::key({"v13", "sm_90", "text"});
  EXPECT_EQ(K.size(), 32u);
  EXPECT_EQ(K, CompileCache::key({"v13", "sm_90", "text"}));
  EXPECT_NE(K, CompileCache::key({"v13", "sm_80", "text"}));
  EXPECT_NE(K, CompileCache::key({"v12", "sm_90", "text"}));
  EXPECT_NE(CompileCache::key({"ab", "c"}), CompileCache::key({"a", "bc"}));
}

TEST(CompileCache, StoreLookupAndMissOnCorruption) {
  TempDir D;
  CompileCache C(std::string(D.Path), 1 << 20);
  std::string K = CompileCache::key({"x"});
  EXPECT_EQ(C.lookup(K), std::nullopt);
  ASSERT_FALSE(errorToBool(C.store(K, "payload")));
  EXPECT_EQ(C.lookup(K), std::string("payload"));
  // find() reads the entry: its payload is a view of the buffer's beginning, and it names the file.
  std::optional<CompileCache::Entry> Found = C.find(K);
  ASSERT_TRUE(Found.has_value());
  EXPECT_EQ(Found->Payload, "payload");
  EXPECT_EQ(Found->Path, C.entryPath(K));
  EXPECT_EQ(Found->Payload.data(), Found->File->getBufferStart());
  {
    std::error_code EC;
    raw_fd_ostream OS(C.entryPath(K), EC);
    OS << "garbage";
  }
  EXPECT_EQ(C.lookup(K), std::nullopt);
}

TEST(CompileCache, PruneEvictsLeastRecentlyUsedFirst) {
  TempDir D;
  std::string Big(1000, 'x');
  CompileCache C(std::string(D.Path), 2500); // room for two entries of ~1 KB
  std::string K1 = CompileCache::key({"1"}), K2 = CompileCache::key({"2"}), K3 = CompileCache::key({"3"});
  for (const std::string &K : {K1, K2, K3})
    ASSERT_FALSE(errorToBool(C.store(K, Big)));
  // Ages: K1 oldest, then K3, then K2 (used most recently).
  auto Now = std::chrono::system_clock::now();
  auto age = [&](const std::string &K, int Seconds) {
    int FD;
    ASSERT_FALSE(sys::fs::openFileForWrite(C.entryPath(K), FD, sys::fs::CD_OpenExisting));
    ASSERT_FALSE(sys::fs::setLastAccessAndModificationTime(FD, Now - std::chrono::seconds(Seconds)));
    sys::fs::closeFile(FD);
  };
  age(K1, 300);
  age(K2, 100);
  age(K3, 200);
  EXPECT_GT(C.prune(), 0u);
  EXPECT_FALSE(sys::fs::exists(C.entryPath(K1)));
  EXPECT_TRUE(sys::fs::exists(C.entryPath(K2)));
  EXPECT_TRUE(sys::fs::exists(C.entryPath(K3)));
  // A hit makes an entry recent: K3 survives the next eviction, K2 goes.
  age(K3, 500);
  ASSERT_TRUE(C.lookup(K3).has_value());
  CompileCache Smaller(std::string(D.Path), 1500);
  Smaller.prune();
  EXPECT_TRUE(sys::fs::exists(C.entryPath(K3)));
  EXPECT_FALSE(sys::fs::exists(C.entryPath(K2)));
}

// nvlink's results (EntryKind::Link) live beside the cubins under the same key space without clashing,
// count towards the limit and are evicted like them; touch() makes an entry recent without reading it.
TEST(CompileCache, LinkEntriesAndTouch) {
  TempDir D;
  std::string Big(1000, 'x');
  CompileCache C(std::string(D.Path), 2500);
  std::string K = CompileCache::key({"k"}), L = CompileCache::key({"l"});
  ASSERT_FALSE(errorToBool(C.store(K, "cubin")));
  EXPECT_EQ(C.lookup(K, CompileCache::EntryKind::Link), std::nullopt);
  ASSERT_FALSE(errorToBool(C.store(K, "linked", CompileCache::EntryKind::Link)));
  EXPECT_EQ(C.lookup(K), std::string("cubin"));
  EXPECT_EQ(C.lookup(K, CompileCache::EntryKind::Link), std::string("linked"));
  EXPECT_NE(C.entryPath(K), C.entryPath(K, CompileCache::EntryKind::Link));
  EXPECT_FALSE(C.touch(L, CompileCache::EntryKind::Link));
  // Three ~1 KB entries of both kinds against a limit of two: the oldest goes, whatever its kind; a touched
  // entry is recent.
  ASSERT_FALSE(errorToBool(C.store(L, Big, CompileCache::EntryKind::Link)));
  std::string M = CompileCache::key({"m"}), N = CompileCache::key({"n"});
  ASSERT_FALSE(errorToBool(C.store(M, Big)));
  ASSERT_FALSE(errorToBool(C.store(N, Big)));
  auto Now = std::chrono::system_clock::now();
  auto age = [&](const std::string &Path, int Seconds) {
    int FD;
    ASSERT_FALSE(sys::fs::openFileForWrite(Path, FD, sys::fs::CD_OpenExisting));
    ASSERT_FALSE(sys::fs::setLastAccessAndModificationTime(FD, Now - std::chrono::seconds(Seconds)));
    sys::fs::closeFile(FD);
  };
  age(C.entryPath(L, CompileCache::EntryKind::Link), 400);
  age(C.entryPath(M), 300);
  age(C.entryPath(N), 200);
  EXPECT_TRUE(C.touch(L, CompileCache::EntryKind::Link));
  C.prune();
  EXPECT_TRUE(sys::fs::exists(C.entryPath(L, CompileCache::EntryKind::Link)));
  EXPECT_FALSE(sys::fs::exists(C.entryPath(M)));
}

// A tool's output written into the cache's folder becomes an entry without a copy (nvlink's result):
// adopt() appends the trailer and renames the file into place; a file it cannot adopt is removed.
TEST(CompileCache, AdoptsAFileWrittenIntoTheCache) {
  TempDir D;
  CompileCache C(std::string(D.Path), 1 << 20);
  std::string K = CompileCache::key({"linked"});
  Expected<std::string> Temporary = C.createTemporary(K);
  ASSERT_TRUE(bool(Temporary)) << toString(Temporary.takeError());
  EXPECT_EQ(sys::path::parent_path(*Temporary), sys::path::parent_path(C.entryPath(K, CompileCache::EntryKind::Link)));
  {
    std::error_code EC;
    raw_fd_ostream OS(*Temporary, EC);
    OS << "\x7f" "ELF linked cubin";
  }
  ASSERT_FALSE(errorToBool(C.adopt(*Temporary, K, CompileCache::EntryKind::Link, "\x7f" "ELF linked cubin")));
  EXPECT_FALSE(sys::fs::exists(*Temporary));
  EXPECT_EQ(C.lookup(K, CompileCache::EntryKind::Link), std::string("\x7f" "ELF linked cubin"));
  EXPECT_EQ(C.lookup(K), std::nullopt); // the other kind
  // Prune counts it and removes nothing under the limit.
  EXPECT_EQ(C.prune(), 0u);
  EXPECT_TRUE(sys::fs::exists(C.entryPath(K, CompileCache::EntryKind::Link)));
  // A temporary file that is gone cannot be adopted: an error, no entry.
  std::string K2 = CompileCache::key({"gone"});
  Expected<std::string> Gone = C.createTemporary(K2);
  ASSERT_TRUE(bool(Gone));
  sys::fs::remove(*Gone);
  EXPECT_TRUE(errorToBool(C.adopt(*Gone, K2, CompileCache::EntryKind::Link, "x")));
  EXPECT_EQ(C.lookup(K2, CompileCache::EntryKind::Link), std::nullopt);
  // A file that no longer holds the bytes the link read (another process wrote into the cache's folder)
  // is not adopted: no entry, the file removed.
  std::string K3 = CompileCache::key({"rewritten"});
  Expected<std::string> Rewritten = C.createTemporary(K3);
  ASSERT_TRUE(bool(Rewritten));
  {
    std::error_code EC;
    raw_fd_ostream OS(*Rewritten, EC);
    OS << "\x7f" "ELF other bytes";
  }
  EXPECT_TRUE(errorToBool(C.adopt(*Rewritten, K3, CompileCache::EntryKind::Link, "\x7f" "ELF linked cubin")));
  EXPECT_FALSE(sys::fs::exists(*Rewritten));
  EXPECT_EQ(C.lookup(K3, CompileCache::EntryKind::Link), std::nullopt);
}

TEST(CompileCache, ByteSizes) {
  EXPECT_EQ(parseByteSize("0"), 0u);
  EXPECT_EQ(parseByteSize("16K"), 16u << 10);
  EXPECT_EQ(parseByteSize("500m"), 500ull << 20);
  EXPECT_EQ(parseByteSize("2G"), 2ull << 30);
  EXPECT_EQ(parseByteSize("lots"), std::nullopt);
  EXPECT_EQ(parseByteSize("G"), std::nullopt);
}

} // namespace

namespace {
// Issue 29, item 4: a FIFO, a symbolic link to /dev/zero, or a file larger than the cache's limit at an
// entry's path is a miss, at once (a FIFO blocked the link, /dev/zero was read until memory ran out).
TEST(CompileCache, OnlyRegularEntriesOfAPlausibleSizeAreRead) {
  TempDir D;
  CompileCache C(std::string(D.Path), 1 << 16);
  std::string Fifo = CompileCache::key({"fifo"}), Zero = CompileCache::key({"zero"}), Big = CompileCache::key({"big"});
  for (const std::string &K : {Fifo, Zero, Big})
    ASSERT_FALSE(sys::fs::create_directories(sys::path::parent_path(C.entryPath(K))));
  ASSERT_EQ(::mkfifo(C.entryPath(Fifo).c_str(), 0600), 0);
  ASSERT_EQ(::symlink("/dev/zero", C.entryPath(Zero).c_str()), 0);
  {
    std::error_code EC;
    raw_fd_ostream OS(C.entryPath(Big), EC);
    OS << CompileCache::encodeEntry(std::string(1 << 17, 'x'), Big); // intact, but twice the limit
  }
  auto Start = std::chrono::steady_clock::now();
  for (const std::string &K : {Fifo, Zero, Big}) {
    EXPECT_EQ(C.lookup(K), std::nullopt);
    EXPECT_FALSE(C.touch(K));
  }
  EXPECT_EQ(C.lookup(Fifo, CompileCache::EntryKind::Link), std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - Start, std::chrono::seconds(5));
}

// Issue 29, item 5: the bytes find() verified are the bytes it returns, even when the file is rewritten
// in place afterwards (a mapping would show the new bytes).
TEST(CompileCache, AnEntryFoundDoesNotChangeWithItsFile) {
  TempDir D;
  CompileCache C(std::string(D.Path), 1 << 20);
  std::string K = CompileCache::key({"k"});
  ASSERT_FALSE(errorToBool(C.store(K, std::string(8192, 'a'))));
  std::optional<CompileCache::Entry> Found = C.find(K);
  ASSERT_TRUE(Found.has_value());
  {
    std::error_code EC;
    raw_fd_ostream OS(C.entryPath(K), EC, sys::fs::OF_None); // the same inode, truncated and rewritten
    OS << std::string(8192 + 32, 'b');
  }
  EXPECT_EQ(Found->Payload, std::string(8192, 'a'));
}
} // namespace
