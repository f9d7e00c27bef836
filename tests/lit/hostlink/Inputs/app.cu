// Kernels that call across files and into a device library; a template kernel; a static kernel.
#include <cstdio>
#include "util.cuh"
static __global__ void init_k(float *p, int n) { // the same name as vec.cu's static kernel
  int i = threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
__global__ void combine_k(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = dev_only_helper(scale_add(in[i], c_coeffs[1])) + warp_sum(in[i]);
    atomicAdd(&g_count, 1);
  }
}
template __global__ void fill_k<int>(int *, int, int);
void vec_init(float *p, int n);
void reduce_launch(const float *in, float *out, int n);
int run() {
  const int n = 256;
  float *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, n * sizeof(float)) != cudaSuccess || cudaMalloc(&b, n * sizeof(float)) != cudaSuccess) {
    std::printf("no CUDA device: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  float coeffs[4] = {2.0f, 1.0f, 0.0f, 0.0f};
  cudaMemcpyToSymbol(c_coeffs, coeffs, sizeof coeffs);
  init_k<<<1, 32>>>(a, n);
  vec_init(a, n);
  combine_k<<<(n + 127) / 128, 128>>>(b, a, n);
  reduce_launch(b, a, n);
  int count = 0;
  cudaMemcpyFromSymbol(&count, g_count, sizeof count);
  float first = 0;
  cudaMemcpy(&first, a, sizeof first, cudaMemcpyDeviceToHost);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("count=%d first=%g status=%s\n", count, first, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
