// The link's one table of names: every visible name of every loaded input interned once, at load.
//
// The problem: archive extraction, resolution (once per group of arches) and emit all look names up. Each
// kept a table of its own (the extractor's, then a name index per arch that hashed every visible symbol
// again), so a link hashed each name once per table. Here each visible symbol's name is hashed once,
// when its input is loaded: the table gives the name an id, and the symbol's id is recorded beside the
// input (4 bytes per symbol). Extraction's state per name (ArchiveExtractor) and resolution's GlobalSymbol
// per name (GlobalNameIndex) are arrays indexed by these ids; no pass after load hashes a symbol's name to
// find its entry (emit still finds a name it makes up, a renamed local's, through find()).
//
// A name is "visible" as resolution means it: not module-local, no label, no section symbol
// (isVisibleName). The names are views of the inputs' symbol names (or of a library's index), which
// outlive the table.
#pragma once

#include "ptxlink/NameIndex.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace ptxlink {

/// Whether S names something other modules can refer to (a GlobalSymbol's name, an extraction's key).
inline bool isVisibleName(const Symbol &S) {
  return S.Bind != Binding::Local && S.Kind != SymbolKind::Label && S.Kind != SymbolKind::Section;
}

class LinkNames {
public:
  static constexpr uint32_t None = NameIndex::None;

  /// Text's id, made if Text is new. Text must outlive the table.
  uint32_t intern(llvm::StringRef Text) {
    auto [Id, Added] = Index.insert(Text, uint32_t(Texts.size()), [this](uint32_t I) { return Texts[I]; });
    if (Added)
      Texts.push_back(Text);
    return Id;
  }
  /// Text's id, or None.
  uint32_t find(llvm::StringRef Text) const {
    return Index.find(Text, [this](uint32_t I) { return Texts[I]; });
  }
  llvm::StringRef text(uint32_t Id) const { return Texts[Id]; }
  /// How many names (ids run from 0 to size() - 1).
  size_t size() const { return Texts.size(); }
  /// Room for N names in all, and for the ids of N more symbols.
  void reserve(size_t N) {
    Index.reserve(N);
    Texts.reserve(N);
    Ids.reserve(Ids.size() + N);
  }

  /// Interns the visible names of every variant of Object, the link's input number Input (inputs are
  /// added in their order, each once), and records each symbol's id (None for a symbol that is not
  /// visible).
  void addObject(const ObjectFile &Object, uint32_t Input);
  /// The ids of variant V's symbols (V one of Object's variants, Object the one added as Input), by symbol
  /// index; empty if the input was never added. Valid until the next addObject.
  llvm::ArrayRef<uint32_t> symbolIds(uint32_t Input, const ObjectFile &Object, const ModuleVariant &V) const;

  /// The passes that still look names up: the groups of arches whose resolution and emit use the table.
  /// Each says when it is done (doneWith), and the last one frees the table: at a link's peak, the end
  /// of emit, it holds nothing.
  void addUsers(uint32_t N) { Users += N; }
  void doneWith();

private:
  std::vector<llvm::StringRef> Texts;
  NameIndex Index; // Text -> id
  /// Every added input's symbol ids, input after input and, within one, variant after variant; IdsAt[I]
  /// is where input I's begin (NoIds: never added). One array, whose pages are given back when the table
  /// is freed (the tools' heap is never trimmed, so blocks only freed would stay resident).
  std::vector<uint32_t> Ids;
  std::vector<uint64_t> IdsAt;
  static constexpr uint64_t NoIds = ~uint64_t(0);
  uint32_t Users = 0;
};

} // namespace ptxlink
