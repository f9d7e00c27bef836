// The callee side of tests/gpu/xmodule: small functions, the kind a whole-program compile inlines.
#include "ops.cuh"
__constant__ float c_weights[4];
__device__ float step(float x, int i) {
  float w = c_weights[i & 3];
  return fmaf(x, w, 0.25f * (float)(i & 7)) * 0.5f;
}
__device__ float blend(float a, float b, float t) { return fmaf(t, b - a, a); }
