// Device functions and variables used by other files, a static kernel, a host launcher.
#include "util.cuh"
__device__ int g_count = 0;
__constant__ float c_coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ float scale_add(float a, float b) { return a * c_coeffs[0] + b; }
static __global__ void init_k(float *p, int n) { // static: the same name as app.cu's
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = clamp_to<float>(float(i), 0.0f, 50.0f);
}
void vec_init(float *p, int n) { init_k<<<(n + 127) / 128, 128>>>(p, n); }
