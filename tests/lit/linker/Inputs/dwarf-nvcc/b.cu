#include "common.h"
__device__ float gB;
__global__ void kB(float *out) {
  float loc[3] = {1, 2, 3};
  out[threadIdx.x] = twice<float>(gB) + sharedInline(threadIdx.x) + loc[threadIdx.x % 3];
}
