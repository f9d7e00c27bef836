// The link's one table of names (LinkNames.h): interning each loaded input's visible names once.
#include "LinkNames.h"

namespace ptxlink {

void LinkNames::addObject(const ObjectFile &Object, uint32_t Input) {
  size_t Symbols = 0;
  for (const ModuleVariant &V : Object.Variants)
    Symbols += V.Symbols.size();
  if (IdsOf.size() <= Input)
    IdsOf.resize(Input + 1, nullptr);
  uint32_t *Ids = Symbols ? IdPool.Allocate<uint32_t>(Symbols) : nullptr;
  IdsOf[Input] = Ids;
  for (const ModuleVariant &V : Object.Variants)
    for (const Symbol &S : V.Symbols)
      *Ids++ = isVisibleName(S) ? intern(S.name()) : None;
}

llvm::ArrayRef<uint32_t> LinkNames::symbolIds(uint32_t Input, const ObjectFile &Object, const ModuleVariant &V) const {
  if (Input >= IdsOf.size() || !IdsOf[Input])
    return {};
  const uint32_t *Ids = IdsOf[Input];
  for (const ModuleVariant &Other : Object.Variants) {
    if (&Other == &V)
      return llvm::ArrayRef<uint32_t>(Ids, V.Symbols.size());
    Ids += Other.Symbols.size();
  }
  return {};
}

void LinkNames::doneWith() {
  if (Users == 0 || --Users != 0)
    return;
  Index.release();
  discardWholePages(Texts.data(), Texts.capacity() * sizeof(llvm::StringRef)); // dead, freed next
  Texts = {};
  IdsOf = {};
  IdPool.Reset();
}

} // namespace ptxlink
