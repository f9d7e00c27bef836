#include "common.cuh"
#include <curand_kernel.h>

__device__ curandStatePhilox4_32_10_t *g_rngStates;

__global__ void seedKernel(curandStatePhilox4_32_10_t *states, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    curand_init(seed, i, 0, &states[i]);
  if (i == 0)
    g_rngStates = states;
}

__global__ void jitterKernel(Vec3 *vel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  curandStatePhilox4_32_10_t local = g_rngStates[i];
  float4 r = curand_normal4(&local);
  vel[i] = vel[i] + g_params[4] * Vec3{r.x, r.y, r.z};
  vel[i].x = clampTo(vel[i].x, -50.0f, 50.0f);
  g_rngStates[i] = local;
}
