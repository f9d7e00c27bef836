#include "common.h"
__device__ int libUsed(int x) {
  int arr[5];
  for (int i = 0; i < 5; ++i)
    arr[i] = x ^ i;
  return arr[x % 5] + twice<int>(x);
}
// Called by nobody: nvlink -g keeps it and its debug entries, and so does ptxlink.
__device__ int libUnused(int x) {
  int arr2[7];
  for (int i = 0; i < 7; ++i)
    arr2[i] = x - i;
  return arr2[x % 7];
}
