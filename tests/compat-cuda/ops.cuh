// A small multi-file CUDA program for the compatibility tests (tests/lit/linker/compat-*.test): a device
// library with a table of function pointers (indirect calls), a template from a shared header, a static
// kernel, and a device function nothing calls (dropped by dead-code removal).
#pragma once

typedef float (*unary_fn)(float);

template <typename T> __device__ inline T clampv(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }

extern __device__ float apply_op(int op, float x);
extern __device__ float mean(const float *p, int n);
