#include "../common.cuh"

__device__ Vec3 springForce(Vec3 a, Vec3 b, float k) {
  Vec3 d = b - a;
  float len = sqrtf(dot(d, d));
  float stretch = clampTo(len - g_params[5] - 1.0f, -10.0f, 10.0f);
  return (k * stretch / fmaxf(len, 1e-6f)) * d;
}
