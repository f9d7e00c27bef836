#include "common.cuh"

// File-local kernel: nvcc names it __nv_static_<id>_... and writes it without .visible.
static __global__ void zeroForces(Vec3 *force, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    force[i] = {0, 0, 0};
}

__global__ void integrateKernel(Vec3 *pos, Vec3 *vel, const Vec3 *force, const float *mass, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float dt = g_params[0];
  Vec3 a = (1.0f / mass[i]) * (force[i] + dragForce(vel[i], g_params[2]));
  a.y -= g_params[1];
  vel[i] = vel[i] + dt * a;
  pos[i] = pos[i] + dt * vel[i];
  pos[i].y = clampTo(pos[i].y, 0.0f, 100.0f);
  if (i == 0)
    atomicAdd(&g_steps, 1ull);
}

__global__ void peakKernel(const float *speeds, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 8 < n)
    out[i] = smoothMax<float, 8>(speeds + i * 8, n - i * 8);
}

void launchIntegrate(Vec3 *pos, Vec3 *vel, Vec3 *force, const float *mass, int n) {
  zeroForces<<<(n + 255) / 256, 256>>>(force, n);
  integrateKernel<<<(n + 255) / 256, 256>>>(pos, vel, force, mass, n);
}
