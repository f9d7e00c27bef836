// Element-wise helpers and the example's global state; no kernels here, only code other files call.
#include "vecmath.cuh"

__device__ float vm_scale = 2.0f;
__device__ unsigned int vm_calls = 0;

__device__ __noinline__ float vm_clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }

__device__ __noinline__ float vm_axpy(float a, float x, float y) {
  atomicAdd(&vm_calls, 1u);
  return vm_clamp(a * vm_scale * x + y, -1e30f, 1e30f);
}

// Forces the weak template to be instantiated here too, so two objects define it.
__device__ float vm_ops_square_of_scale() { return vm_square(vm_scale); }
