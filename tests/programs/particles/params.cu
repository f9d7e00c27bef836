#include "common.cuh"

__constant__ float g_params[kNumParams] = {0.01f, 9.81f, 0.5f, 1.0f, 0.1f, 0.0f, 0.0f, 0.0f};
__device__ unsigned long long g_steps;
__device__ float g_energy[4];

__global__ void energyKernel(const Vec3 *velocity, const float *mass, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float e = i < n ? kineticEnergy(velocity[i], mass[i]) : 0.0f;
  e = reduceWarp(e);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(&g_energy[blockIdx.x & 3], e);
}
