// A header template used by two files: each file's PTX carries its own .weak copy of the kernel and of
// the device function it calls (sass-weak-once.test).
#pragma once
template <class T> __device__ __noinline__ T norm2(T x, T y) { return x * x + y * y; }
template <class T> __global__ void norm_kernel(const T* x, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = norm2(x[i], x[n - 1 - i]);
}
__device__ float shared_helper(float x);
