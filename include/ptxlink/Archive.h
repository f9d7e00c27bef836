// Static device libraries (GNU ar format with a symbol index): the linker's view, for lazy extraction.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// An opened archive: its symbol index read once; members read only when extracted.
///
/// Member numbers: open() reads only the symbol index, not the member headers spread through the file
/// (a link that needs 1% of a large library should not touch the other 99%). The members the index names
/// are numbered first, in archive order; members it does not name (no external definitions) are found
/// by walking every header, which memberCount() and readAllMembers() do on first use, and are numbered
/// after them, in archive order. For an archive whose every member defines something (the usual case)
/// the numbers are exactly the archive order. Not thread-safe: the first full walk updates the library.
class StaticLibrary {
public:
  virtual ~StaticLibrary() = default;
  /// Opens an archive (takes ownership of Buffer). Errors name the file and byte offset.
  static llvm::Expected<std::unique_ptr<StaticLibrary>> open(std::unique_ptr<llvm::MemoryBuffer> Buffer);

  virtual llvm::StringRef fileName() const = 0;
  /// Walks every member header (once). Errors name the file and byte offset of a corrupt header or of
  /// an index entry that does not point at a member.
  virtual llvm::Error readAllMembers() const { return llvm::Error::success(); }
  /// False for an archive written without a symbol index (`ar S`); lazy extraction needs one.
  virtual bool hasSymbolIndex() const { return true; }
  /// Number of members (walks the headers on first use; after a walk error, the members before it).
  virtual size_t memberCount() const = 0;
  virtual llvm::StringRef memberName(size_t Member) const = 0;
  /// The member's bytes (points into the archive buffer, valid as long as the library).
  virtual llvm::Expected<llvm::MemoryBufferRef> memberBuffer(size_t Member) const = 0;
  /// The member the symbol index says defines Name (the first such member), if any.
  virtual std::optional<size_t> memberDefining(llvm::StringRef Name) const = 0;
  /// Every (symbol, member) pair of the index, in index order (the library's own table, not a copy: an
  /// index of millions of names is walked, not duplicated).
  virtual llvm::ArrayRef<std::pair<llvm::StringRef, size_t>> symbolIndex() const = 0;
};

/// True if Bytes starts with the ar magic ("!<arch>\n").
bool isArchive(llvm::StringRef Bytes);

} // namespace ptxlink
