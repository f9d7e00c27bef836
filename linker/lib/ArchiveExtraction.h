// Lazy extraction of archive members during a link (lld's rule: a member is pulled in only when it
// defines a symbol that is still undefined, repeating until nothing changes, whatever the order of
// archives and objects on the command line). The linker owns the symbol table; this class owns the
// libraries and decides which members to load, through two callbacks.
#pragma once

#include "ptxlink/Archive.h"

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace ptxlink {

struct ExtractedMember {
  size_t Library = 0;          // index in the order libraries were added
  size_t Member = 0;           // member index within the library
  std::string DisplayName;     // "libfoo.a(a.o)"
  llvm::MemoryBufferRef Buffer;
  std::string Symbol;          // the symbol that caused the extraction ("" for --whole-archive)
  std::string ReferencedBy;    // display name of the input that referred to it ("" if unknown)
};

class ArchiveExtractor {
public:
  /// Libraries are searched in the order added; WholeArchive loads every member unconditionally.
  void addLibrary(std::unique_ptr<StaticLibrary> Library, bool WholeArchive);

  /// Drives extraction to a fixpoint. `PendingUndefined` returns the (name, referencing input) pairs the
  /// linker still has no definition for (only strong references: a .common or .weak definition already
  /// present is not "undefined"). `Load` loads one member into the link (and so may add new undefined
  /// names). Whole-archive members are loaded first, in library order.
  llvm::Error run(llvm::function_ref<std::vector<std::pair<std::string, std::string>>()> PendingUndefined,
                  llvm::function_ref<llvm::Error(const ExtractedMember &)> Load);

  const std::vector<ExtractedMember> &extracted() const { return Extracted; }
  /// `--why-extract` report in lld's format: the header line `reference<TAB>extracted<TAB>symbol`, then one
  /// line per extracted member in extraction order: the input whose reference caused the extraction (or
  /// `--whole-archive`), the member as `lib.a(member.o)`, and the symbol it was extracted for (empty for
  /// whole-archive members).
  void writeWhyExtract(llvm::raw_ostream &OS) const;

private:
  struct LibraryEntry {
    std::unique_ptr<StaticLibrary> Library;
    bool WholeArchive = false;
    std::vector<bool> Loaded; // by member number, grown as members are extracted
  };
  std::vector<LibraryEntry> Libraries;
  std::vector<ExtractedMember> Extracted;
};

} // namespace ptxlink
