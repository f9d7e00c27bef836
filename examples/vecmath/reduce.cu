// Block-level reductions used by the norm and dot kernels.
#include "vecmath.cuh"

extern __shared__ float vm_scratch[]; // sized at launch time: blockDim.x floats

__device__ __noinline__ float vm_block_sum(float v) {
  unsigned tid = threadIdx.x;
  vm_scratch[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      vm_scratch[tid] += vm_scratch[tid + s];
    __syncthreads();
  }
  return vm_scratch[0];
}

__device__ __noinline__ float vm_dot_partial(const float *x, const float *y, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += x[i] * y[i];
  return vm_block_sum(acc);
}

// Sum of squares through the shared template: its `.weak` copy lands in reduce.ptx as well.
__device__ float vm_sum_squares(float a, float b) { return vm_square(a) + vm_square(b); }
