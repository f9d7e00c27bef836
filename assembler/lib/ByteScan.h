// Counting line breaks in a byte range: the parser and the body scanner skip function bodies without
// looking at lines and count the newlines afterwards, over nearly every byte of a module. std::count
// vectorizes into 64-bit lane sums (GCC widens every byte), several times slower than comparing 16
// bytes and summing the matches in byte counters, which is what this does.
#pragma once

#include <cstddef>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ptxlink {

inline size_t countNewlines(const char *P, size_t N) {
  size_t Count = 0, I = 0;
#if defined(__SSE2__)
  const __m128i NL = _mm_set1_epi8('\n'), Zero = _mm_setzero_si128();
  while (I + 16 <= N) {
    // Each match subtracts -1 from a byte counter; 255 rounds at most before a byte could wrap.
    __m128i Acc = Zero;
    size_t Stop = I + 16 * 255 < N ? I + 16 * 255 : N;
    for (; I + 16 <= Stop; I += 16)
      Acc = _mm_sub_epi8(Acc, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(P + I)), NL));
    __m128i Sums = _mm_sad_epu8(Acc, Zero); // two 64-bit sums of eight byte counters each
    Count += static_cast<size_t>(_mm_cvtsi128_si64(Sums)) +
             static_cast<size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(Sums, Sums)));
  }
#endif
  for (; I < N; ++I)
    Count += P[I] == '\n';
  return Count;
}

} // namespace ptxlink
