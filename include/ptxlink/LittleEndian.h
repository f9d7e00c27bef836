//===- LittleEndian.h - Little-endian values appended to or written into byte buffers ---------------===//
//
// Every format ptxlink writes is little-endian: its objects, NVIDIA's fatbinaries and cubins, x86-64 host
// objects, DWARF, the compile cache's trailer and the remote cache's blobs. The writers all go through
// llvm::support::endian, in the two shapes they need beyond its write*le: a value appended to a growing
// buffer (std::string or a vector of bytes), and a value whose width is known only at run time (a DWARF
// form, a `.bN` datum) written in place. The byte order does not depend on the host's.
//
//===------------------------------------------------------------------------------------------------===//
#ifndef PTXLINK_LITTLEENDIAN_H
#define PTXLINK_LITTLEENDIAN_H

#include "llvm/Support/Endian.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ptxlink {

/// Appends V to Out as sizeof(T) little-endian bytes.
template <typename T, typename Buffer> void appendLE(Buffer &Out, T V) {
  static_assert(std::is_integral_v<T>, "appendLE writes integers");
  char Bytes[sizeof(T)];
  llvm::support::endian::write<T, llvm::endianness::little>(Bytes, V);
  Out.insert(Out.end(), Bytes, Bytes + sizeof(T));
}

/// Writes the low Width bytes of V (Width at most 8) at P, least significant first.
inline void writeLE(void *P, uint64_t V, unsigned Width) {
  assert(Width <= 8 && "a little-endian field of more than 8 bytes");
  char Bytes[8];
  llvm::support::endian::write64le(Bytes, V);
  std::memcpy(P, Bytes, Width);
}

/// Appends the low Width bytes of V (Width at most 8) to Out, least significant first.
template <typename Buffer> void appendLE(Buffer &Out, uint64_t V, unsigned Width) {
  assert(Width <= 8 && "a little-endian field of more than 8 bytes");
  char Bytes[8];
  llvm::support::endian::write64le(Bytes, V);
  Out.insert(Out.end(), Bytes, Bytes + Width);
}

} // namespace ptxlink

#endif
