// Shared declarations of the LTO test program: device functions and a constant table defined in other
// files, and a template every kernel file instantiates.
#pragma once
__device__ float scale(float x);
__device__ float shift(float x);
__device__ float lib_mix(float a, float b); // from the device library (libdev.a)
extern __constant__ float coef[4];

template <typename T> __device__ T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }
