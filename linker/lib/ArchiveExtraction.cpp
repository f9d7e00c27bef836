// Lazy extraction of archive members during a link (docs/archives.md).
//
// The problem: decide which library members join the link so that the result depends only on which
// symbols are missing, not on where libraries sit on the command line relative to objects, and so that
// the cost is proportional to what is extracted. The rule (lld's): while some strong reference is
// undefined and some library's symbol index names a member not yet loaded that defines it, load that
// member; repeat until nothing changes. Ties between libraries go to the first library on the command
// line, ties within a library to the first member in its index. `--whole-archive` libraries are loaded
// completely, first, in command-line order.
//
// Only the index is consulted for unextracted members (one hash lookup per name and library), so a
// member never extracted is never read and cannot produce an error.

#include "ArchiveExtraction.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

namespace ptxlink {

using namespace llvm;

void ArchiveExtractor::addLibrary(std::unique_ptr<StaticLibrary> Library, bool WholeArchive) {
  // Loaded grows as members are numbered: asking for memberCount() here would walk every header.
  LibraryEntry Entry;
  Entry.Library = std::move(Library);
  Entry.WholeArchive = WholeArchive;
  Libraries.push_back(std::move(Entry));
}

Error ArchiveExtractor::run(function_ref<std::vector<std::pair<std::string, std::string>>()> PendingUndefined,
                            function_ref<Error(const ExtractedMember &)> Load) {
  auto IsLoaded = [&](const LibraryEntry &Entry, size_t Member) {
    return Member < Entry.Loaded.size() && Entry.Loaded[Member];
  };
  auto LoadMember = [&](size_t Lib, size_t Member, StringRef Symbol, StringRef ReferencedBy) -> Error {
    LibraryEntry &Entry = Libraries[Lib];
    if (Member >= Entry.Loaded.size())
      Entry.Loaded.resize(Member + 1, false);
    Entry.Loaded[Member] = true;
    // The bytes first: reading them checks the member's header, which its name comes from.
    Expected<MemoryBufferRef> Buffer = Entry.Library->memberBuffer(Member);
    if (!Buffer)
      return Buffer.takeError();
    ExtractedMember M;
    M.Library = Lib;
    M.Member = Member;
    M.DisplayName = (Entry.Library->fileName() + "(" + Entry.Library->memberName(Member) + ")").str();
    M.Symbol = Symbol.str();
    M.ReferencedBy = ReferencedBy.str();
    M.Buffer = *Buffer;
    Extracted.push_back(std::move(M));
    // Load may add undefined names; the member is recorded first so that a failing member still shows
    // up in --why-extract.
    return Load(Extracted.back());
  };

  for (size_t Lib = 0; Lib < Libraries.size(); ++Lib) {
    const StaticLibrary &L = *Libraries[Lib].Library;
    if (Libraries[Lib].WholeArchive) {
      if (Error E = L.readAllMembers())
        return E;
      for (size_t Member = 0, N = L.memberCount(); Member < N; ++Member)
        if (!IsLoaded(Libraries[Lib], Member))
          if (Error E = LoadMember(Lib, Member, "", "--whole-archive"))
            return E;
    } else if (!L.hasSymbolIndex() && L.memberCount() != 0) {
      // GNU ld refuses such an archive too; the message says how to fix it.
      return createStringError(inconvertibleErrorCode(), L.fileName() +
                                                             ": archive has no symbol index; add one with "
                                                             "'ptxlink-ar s " +
                                                             L.fileName() + "'");
    }
  }

  // Names that no library can supply any more. Members are only ever added, so once a name has no
  // unloaded defining member it never will: remembering that keeps each round proportional to the
  // new undefined names rather than to all of them times the libraries.
  StringSet<> Exhausted;
  for (;;) {
    std::vector<std::pair<std::string, std::string>> Pending = PendingUndefined();
    bool Progress = false;
    for (const auto &[Name, ReferencedBy] : Pending) {
      if (Exhausted.contains(Name))
        continue;
      std::optional<std::pair<size_t, size_t>> Choice;
      for (size_t Lib = 0; Lib < Libraries.size() && !Choice; ++Lib) {
        if (Libraries[Lib].WholeArchive)
          continue;
        std::optional<size_t> Member = Libraries[Lib].Library->memberDefining(Name);
        if (Member && !IsLoaded(Libraries[Lib], *Member))
          Choice.emplace(Lib, *Member);
      }
      if (!Choice) {
        Exhausted.insert(Name);
        continue;
      }
      if (Error E = LoadMember(Choice->first, Choice->second, Name, ReferencedBy))
        return E;
      // The member may also define other names of this (now stale) list: ask the linker again rather
      // than pull in a second definition of one of them.
      Progress = true;
      break;
    }
    if (!Progress)
      return Error::success();
  }
}

void ArchiveExtractor::writeWhyExtract(raw_ostream &OS) const {
  // lld's --why-extract format: a header, then reference, extracted member, symbol.
  OS << "reference\textracted\tsymbol\n";
  for (const ExtractedMember &M : Extracted)
    OS << (M.ReferencedBy.empty() ? StringRef("<internal>") : StringRef(M.ReferencedBy)) << '\t'
       << M.DisplayName << '\t' << M.Symbol << '\n';
}

} // namespace ptxlink
