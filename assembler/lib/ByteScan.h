// Byte loops the lexer, parser and body scanner run over most of a module's bytes, 16 bytes at a time.
//
// Counting line breaks: the parser and the body scanner skip function bodies without looking at lines
// and count the newlines afterwards. std::count vectorizes into 64-bit lane sums (GCC widens every
// byte), several times slower than comparing 16 bytes and summing the matches in byte counters.
//
// The end of an identifier: mangled names in headers and parameter lists run to dozens of characters,
// where a loop testing isIdentChar byte by byte costs a chain of compares and a branch per byte.
#pragma once

#include "PtxLexer.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
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

/// The first position at or after I (and before N) that is not an identifier character (isIdentChar).
inline size_t identEnd(const char *P, size_t I, size_t N) {
#if defined(__SSE2__)
  auto Set = [](char C) { return _mm_set1_epi8(C); };
  while (I + 16 <= N) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P + I));
    __m128i L = _mm_or_si128(V, Set(0x20)); // letters of either case; bytes >= 0x80 stay negative
    __m128i Ident = _mm_or_si128(
        _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(L, Set('a' - 1)), _mm_cmplt_epi8(L, Set('z' + 1))),
                     _mm_and_si128(_mm_cmpgt_epi8(V, Set('0' - 1)), _mm_cmplt_epi8(V, Set('9' + 1)))),
        _mm_or_si128(_mm_cmpeq_epi8(V, Set('_')), _mm_cmpeq_epi8(V, Set('$'))));
    unsigned Stop = ~static_cast<unsigned>(_mm_movemask_epi8(Ident)) & 0xFFFFu;
    if (Stop)
      return I + static_cast<size_t>(__builtin_ctz(Stop));
    I += 16;
  }
#endif
  while (I < N && isIdentChar(P[I]))
    ++I;
  return I;
}

/// How many times `.func` or `.entry` is spelled in Text (anywhere: in comments and strings too). A bound
/// on a module's functions that the parser sizes its tables by. Candidates ('.' then 'f' or 'e') are found
/// 16 bytes at a time: a memchr per '.' cost 2 to 3% of assembling an nvcc module (most instructions
/// have a '.', `ld.param.u64`).
inline size_t countFunctionDirectives(const char *P, size_t N) {
  size_t Count = 0, I = 0;
  auto matchAt = [&](size_t At) { // P[At] == '.'
    const char *Q = P + At + 1;
    const size_t Left = N - At - 1;
    return (Left >= 4 && std::memcmp(Q, "func", 4) == 0) || (Left >= 5 && std::memcmp(Q, "entry", 5) == 0);
  };
#if defined(__SSE2__)
  const __m128i Dot = _mm_set1_epi8('.'), F = _mm_set1_epi8('f'), E = _mm_set1_epi8('e');
  for (; I + 17 <= N; I += 16) {
    const __m128i Here = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P + I));
    const __m128i Next = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P + I + 1));
    const __m128i Hit = _mm_and_si128(_mm_cmpeq_epi8(Here, Dot), _mm_or_si128(_mm_cmpeq_epi8(Next, F), _mm_cmpeq_epi8(Next, E)));
    for (unsigned M = static_cast<unsigned>(_mm_movemask_epi8(Hit)); M; M &= M - 1)
      Count += matchAt(I + static_cast<unsigned>(__builtin_ctz(M)));
  }
#endif
  for (; I < N; ++I)
    if (P[I] == '.')
      Count += matchAt(I);
  return Count;
}

// Where a comment or a string literal ends: the lexer, its function-body skipper, the body scanner and
// the body checks all step over them, by this one rule.

/// Where the `//` comment at I ends: at its line break (not consumed), or at N.
inline size_t lineCommentEnd(const char *P, size_t I, size_t N) {
  const void *NL = memchr(P + I, '\n', N - I);
  return NL ? static_cast<size_t>(static_cast<const char *>(NL) - P) : N;
}

/// Just past the `*/` that closes the `/*` comment at I, or N + 1 if it is not closed before N.
inline size_t blockCommentEnd(const char *P, size_t I, size_t N) {
  size_t J = I + 2;
  while (J + 1 < N && !(P[J] == '*' && P[J + 1] == '/'))
    ++J;
  return J + 1 < N ? J + 2 : N + 1;
}

/// For the string literal whose opening quote is at I: the position of its closing quote, or, if it is
/// unterminated, of the line break or N where it stops. A backslash escapes the next character but a
/// line break.
inline size_t stringLiteralEnd(const char *P, size_t I, size_t N) {
  size_t J = I + 1;
  while (J < N && P[J] != '"' && P[J] != '\n') {
    if (P[J] == '\\' && J + 1 < N && P[J + 1] != '\n')
      ++J;
    ++J;
  }
  return J;
}

// How the lexer cuts a directive and an identifier, for the byte scanners that must read exactly what
// it would read (the parameter and debug-data fast paths): one rule, here.

/// The end of the directive token (`.b32`, `.debug_info`) at I, or I if none starts there.
inline size_t directiveTokenEnd(const char *P, size_t I, size_t N) {
  if (I + 1 >= N || P[I] != '.' || !isIdentChar(P[I + 1]) || isDigit(P[I + 1]))
    return I;
  return identEnd(P, I + 1, N);
}

/// The end of the identifier token (`foo`, `%r1`, `$L__BB0_1`) at I, or I if none starts there (a lone
/// `%` or `$` is punctuation).
inline size_t identifierTokenEnd(const char *P, size_t I, size_t N) {
  if (I >= N || !isIdentStart(P[I]))
    return I;
  size_t E = identEnd(P, I + 1, N);
  return E == I + 1 && (P[I] == '%' || P[I] == '$') ? I : E;
}

} // namespace ptxlink
