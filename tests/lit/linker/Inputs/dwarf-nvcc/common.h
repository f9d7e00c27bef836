// Shared by a.cu, b.cu and lib.cu: a template and an inline function (weak in every module that uses
// them, so all copies but one lose at link time), both with local arrays (DW_OP_addr __local_depotN).
#pragma once
template <typename T> __device__ T twice(T x) {
  T tmp[4];
  for (int i = 0; i < 4; ++i)
    tmp[i] = x + i;
  return tmp[0] + tmp[3] + x;
}
inline __device__ int sharedInline(int v) {
  int buf[8];
  for (int i = 0; i < 8; ++i)
    buf[i] = v * i;
  return buf[v & 7];
}
__device__ int libUsed(int);
