#include "../common.cuh"

__device__ Vec3 dragForce(Vec3 v, float c) {
  float speed = sqrtf(dot(v, v));
  return (-c * clampTo(speed, 0.0f, 100.0f)) * v;
}

// Not used by the program: dropped by the link.
__device__ float unusedDrag(float v) { return smoothMax<float, 8>(&v, 1); }
