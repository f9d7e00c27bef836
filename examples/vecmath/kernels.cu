// The kernels: every one of them calls device code defined in another translation unit.
#include "vecmath.cuh"

__global__ void vm_saxpy(float a, const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = vm_axpy(a, x[i], y[i]);
}

__global__ void __launch_bounds__(256) vm_norm2(const float *x, float *partial, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += vm_square(x[i]);
  float s = vm_block_sum(acc);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    atomicAdd(&vm_calls, 1u);
  }
}

__global__ void __launch_bounds__(256) vm_dot(const float *x, const float *y, float *partial, int n) {
  float s = vm_dot_partial(x, y, n);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s * vm_scale * 0.5f;
}
