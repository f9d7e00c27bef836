// The host side: launches the kernels (their host stubs come from kern.cu). main is in main.cpp, so that
// the test can link these objects with a stand-in runtime that has a main of its own.
#include <cstdio>
__global__ void saxpy_k(float *out, const float *in, int n);
template <typename T> __global__ void mix_k(T *out, const T *a, const T *b, int n);
int run_program() {
  float *f = nullptr;
  int *i = nullptr;
  cudaMalloc(&f, 64 * sizeof(float));
  cudaMalloc(&i, 64 * sizeof(int));
  saxpy_k<<<1, 64>>>(f, f, 64);
  mix_k<float><<<1, 64>>>(f, f, f, 64);
  mix_k<int><<<1, 64>>>(i, i, i, 64);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
