#include "common.h"
extern __device__ int g;
__global__ void kA(int *out) {
  int local[5];
  for (int i = 0; i < 5; ++i)
    local[i] = g + i;
  out[threadIdx.x] = twice<int>(threadIdx.x) + sharedInline(threadIdx.x) + libUsed(local[threadIdx.x % 5]);
}
