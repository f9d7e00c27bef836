// A template in a header, instantiated by every unit that includes it: one .weak copy per module. Only a
// unit compiled with another -DBLEND has a really different copy (an ODR violation worth a warning).
#pragma once
#ifndef BLEND
#define BLEND 0.5f
#endif

template <typename T> __device__ __noinline__ T blend(const T *v, int n) {
  T acc = v[0];
  for (int i = 1; i < n; ++i) {
    if (v[i] > acc)
      acc = acc * T(BLEND) + v[i] * T(1 - BLEND);
    else if (v[i] < -acc)
      acc = -acc;
  }
  return acc;
}
