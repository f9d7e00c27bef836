// A content-addressed cache of compiled code on disk (the cubins ptxas makes for `ptxlink --sass`).
//
// The problem: code generation is the slow part of a link with SASS, and almost all of it repeats from
// one link to the next (one module changed, or a clean rebuild of unchanged sources). Each compiled unit
// is stored under a key that hashes everything its bytes depend on (the module text, the compiler's
// version, its options, the arch), so a hit is always right. Several links may share one cache at the
// same time: entries appear by rename (never half-written), readers treat anything they cannot verify
// (truncated, corrupt, from another format version) as a miss, and eviction only removes whole files.
// The cache stays under a size limit by removing the least recently used entries (a hit touches the
// entry's modification time).
#pragma once

#include "ptxlink/CommandLine.h" // parseByteSize, for the cache size option

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ptxlink {

class CompileCache {
public:
  /// What an entry holds, which is also its file name's suffix: a relocatable cubin from `ptxas -c`
  /// (".cubin"), or nvlink's result from a list of them (".link"). Both count towards the size limit.
  enum class EntryKind { Cubin, Link };

  /// Default size limit: 2 GiB (a 100-module program's cubins for one arch take ~15 MB).
  static constexpr uint64_t DefaultLimitBytes = 2ull << 30;

  /// $XDG_CACHE_HOME/ptxlink, else $HOME/.cache/ptxlink; empty if neither variable is set.
  static std::string defaultDirectory();

  CompileCache(std::string Directory, uint64_t LimitBytes) : Dir(std::move(Directory)), Limit(LimitBytes) {}

  /// The key of an entry: XXH3-128 (as 32 hex digits) over every part, each prefixed by its length so
  /// that no two different lists of parts hash the same bytes.
  static std::string key(llvm::ArrayRef<llvm::StringRef> Parts);

  /// The stored bytes for Key, or std::nullopt if absent or not intact (a miss). A hit marks the entry as
  /// recently used.
  std::optional<std::string> lookup(llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin) const;

  /// Marks Key's entry as recently used without reading it (a link whose nvlink result came from the cache
  /// still uses its units: they must not be evicted before it). False if there is no such entry.
  bool touch(llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin) const;

  /// Stores Payload under Key atomically (temporary file in the cache, then rename).
  llvm::Error store(llvm::StringRef Key, llvm::StringRef Payload, EntryKind Kind = EntryKind::Cubin) const;

  /// Removes least recently used entries until the cache holds at most the limit; also removes
  /// temporary files that a killed link left behind (older than an hour). Returns the bytes removed.
  uint64_t prune() const;

  /// Where Key's entry lives (tests corrupt it on purpose).
  std::string entryPath(llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin) const;
  const std::string &directory() const { return Dir; }

  /// The on-disk form of an entry (header with magic, size and checksum, then the payload), and its
  /// inverse, which fails on anything not intact. Exposed for unit tests.
  static std::string encodeEntry(llvm::StringRef Payload);
  static std::optional<std::string> decodeEntry(llvm::StringRef Bytes);

private:
  std::string Dir;
  uint64_t Limit;
};

} // namespace ptxlink
