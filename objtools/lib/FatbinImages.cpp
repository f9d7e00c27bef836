// Building fatbinary image descriptions from their contents, so that callers (the linker's output stage,
// tests) fill the entry header fields exactly as `fatbinary --image3=kind=...,sm=...` would: the SM
// and PTX version from the PTX header directives, the SM of a cubin from its e_flags.
#include "ptxlink/Fatbin.h"

#include "ElfView.h"
#include "FatbinInternal.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ptxlink {
namespace {

// The directive tokens of a PTX header, comments removed; stops at the first '{' or ';' after .target
// (the header is all that matters).
std::vector<StringRef> headerTokens(StringRef Text, std::string &Storage) {
  Storage.clear();
  for (size_t I = 0; I < Text.size() && Storage.size() < 65536;) {
    if (Text.substr(I).starts_with("//")) {
      I = Text.find('\n', I);
      if (I == StringRef::npos)
        break;
      continue;
    }
    if (Text.substr(I).starts_with("/*")) {
      size_t J = Text.find("*/", I + 2);
      if (J == StringRef::npos)
        break;
      Storage += ' ';
      I = J + 2;
      continue;
    }
    if (Text[I] == '{')
      break;
    Storage += Text[I] == ',' ? ' ' : Text[I];
    ++I;
  }
  SmallVector<StringRef, 32> Parts;
  SplitString(Storage, Parts, " \t\r\n");
  return {Parts.begin(), Parts.end()};
}

} // namespace

Expected<FatbinImage> makePtxImage(StringRef Ptx) {
  std::string Storage;
  std::vector<StringRef> T = headerTokens(Ptx, Storage);
  FatbinImage I;
  I.Kind = FatbinKind::Ptx;
  bool HaveVersion = false, HaveTarget = false;
  for (size_t K = 0; K + 1 < T.size(); ++K) {
    if (T[K] == ".version" && !HaveVersion) {
      auto [Maj, Min] = T[K + 1].split('.');
      unsigned A, B;
      if (Maj.getAsInteger(10, A) || Min.getAsInteger(10, B) || A > 0xffff || B > 0xffff)
        return createStringError(inconvertibleErrorCode(), "malformed .version '%s'", T[K + 1].str().c_str());
      I.VersionMajor = A;
      I.VersionMinor = B;
      HaveVersion = true;
    } else if (T[K] == ".target" && !HaveTarget) {
      auto Arch = Target::parse(T[K + 1]);
      if (!Arch)
        return createStringError(inconvertibleErrorCode(), "unsupported .target '%s'", T[K + 1].str().c_str());
      I.Arch = *Arch;
      for (size_t J = K + 2; J < T.size() && !T[J].starts_with("."); ++J)
        if (T[J] == "debug")
          I.Debug = true;
      HaveTarget = true;
    } else if (T[K] == ".address_size") {
      I.Is64Bit = T[K + 1] != "32";
    }
  }
  if (!HaveVersion)
    return createStringError(inconvertibleErrorCode(), "PTX has no .version directive");
  if (!HaveTarget)
    return createStringError(inconvertibleErrorCode(), "PTX has no .target directive");
  I.Payload = Ptx.split('\0').first.str();
  return I;
}

Expected<FatbinImage> makeCubinImage(StringRef Bytes) {
  const ElfHeader *H = elf64Header(Bytes);
  if (!H)
    return createStringError(inconvertibleErrorCode(), "not a 64-bit little-endian ELF file");
  uint16_t Machine = H->e_machine;
  if (Machine != ELF::EM_CUDA)
    return createStringError(inconvertibleErrorCode(), "ELF machine %u is not EM_CUDA (190)", Machine);
  uint8_t Abi = H->e_ident[ELF::EI_ABIVERSION];
  uint32_t Flags = H->e_flags;
  FatbinImage I;
  I.Kind = FatbinKind::Elf;
  I.Arch = targetFromCudaElfFlags(Flags, Abi);
  I.VersionMajor = 1;
  I.VersionMinor = Abi;
  // ABI 8 keeps `a` out of e_flags: .nv.compat holds it.
  if (auto Compat = findElfSection(Bytes, ".nv.compat"); Compat && nvCompatSaysArchSpecific(*Compat))
    I.Arch.Suffix = 'a';
  I.Payload = Bytes.str();
  return I;
}

} // namespace ptxlink
