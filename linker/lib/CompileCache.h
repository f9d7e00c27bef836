// A content-addressed cache of compiled code on disk (the cubins ptxas makes for `ptxlink --sass`).
//
// The problem: code generation is the slow part of a link with SASS, and almost all of it repeats from
// one link to the next (one module changed, or a clean rebuild of unchanged sources). Each compiled unit
// is stored under a key that hashes everything its bytes depend on (the module text, the compiler's
// version, its options, the arch), so a hit is always right. Several links may share one cache at the
// same time: entries appear by rename (never half-written), readers treat anything they cannot verify
// (truncated, corrupt, from another format version, another key's entry) as a miss, and eviction only removes whole files.
// The cache stays under a size limit by removing the least recently used entries (a hit touches the
// entry's modification time).
#pragma once

#include "ptxlink/CommandLine.h" // parseByteSize, for the cache size option

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ptxlink {

class CompileCache {
public:
  /// What an entry holds, which is also its file name's suffix: a relocatable cubin from `ptxas -c`
  /// (".cubin"), nvlink's result from a list of them (".link"), or the compressed PTX image of a linked
  /// module as the fatbinary stores it (".ptxz": compressing a large image costs a warm relink more than
  /// anything else it does). All count towards the size limit.
  enum class EntryKind { Cubin, Link, PtxImage };

  /// Default size limit: 2 GiB (a 100-module program's cubins for one arch take ~15 MB).
  static constexpr uint64_t DefaultLimitBytes = 2ull << 30;

  /// $XDG_CACHE_HOME/ptxlink, else $HOME/.cache/ptxlink; empty if neither variable is set.
  static std::string defaultDirectory();

  CompileCache(std::string Directory, uint64_t LimitBytes) : Dir(std::move(Directory)), Limit(LimitBytes) {}

  /// The key of an entry: XXH3-128 (as 32 hex digits) over every part, each prefixed by its length so
  /// that no two different lists of parts hash the same bytes.
  static std::string key(llvm::ArrayRef<llvm::StringRef> Parts);

  /// A verified entry, read into memory (never mapped: the bytes verified are the bytes used, whatever
  /// another process does to the file afterwards). The payload is the file's beginning (the checksum
  /// follows it). Only a regular file of a plausible size (its trailer, at most the limit) is read: a
  /// FIFO, a device or a symbolic link to one at an entry's path is a miss, without blocking.
  struct Entry {
    std::unique_ptr<llvm::MemoryBuffer> File;
    llvm::StringRef Payload;
    std::string Path;
  };

  /// Key's entry, or std::nullopt if absent or not intact (a miss). A hit marks the entry as recently used.
  std::optional<Entry> find(llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin) const;

  /// The stored bytes for Key (a copy of find()'s payload), or std::nullopt on a miss.
  std::optional<std::string> lookup(llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin) const;

  /// Marks Key's entry as recently used without reading it (a link whose nvlink result came from the cache
  /// still uses its units: they must not be evicted before it). False if there is no such entry.
  bool touch(llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin) const;

  /// Stores Payload under Key atomically (temporary file in the cache, then rename).
  llvm::Error store(llvm::StringRef Key, llvm::StringRef Payload, EntryKind Kind = EntryKind::Cubin) const;

  /// A new, empty temporary file in Key's folder of the cache, for a tool to write an entry's payload into
  /// (nvlink's result, megabytes): adopt() then makes it the entry without a copy. One never adopted (a
  /// killed link's) is removed by prune() after an hour, like store()'s temporaries.
  llvm::Expected<std::string> createTemporary(llvm::StringRef Key) const;

  /// Makes the payload a tool wrote into Temporary (from createTemporary) Key's entry: appends the trailer
  /// and renames the file into place, atomically as store() does. Used: the bytes the link read from
  /// Temporary and used; a file that no longer holds them (another process wrote into the cache's folder
  /// meanwhile) is not adopted, and the trailer is computed from Used, so a change after the comparison
  /// makes the entry fail its check at the next look-up instead of serving other bytes. The file is removed
  /// if it is not adopted.
  llvm::Error adopt(llvm::StringRef Temporary, llvm::StringRef Key, EntryKind Kind, llvm::StringRef Used) const;

  /// Removes least recently used entries until the cache holds at most the limit; also removes
  /// temporary files that a killed link left behind (older than an hour). Returns the bytes removed.
  uint64_t prune() const;

  /// Where Key's entry lives (tests corrupt it on purpose).
  std::string entryPath(llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin) const;
  const std::string &directory() const { return Dir; }

  /// The on-disk form of Key's entry (the payload, then a trailer with magic, size, checksum and a hash of
  /// the key and kind), and its inverse, which fails on anything not intact or not Key's entry of that
  /// kind (another key's valid entry copied to Key's path). Exposed for unit tests.
  static std::string encodeEntry(llvm::StringRef Payload, llvm::StringRef Key, EntryKind Kind = EntryKind::Cubin);
  static std::optional<std::string> decodeEntry(llvm::StringRef Bytes, llvm::StringRef Key,
                                                EntryKind Kind = EntryKind::Cubin);
  /// decodeEntry's payload as a view into Bytes.
  static std::optional<llvm::StringRef> payloadOf(llvm::StringRef Bytes, llvm::StringRef Key,
                                                  EntryKind Kind = EntryKind::Cubin);

private:
  std::string Dir;
  uint64_t Limit;
};

/// Appends Bytes to the file at Path (opened for appending, closed again): the first error, or success.
std::error_code appendToFile(llvm::StringRef Path, llvm::StringRef Bytes);

} // namespace ptxlink
