// Declarations shared by the vecmath example's translation units.
//
// The point of the example is separate compilation: the kernels (kernels.cu) call device functions and
// read a device variable defined in other files (ops.cu, reduce.cu), so the PTX of each file has
// `.extern` references that only a linker (nvlink, or ptxlink at the PTX level) can resolve.
#pragma once

// ops.cu
extern __device__ float vm_scale;                 // .extern .global in kernels.ptx, defined in ops.ptx
extern __device__ unsigned int vm_calls;          // a counter updated atomically by several kernels
__device__ float vm_axpy(float a, float x, float y);
__device__ float vm_clamp(float x, float lo, float hi);

// reduce.cu
__device__ float vm_block_sum(float v);           // uses an `extern __shared__` scratch array
__device__ float vm_dot_partial(const float *x, const float *y, int n);

// A template instantiated (weakly: `.weak .func`) in every file that uses it; the linker keeps one copy.
template <typename T> __device__ __noinline__ T vm_square(T x) { return x * x; }

// kernels.cu
__global__ void vm_saxpy(float a, const float *x, const float *y, float *out, int n);
__global__ void vm_norm2(const float *x, float *partial, int n);
__global__ void vm_dot(const float *x, const float *y, float *partial, int n);
