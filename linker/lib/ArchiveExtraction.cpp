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
// Only the index is consulted for unextracted members, so a member never extracted is never read and
// cannot produce an error. The indexes of the libraries searched lazily are entered into one table of
// the link's names (lld's lazy symbols), and undefined names wait in a work list: each name is looked at
// a bounded number of times, whatever the number of members (the cost was members x names when every
// load started the list of undefined names again).

#include "ArchiveExtraction.h"

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

void ArchiveExtractor::define(StringRef Text) { define(Names.intern(Text)); }

void ArchiveExtractor::refer(StringRef Text, uint32_t Input) { refer(Names.intern(Text), Input); }

void ArchiveExtractor::refer(uint32_t Id, uint32_t Input) {
  NameState &N = state(Id);
  if (!N.Defined && N.Referrer == None) {
    N.Referrer = Input;
    Queue.push_back(Id);
  }
}

void ArchiveExtractor::addObject(const ObjectFile &Object, uint32_t Input) {
  // The names were interned when the input was loaded: their ids, no hashing here.
  for (const ModuleVariant &M : Object.Variants) {
    ArrayRef<uint32_t> Ids = Names.symbolIds(Input, Object, M);
    for (uint32_t SI = 0; SI < M.Symbols.size(); ++SI) {
      const Symbol &S = M.Symbols[SI];
      if (!isVisibleName(S))
        continue;
      const uint32_t Id = SI < Ids.size() ? Ids[SI] : Names.intern(S.name());
      if (S.Bind == Binding::Undefined && M.aliasOf(SI) == NoSymbol)
        refer(Id, Input);
      else
        define(Id);
    }
  }
}

bool ArchiveExtractor::isUndefined(StringRef Text) const {
  const uint32_t At = Names.find(Text);
  return At != LinkNames::None && At < States.size() && !States[At].Defined && States[At].Referrer != None;
}

void ArchiveExtractor::addLazyEntries() {
  // Libraries last to first, each entry put in front of its name's list: the lists come out in library
  // order. Within a library the first member its index names for a symbol is the one (memberDefining's).
  size_t Entries = 0;
  for (const LibraryEntry &L : Libraries)
    if (!L.WholeArchive)
      Entries += L.Library->symbolIndex().size();
  Names.reserve(Names.size() + Entries); // sized once: regrowing it rehashes every name
  Lazies.reserve(Entries);
  for (size_t Lib = Libraries.size(); Lib-- > 0;) {
    if (Libraries[Lib].WholeArchive)
      continue;
    for (const auto &[Symbol, Member] : Libraries[Lib].Library->symbolIndex()) {
      NameState &N = state(Names.intern(Symbol));
      if (N.FirstLazy != None && Lazies[N.FirstLazy].Library == Lib)
        continue;
      Lazies.push_back({uint32_t(Lib), uint32_t(Member), N.FirstLazy});
      N.FirstLazy = uint32_t(Lazies.size() - 1);
    }
  }
}

Error ArchiveExtractor::run(function_ref<StringRef(uint32_t)> InputName,
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
  addLazyEntries();

  // The work list in the order names were first referred to. A name behind the cursor is defined or
  // has no unloaded member left that defines it, and both stay so (members are only ever added), so it
  // is never looked at again. The cursor stays on a name whose member was just loaded: the member may
  // not define it after all (its index lied), and the name then goes to the next library.
  for (size_t Cursor = 0; Cursor < Queue.size();) {
    const uint32_t At = Queue[Cursor];
    if (States[At].Defined) {
      ++Cursor;
      continue;
    }
    const Lazy *Choice = nullptr;
    for (uint32_t L = States[At].FirstLazy; L != None && !Choice; L = Lazies[L].Next)
      if (!IsLoaded(Libraries[Lazies[L].Library], Lazies[L].Member))
        Choice = &Lazies[L];
    if (!Choice) {
      ++Cursor;
      continue;
    }
    // Copies: Load adds names (States may move) but no lazy entries.
    const StringRef Symbol = Names.text(At);
    if (Error E = LoadMember(Choice->Library, Choice->Member, Symbol, InputName(States[At].Referrer)))
      return E;
  }
  return Error::success();
}

void ArchiveExtractor::writeWhyExtract(raw_ostream &OS) const {
  // lld's --why-extract format: a header, then reference, extracted member, symbol.
  OS << "reference\textracted\tsymbol\n";
  for (const ExtractedMember &M : Extracted)
    OS << (M.ReferencedBy.empty() ? StringRef("<internal>") : StringRef(M.ReferencedBy)) << '\t'
       << M.DisplayName << '\t' << M.Symbol << '\n';
}

} // namespace ptxlink
