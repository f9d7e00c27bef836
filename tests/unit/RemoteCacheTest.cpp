// The remote cache's blobs and URLs (RemoteCache.h): a blob is used only if it verifies and is the one
// asked for; a URL that ptxlink cannot speak to is refused up front. (The HTTP exchange itself is tested
// against a real server: tests/lit/linker/sass-remote-cache.test.)
#include "RemoteCache.h"

#include <gtest/gtest.h>

using namespace ptxlink;
using Kind = CompileCache::EntryKind;

namespace {

const std::string Key = CompileCache::key({"unit"});

TEST(RemoteCache, BlobRoundTripAndVerification) {
  std::string Payload = "\x7f" "ELF relocatable cubin bytes";
  std::string Blob = RemoteCache::encodeBlob(Key, Kind::Cubin, Payload);
  EXPECT_EQ(RemoteCache::decodeBlob(Blob, Key, Kind::Cubin), Payload);
  // Another key, another kind: not this entry.
  EXPECT_FALSE(RemoteCache::decodeBlob(Blob, CompileCache::key({"other"}), Kind::Cubin));
  EXPECT_FALSE(RemoteCache::decodeBlob(Blob, Key, Kind::Link));
  // Any byte changed, cut short, or longer: refused.
  for (size_t I = 0; I < Blob.size(); ++I) {
    std::string Bad = Blob;
    Bad[I] ^= 1;
    EXPECT_FALSE(RemoteCache::decodeBlob(Bad, Key, Kind::Cubin)) << I;
  }
  for (size_t N = 0; N < Blob.size(); ++N)
    EXPECT_FALSE(RemoteCache::decodeBlob(std::string_view(Blob).substr(0, N), Key, Kind::Cubin)) << N;
  EXPECT_FALSE(RemoteCache::decodeBlob(Blob + "x", Key, Kind::Cubin));
  EXPECT_FALSE(RemoteCache::decodeBlob("<html>404</html>", Key, Kind::Cubin));
  // An empty payload is an entry too.
  EXPECT_EQ(RemoteCache::decodeBlob(RemoteCache::encodeBlob(Key, Kind::Link, ""), Key, Kind::Link), "");
}

TEST(RemoteCache, PathsAreBazelShaped) {
  std::string P = RemoteCache::blobPath(Key, Kind::Cubin);
  ASSERT_EQ(P.size(), 3u + 64u);
  EXPECT_EQ(P.substr(0, 3), "ac/");
  EXPECT_EQ(P.find_first_not_of("0123456789abcdef", 3), std::string::npos);
  EXPECT_NE(P, RemoteCache::blobPath(Key, Kind::Link));
}

TEST(RemoteCache, Urls) {
  EXPECT_TRUE(bool(RemoteCache::create("http://127.0.0.1:8080/cache", "")));
  EXPECT_TRUE(bool(RemoteCache::create("http://cache.example", "Authorization: Bearer x")));
  auto Https = RemoteCache::create("https://cache.example/ptxlink", "");
  ASSERT_TRUE(bool(Https));
  EXPECT_EQ((*Https)->url(), "https://cache.example/ptxlink");
  for (const char *Bad : {"ftp://cache.example/", "https://user:pw@cache.example/", "https://host:0/", "cache.example:80", "http://user:pw@cache.example/",
                          "http://:80/", "http://host:0/", "http://host:99999/", "http://host:x/"}) {
    auto R = RemoteCache::create(Bad, "");
    EXPECT_FALSE(bool(R)) << Bad;
    if (!R)
      llvm::consumeError(R.takeError());
  }
  auto R = RemoteCache::create("http://host/", "no colon");
  EXPECT_FALSE(bool(R));
  llvm::consumeError(R.takeError());
  R = RemoteCache::create("http://host/", "A: b\r\nInjected: c");
  EXPECT_FALSE(bool(R));
  llvm::consumeError(R.takeError());
}

} // namespace
