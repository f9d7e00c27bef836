// A compile cache shared by machines over HTTP (`ptxlink --sass --remote-cache URL`, or
// PTXLINK_REMOTE_CACHE).
//
// The problem: every CI runner and every developer's machine compiles each module once more, although
// the units that `--sass` caches locally (CompileCache.h) are keyed by content and so valid anywhere the
// same ptxas runs. This layer reads through and writes back those entries to a server speaking the HTTP
// protocol of Bazel's remote cache: GET and PUT of blobs under URL/ac/<64 hex digits> (nginx with WebDAV,
// bazel-remote with --disable_http_ac_validation, any plain HTTP store). Each blob names its key and kind
// and carries the SHA-256 of its payload, verified before use, so a server that mixes up or damages blobs
// costs a miss, never a wrong link. HTTP/1.1 over a TCP socket, or TLS for https://, connections kept alive between requests,
// with time limits: the first failure (refused, timed out, full, an answer that is not HTTP or does not
// verify) turns the remote cache off for the rest of the link and leaves one note. https:// URLs go over
// TLS (HttpConnection.h).
#pragma once

#include "CompileCache.h"
#include "HttpConnection.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

class RemoteCache {
public:
  /// For "http://host[:port][/prefix]" or "https://..." (TLS: the server's certificate verified against the
  /// system's trust store, or $SSL_CERT_FILE / $SSL_CERT_DIR, and the host's name); an error for anything else. Header, if not empty, is one HTTP header
  /// line sent with every request ("Authorization: Bearer ..."; from $PTXLINK_REMOTE_CACHE_HEADER), never
  /// printed.
  static llvm::Expected<std::unique_ptr<RemoteCache>> create(llvm::StringRef Url, std::string Header);

  /// Key's verified payload, or std::nullopt (a miss, or the cache is off).
  std::optional<std::string> get(llvm::StringRef Key, CompileCache::EntryKind Kind);
  /// Stores Payload under Key; failures only turn the cache off (and make the note).
  void put(llvm::StringRef Key, CompileCache::EntryKind Kind, llvm::StringRef Payload);

  /// Why the cache was turned off during this link (empty if it was not).
  std::string note() const;
  /// The URL as given (credentials are never part of it: they go in the header).
  const std::string &url() const { return Url; }
  size_t hits() const { return Hits; }
  size_t stored() const { return Stored; }

  /// The blob stored for Payload under Key (exposed for unit tests), and its inverse, which fails on
  /// anything that does not verify or is not Key's.
  static std::string encodeBlob(llvm::StringRef Key, CompileCache::EntryKind Kind, llvm::StringRef Payload);
  static std::optional<std::string> decodeBlob(llvm::StringRef Blob, llvm::StringRef Key, CompileCache::EntryKind Kind);
  /// Where Key's blob lives below the URL: "ac/" and the SHA-256 of the key and kind, in hex.
  static std::string blobPath(llvm::StringRef Key, CompileCache::EntryKind Kind);

  /// A server's answer: its status and body.
  struct Response {
    int Status = 0;
    std::string Body;
  };

private:
  /// One request and its answer, over a kept-alive connection where there is one.
  llvm::Expected<Response> request(llvm::StringRef Method, llvm::StringRef Path, llvm::StringRef Body) const;
  std::unique_ptr<HttpConnection> takeIdleConnection() const;
  void keepIdleConnection(std::unique_ptr<HttpConnection> C) const;
  void turnOff(const std::string &Why);

  std::string Url, Host, Port, Prefix, Header;
  std::shared_ptr<TlsClientContext> Tls; // for an https:// URL
  /// Connections whose last answer left them open (HTTP/1.1 keep-alive): a request takes one and gives it
  /// back, so that a link's hundreds of entries cost one connect and one TLS handshake per thread, not one
  /// each. At most a few: the link's threads that talk to the server at once.
  static constexpr size_t MaxIdleConnections = 8;
  mutable std::mutex PoolLock;
  mutable std::vector<std::unique_ptr<HttpConnection>> Idle;
  std::atomic<bool> Off{false};
  std::atomic<size_t> Hits{0}, Stored{0};
  mutable std::mutex NoteLock;
  std::string Note;
};

} // namespace ptxlink
