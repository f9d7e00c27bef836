// One source compiled twice into one program with different -DFILTER_SCALE: its file-static and
// anonymous-namespace kernels and its static __device__ variable get the same __nv_static_ names in
// both modules, module-local in each (ptxas -c makes them local symbols; nvlink keeps both copies).
#include "filter.cuh"

static __device__ unsigned int launches;

static __device__ float scaleOf(float v) { return v * FILTER_SCALE + filterBias[0]; }

static __global__ void scaleKernel(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = scaleOf(data[i]);
  if (i == 0)
    atomicAdd(&launches, 1u);
}

namespace {
__global__ void clampKernel(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = clampUnit(data[i] * FILTER_SCALE);
}
} // namespace

void runFilter(float *data, int n) {
  scaleKernel<<<(n + 255) / 256, 256>>>(data, n);
  clampKernel<<<(n + 255) / 256, 256>>>(data, n);
}
