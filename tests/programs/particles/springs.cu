#include "common.cuh"

namespace {
// Anonymous-namespace kernel: module-local like a static one.
__global__ void springKernel(const Vec3 *pos, Vec3 *force, const int2 *pairs, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m)
    return;
  int2 p = pairs[j];
  Vec3 f = springForce(pos[p.x], pos[p.y], g_params[3]);
  atomicAdd(&force[p.x].x, f.x);
  atomicAdd(&force[p.y].x, -f.x);
}
} // namespace

__global__ void springPeak(const float *lengths, float *out, const int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = smoothMax<float, 8>(lengths + i * 8, counts[i]) + reduceWarp(lengths[i]);
  if (i < n)
    out[i] += kineticEnergy(Vec3{lengths[i], 0, 0}, 1.0f);
}

__global__ void springCount(const int *counts, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = smoothMax<int, 8>(counts + i, n - i) + reduceWarp(counts[i]);
}

void launchSprings(const Vec3 *pos, Vec3 *force, const int2 *pairs, int m) {
  springKernel<<<(m + 127) / 128, 128>>>(pos, force, pairs, m);
}
