// Bounds-checked ELF64 peeking for fatbinary images (see FatbinInternal.h): find a section by name and
// compute the true size of a cubin stored zero-padded in a fatbinary entry.
#include "FatbinInternal.h"

#include "llvm/Support/Endian.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {
namespace {

struct Elf64View {
  StringRef B;
  uint64_t ShOff = 0, PhOff = 0;
  uint16_t ShEntSize = 0, ShNum = 0, PhEntSize = 0, PhNum = 0, ShStrNdx = 0;

  bool in(uint64_t Off, uint64_t Size) const { return Off <= B.size() && Size <= B.size() - Off; }
  uint16_t u16(uint64_t Off) const { return support::endian::read16le(B.data() + Off); }
  uint32_t u32(uint64_t Off) const { return support::endian::read32le(B.data() + Off); }
  uint64_t u64(uint64_t Off) const { return support::endian::read64le(B.data() + Off); }

  bool init(StringRef Bytes) {
    B = Bytes;
    if (B.size() < 64 || !B.starts_with("\x7f" "ELF") || B[4] != 2 || B[5] != 1)
      return false;
    PhOff = u64(0x20);
    ShOff = u64(0x28);
    PhEntSize = u16(0x36);
    PhNum = u16(0x38);
    ShEntSize = u16(0x3A);
    ShNum = u16(0x3C);
    ShStrNdx = u16(0x3E);
    return true;
  }
  // Section header I, if it lies inside the buffer.
  std::optional<uint64_t> shdr(unsigned I) const {
    if (ShEntSize < 64 || I >= ShNum)
      return std::nullopt;
    uint64_t Off = ShOff + uint64_t(I) * ShEntSize;
    if (Off < ShOff || !in(Off, 64))
      return std::nullopt;
    return Off;
  }
};

} // namespace

std::optional<StringRef> findElfSection(StringRef Elf, StringRef Name) {
  Elf64View V;
  if (!V.init(Elf))
    return std::nullopt;
  auto StrHdr = V.shdr(V.ShStrNdx);
  if (!StrHdr)
    return std::nullopt;
  uint64_t StrOff = V.u64(*StrHdr + 0x18), StrSize = V.u64(*StrHdr + 0x20);
  if (!V.in(StrOff, StrSize))
    return std::nullopt;
  StringRef Strings = Elf.substr(StrOff, StrSize);
  for (unsigned I = 1; I < V.ShNum; ++I) {
    auto H = V.shdr(I);
    if (!H)
      return std::nullopt;
    uint32_t NameOff = V.u32(*H);
    if (NameOff >= Strings.size())
      continue;
    StringRef SecName = Strings.substr(NameOff);
    SecName = SecName.take_until([](char C) { return C == '\0'; });
    if (SecName != Name)
      continue;
    uint64_t Off = V.u64(*H + 0x18), Size = V.u64(*H + 0x20);
    if (V.u32(*H + 4) == 8 /*SHT_NOBITS*/ || !V.in(Off, Size))
      return std::nullopt;
    return Elf.substr(Off, Size);
  }
  return std::nullopt;
}

uint64_t elfExtent(StringRef Elf) {
  Elf64View V;
  if (!V.init(Elf))
    return 0;
  uint64_t End = std::min<uint64_t>(V.u16(0x34) ? V.u16(0x34) : 64, Elf.size());
  auto Extend = [&](uint64_t Off, uint64_t Size) {
    if (Off > Elf.size())
      return;
    End = std::max(End, Off + std::min<uint64_t>(Size, Elf.size() - Off));
  };
  if (V.ShNum && V.ShEntSize)
    Extend(V.ShOff, uint64_t(V.ShNum) * V.ShEntSize);
  if (V.PhNum && V.PhEntSize)
    Extend(V.PhOff, uint64_t(V.PhNum) * V.PhEntSize);
  for (unsigned I = 1; I < V.ShNum; ++I) {
    auto H = V.shdr(I);
    if (!H)
      break;
    if (V.u32(*H + 4) != 8 /*SHT_NOBITS*/)
      Extend(V.u64(*H + 0x18), V.u64(*H + 0x20));
  }
  for (unsigned I = 0; I < V.PhNum && V.PhEntSize >= 56; ++I) {
    uint64_t Off = V.PhOff + uint64_t(I) * V.PhEntSize;
    if (Off < V.PhOff || !V.in(Off, 56))
      break;
    Extend(V.u64(Off + 8), V.u64(Off + 0x20)); // p_offset, p_filesz
  }
  return End;
}

} // namespace ptxlink
