// Lazy extraction of archive members during a link (lld's rule: a member is pulled in only when it
// defines a symbol that is still undefined, repeating until nothing changes, whatever the order of
// archives and objects on the command line). This class owns the libraries and a table of the link's
// names as far as extraction needs them; the linker reports each loaded input's names to it and loads
// the members it chooses through a callback.
#pragma once

#include "LinkNames.h"
#include "ptxlink/Archive.h"
#include "ptxlink/ObjectModel.h"

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

/// The link's visible names as extraction sees them (lld's symbol table, reduced to what it needs here):
/// each name of the link's one table (LinkNames, interned at load) as defined, undefined (with the input
/// that first referred to it), or lazy (defined by a library member not yet loaded), in an array indexed
/// by the name's id. Undefined names wait in a work list in the order they were first referred to; a
/// member's load appends the names it newly needs. So each name is looked at a bounded number of times,
/// and the cost is that of the names and the libraries' indexes, not of members x names.
class ArchiveExtractor {
public:
  /// Names: the link's table, which the extractor adds the libraries' index names to.
  explicit ArchiveExtractor(LinkNames &Names) : Names(Names) {}

  /// Libraries are searched in the order added; WholeArchive loads every member unconditionally.
  void addLibrary(std::unique_ptr<StaticLibrary> Library, bool WholeArchive);

  /// A loaded input defines Name (with any binding: a .weak or .common definition is not "undefined").
  /// Name is a view that must outlive the extractor (an input's symbol name).
  void define(llvm::StringRef Name);
  /// A loaded input (numbered Input, named by run's InputName) refers to Name without defining it, as a
  /// strong reference: Name is queued unless some input defines it or it was queued before.
  void refer(llvm::StringRef Name, uint32_t Input);
  /// Both, for every visible symbol of every variant of Object (which must outlive the extractor), the
  /// input numbered Input that Names.addObject has interned.
  void addObject(const ObjectFile &Object, uint32_t Input);
  /// The link's table of names (which the loader adds every input to).
  LinkNames &names() { return Names; }
  /// Whether Name is queued and still undefined (for tests).
  bool isUndefined(llvm::StringRef Name) const;

  /// Drives extraction to a fixpoint: while a queued name is undefined and some library's index names a
  /// member not yet loaded that defines it (the first library in command-line order, the first member in
  /// its index), `Load` loads that member into the link (reporting its names through define and refer).
  /// Whole-archive members are loaded first, in library order. InputName names an input for
  /// --why-extract (the number given to refer).
  llvm::Error run(llvm::function_ref<llvm::StringRef(uint32_t)> InputName,
                  llvm::function_ref<llvm::Error(const ExtractedMember &)> Load);

  const std::vector<ExtractedMember> &extracted() const { return Extracted; }
  /// `--why-extract` report in lld's format: the header line `reference<TAB>extracted<TAB>symbol`, then one
  /// line per extracted member in extraction order: the input whose reference caused the extraction (or
  /// `--whole-archive`), the member as `lib.a(member.o)`, and the symbol it was extracted for (empty for
  /// whole-archive members).
  void writeWhyExtract(llvm::raw_ostream &OS) const;

private:
  static constexpr uint32_t None = ~0u;
  struct LibraryEntry {
    std::unique_ptr<StaticLibrary> Library;
    bool WholeArchive = false;
    std::vector<bool> Loaded; // by member number, grown as members are extracted
  };
  /// What extraction knows of one name of the link (by its id in Names).
  struct NameState {
    uint32_t Referrer = None;  // the input that first referred to it while undefined; None if never
    uint32_t FirstLazy = None; // in Lazies: the libraries' members defining it, in library order
    bool Defined = false;
  };
  /// A library member that defines a name: the first such member of the library's index.
  struct Lazy {
    uint32_t Library;
    uint32_t Member;
    uint32_t Next; // the next library's entry for the same name, or None
  };
  /// The state of name Id, made with every name's up to it.
  NameState &state(uint32_t Id) {
    if (Id >= States.size())
      States.resize(Names.size());
    return States[Id];
  }
  void define(uint32_t Id) { state(Id).Defined = true; }
  void refer(uint32_t Id, uint32_t Input);
  /// Enters every lazily searched library's index into the table, as lazy entries.
  void addLazyEntries();

  std::vector<LibraryEntry> Libraries;
  std::vector<ExtractedMember> Extracted;
  LinkNames &Names;
  std::vector<NameState> States; // by name id
  std::vector<Lazy> Lazies;
  std::vector<uint32_t> Queue; // names in the order first referred to while undefined
};

} // namespace ptxlink
