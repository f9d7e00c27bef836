// The link's one table of names (LinkNames.h): interning each loaded input's visible names once.
#include "LinkNames.h"

namespace ptxlink {

void LinkNames::addObject(const ObjectFile &Object, uint32_t Input) {
  if (IdsAt.size() <= Input)
    IdsAt.resize(Input + 1, NoIds);
  IdsAt[Input] = Ids.size();
  for (const ModuleVariant &V : Object.Variants)
    for (const Symbol &S : V.Symbols)
      Ids.push_back(isVisibleName(S) ? intern(S.name()) : None);
}

llvm::ArrayRef<uint32_t> LinkNames::symbolIds(uint32_t Input, const ObjectFile &Object, const ModuleVariant &V) const {
  if (Input >= IdsAt.size() || IdsAt[Input] == NoIds)
    return {};
  uint64_t At = IdsAt[Input];
  for (const ModuleVariant &Other : Object.Variants) {
    if (&Other == &V)
      return At + V.Symbols.size() <= Ids.size() ? llvm::ArrayRef<uint32_t>(Ids.data() + At, V.Symbols.size())
                                                 : llvm::ArrayRef<uint32_t>();
    At += Other.Symbols.size();
  }
  return {};
}

void LinkNames::doneWith() {
  if (Users == 0 || --Users != 0)
    return;
  Index.release();
  discardWholePages(Texts.data(), Texts.capacity() * sizeof(llvm::StringRef)); // dead, freed next
  Texts = {};
  discardWholePages(Ids.data(), Ids.capacity() * sizeof(uint32_t));
  Ids = {};
  IdsAt = {};
}

} // namespace ptxlink
