// Shared header of the "particles" test program: inline and template device code that every
// translation unit includes, so every module carries its own weak copy of what it uses.
#pragma once
#include <cstdint>

struct Vec3 {
  float x, y, z;
};

__device__ inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
__device__ inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
__device__ inline Vec3 operator*(float s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
__device__ inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

template <typename T> __device__ T clampTo(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A loop with branches and a local array: labels, a local depot and call sequences in every copy.
template <typename T, int N> __device__ __noinline__ T smoothMax(const T *values, int count) {
  T window[N];
  for (int i = 0; i < N; ++i)
    window[i] = i < count ? values[i] : T(0);
  T best = window[0];
  for (int i = 1; i < N; ++i) {
    if (window[i] > best)
      best = window[i];
    else if (window[i] < -best)
      best = -window[i];
  }
  return clampTo<T>(best, T(-1000), T(1000));
}

template <typename T> __device__ __noinline__ T reduceWarp(T v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __noinline__ inline float kineticEnergy(Vec3 velocity, float mass) {
  float e = 0.5f * mass * dot(velocity, velocity);
  return clampTo(e, 0.0f, 1.0e6f);
}

// Simulation parameters, defined in params.cu and shared by every file through `extern`.
constexpr int kNumParams = 8;
extern __constant__ float g_params[kNumParams];
extern __device__ unsigned long long g_steps;

// The device library (libforce.a: force_a.cu, force_b.cu).
__device__ Vec3 springForce(Vec3 a, Vec3 b, float k);
__device__ Vec3 dragForce(Vec3 v, float c);
