// Device functions defined in ops.cu and called from main.cu's kernels: across a translation unit
// boundary, so a per-module compiler (nvcc -rdc with nvlink) must emit a real call for each use.
#pragma once
__device__ float step(float x, int i);
__device__ float blend(float a, float b, float t);
extern __constant__ float c_weights[4];
