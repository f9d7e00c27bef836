// A kernel whose inner loop calls device functions of another translation unit (ops.cu), timed with CUDA
// events, and a checksum of its result. Built with nvcc -rdc (nvlink) and with ptxlink, the checksums
// must agree bit for bit; the times show what each device link leaves to the hardware (a call per
// iteration, or inlined code after a whole-program ptxas run).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "ops.cuh"

__global__ void iterate(float *out, const float *in, int n, int iterations) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // x settles into the same cycle in every thread; the sum keeps what each thread's start made of the
  // first steps, so a wrong result anywhere shows in the checksum.
  float x = in[i], y = 0.0f, sum = 0.0f;
  for (int k = 0; k < iterations; ++k) {
    x = step(x, k);
    y = blend(y, x, 0.125f);
    sum += y;
  }
  out[i] = sum;
}

int main(int argc, char **argv) {
  const int n = 1 << 20, iterations = argc > 1 ? std::atoi(argv[1]) : 2048;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = (float)(i % 1000) / 1000.0f;
  float weights[4] = {1.5f, 0.75f, 1.25f, 0.5f};
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) {
    std::printf("no CUDA device: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  cudaMemcpyToSymbol(c_weights, weights, sizeof weights);
  cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  iterate<<<n / 256, 256>>>(out, in, n, iterations); // warm-up (and the driver's JIT, if any)
  cudaEventRecord(start);
  const int repeats = 20;
  for (int r = 0; r < repeats; ++r)
    iterate<<<n / 256, 256>>>(out, in, n, iterations);
  cudaEventRecord(stop);
  cudaError_t e = cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  unsigned long long sum = 0;
  for (int i = 0; i < n; ++i) {
    unsigned bits;
    std::memcpy(&bits, &host[i], sizeof bits);
    sum = sum * 1000003ull + bits;
  }
  std::printf("checksum=%016llx out[1]=%.9g out[777]=%.9g status=%s\n", sum, host[1], host[777], cudaGetErrorString(e));
  std::printf("kernel_ms=%.4f\n", ms / repeats);
  return e == cudaSuccess ? 0 : 1;
}
