#include "filter.cuh"

__constant__ float filterBias[2] = {0.25f, 0.5f};

__global__ void biasKernel(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = clampUnit(data[i] + filterBias[1]);
}
