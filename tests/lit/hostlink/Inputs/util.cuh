// A template in a header, instantiated in several files: each module gets its own weak copy.
#pragma once
template <typename T> __device__ T clamp_to(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
template <typename T> __global__ void fill_k(T *out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = clamp_to<T>(value, T(0), T(100));
}
extern __device__ int g_count;           // defined in vec.cu
extern __constant__ float c_coeffs[4];   // defined in vec.cu
__device__ float scale_add(float a, float b);
__device__ float warp_sum(float v);      // in libred.a (reduce.cu)
__device__ float dev_only_helper(float v); // in libred.a (devonly.cu): device code only
