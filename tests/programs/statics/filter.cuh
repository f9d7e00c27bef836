#pragma once
extern __constant__ float filterBias[2];
__device__ inline float clampUnit(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }
