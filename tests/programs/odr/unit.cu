// Compiled several times with -DKERNEL=<name> and -DHELPERS=<count>: the helpers placed before the
// kernel change the per-module numbers nvcc gives the template's branch labels, local depot and call
// sequences, which must not count as a difference.
#include "blend.cuh"

#ifndef HELPERS
#define HELPERS 0
#endif

template <int K> __device__ __noinline__ float helper(float x) {
  float a[8];
  for (int i = 0; i < 8; ++i)
    a[i] = x * (i + K);
  return a[int(x) & 7] > 1.0f ? a[1] : a[2];
}

__global__ void KERNEL(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float extra = 0.0f;
#if HELPERS > 0
  extra += helper<1>(data[0]);
#endif
#if HELPERS > 1
  extra += helper<2>(data[1]);
#endif
  if (i < n)
    data[i] = blend(data + i, n - i) + extra;
}
