// Finding a section by name and the true size of a cubin stored zero-padded in a fatbinary entry (see
// FatbinInternal.h), through the bounds-checked ELF view (ElfView.h) with no messages: a fatbinary
// entry may be padded or cut short, and a question it cannot answer is simply not answered.
#include "FatbinInternal.h"

#include "ElfView.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {
namespace {

std::optional<ElfView> quietView(StringRef Elf) {
  return ElfView::open(Elf, ElfView::TablePolicy::Readable, [](uint64_t, const Twine &) {});
}

} // namespace

std::optional<StringRef> findElfSection(StringRef Elf, StringRef Name) {
  std::optional<ElfView> V = quietView(Elf);
  if (!V)
    return std::nullopt;
  for (size_t I = 1; I < V->sectionCount(); ++I) {
    if (V->sectionName(I) != Name)
      continue;
    if (!V->hasContents(V->section(I)))
      return std::nullopt;
    return V->contents(I);
  }
  return std::nullopt;
}

uint64_t elfExtent(StringRef Elf) {
  std::optional<ElfView> V = quietView(Elf);
  if (!V)
    return 0;
  const ElfHeader &H = V->header();
  uint64_t End = std::min<uint64_t>(H.e_ehsize ? uint64_t(H.e_ehsize) : sizeof(ElfHeader), Elf.size());
  auto Extend = [&](uint64_t Off, uint64_t Size) {
    if (Off > Elf.size())
      return;
    End = std::max(End, Off + std::min<uint64_t>(Size, Elf.size() - Off));
  };
  // The section header table at its real count: e_shnum is 0 under extended numbering (the count is in
  // section 0, which the view read).
  if (uint64_t Sections = H.e_shnum ? uint64_t(H.e_shnum) : V->sectionCount(); Sections && H.e_shentsize)
    Extend(H.e_shoff, Sections * H.e_shentsize);
  if (H.e_phnum && H.e_phentsize)
    Extend(H.e_phoff, uint64_t(H.e_phnum) * H.e_phentsize);
  for (size_t I = 1; I < V->sectionCount(); ++I) {
    const ElfSectionHeader &S = V->section(I);
    if (V->occupiesFile(S))
      Extend(S.sh_offset, S.sh_size); // the fields as written, even when they reach past the end
  }
  ElfTable<ElfProgramHeader> Segments = V->programHeaders();
  for (size_t I = 0; I < Segments.size(); ++I)
    Extend(Segments[I].p_offset, Segments[I].p_filesz);
  return End;
}

} // namespace ptxlink
