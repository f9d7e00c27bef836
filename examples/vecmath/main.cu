// Host driver for the vecmath example (needs a GPU): runs each kernel once and checks the results.
// Build: make run   (nvcc -dc compiles, ptxlink --emit host-object device-links, g++ -lcudart links)
#include "vecmath.cuh"

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));           \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  const int n = 1 << 16, threads = 256, blocks = 64;
  std::vector<float> hx(n), hy(n), hout(n), hpart(blocks);
  for (int i = 0; i < n; ++i) {
    hx[i] = 0.001f * (i % 1000);
    hy[i] = 1.0f;
  }
  float *x, *y, *out, *part;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&part, blocks * sizeof(float)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  vm_saxpy<<<(n + threads - 1) / threads, threads>>>(3.0f, x, y, out, n);
  CHECK(cudaMemcpy(hout.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) // vm_scale == 2
    bad += std::fabs(hout[i] - (6.0f * hx[i] + hy[i])) > 1e-4f;

  vm_norm2<<<blocks, threads, threads * sizeof(float)>>>(x, part, n);
  CHECK(cudaMemcpy(hpart.data(), part, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  double norm = 0, want = 0;
  for (float p : hpart)
    norm += p;
  for (float v : hx)
    want += double(v) * v;
  bad += std::fabs(norm - want) > 1e-3 * want;

  vm_dot<<<blocks, threads, threads * sizeof(float)>>>(x, y, part, n);
  CHECK(cudaMemcpy(hpart.data(), part, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  double dot = 0, wantDot = 0;
  for (float p : hpart)
    dot += p;
  for (int i = 0; i < n; ++i)
    wantDot += double(hx[i]) * hy[i];
  bad += std::fabs(dot - wantDot) > 1e-3 * wantDot;

  std::printf("vecmath: %s (saxpy, norm2 = %.3f, dot = %.3f)\n", bad ? "FAILED" : "ok", norm, dot);
  return bad ? 1 : 0;
}
