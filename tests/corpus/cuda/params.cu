// Parameter and return forms of .entry and .func: scalars of every width, vectors (float4, int2,
// double2), structs passed by value (`.param .align N .b8 x[K]`), arrays inside structs, aggregate
// returns (`.param .align 16 .b8 func_retval0[16]`), __grid_constant__ kernel parameters and a
// function that never returns (`.noreturn`).
// NVCC: O3 -arch=sm_80
// NVCC: G -G -arch=sm_80
#include <cstdint>

struct __align__(16) Vec3 { float x, y, z; };
struct Big { int a[5]; double d; };
struct Pair { float f; int i; };
struct Bytes { unsigned char b[7]; };

__device__ __noinline__ Vec3 pf_make_vec(float a, float b, float c) { return Vec3{a, b, c}; }
__device__ __noinline__ float4 pf_scale4(float4 v, float s) { return make_float4(v.x * s, v.y * s, v.z * s, v.w * s); }
__device__ __noinline__ double2 pf_swap2(double2 v) { return make_double2(v.y, v.x); }
__device__ __noinline__ double pf_sum_big(Big b) {
  double s = b.d;
  for (int i = 0; i < 5; ++i)
    s += b.a[i];
  return s;
}
__device__ __noinline__ Pair pf_swap_pair(Pair p) { return Pair{float(p.i), int(p.f)}; }
__device__ __noinline__ Bytes pf_rev(Bytes b) {
  Bytes r;
  for (int i = 0; i < 7; ++i)
    r.b[i] = b.b[6 - i];
  return r;
}
__device__ __noinline__ int8_t pf_narrow(int8_t a, uint16_t b, bool c, int64_t d) { return c ? a + b : int8_t(d); }
__device__ __noinline__ void pf_nothing() {}

// [[noreturn]] + __trap(): nvcc marks the definition and every call site's prototype .noreturn.
[[noreturn]] __device__ __noinline__ void pf_fail(int code) {
  printf("fatal %d\n", code);
  __trap();
}

__global__ void pf_kernel(float4 v, Big b, Vec3 c, int2 i2, double2 d2, char c1, short s1, bool b1,
                          const float *__restrict__ in, float *out, __grid_constant__ const Big g) {
  if (c1 == 0 && s1 < 0)
    pf_fail(s1);
  Vec3 m = pf_make_vec(c.x, c.y, float(i2.x + i2.y));
  float4 w = pf_scale4(v, in[threadIdx.x]);
  double2 e = pf_swap2(d2);
  Pair p = pf_swap_pair(Pair{m.z, b1});
  Bytes bb = pf_rev(Bytes{{1, 2, 3, 4, 5, 6, 7}});
  pf_nothing();
  out[threadIdx.x] = m.x + w.y + float(e.x + pf_sum_big(b) + g.a[threadIdx.x % 5]) + p.f + bb.b[3] +
                     pf_narrow(c1, s1, b1, g.d);
}

// A kernel without parameters and one with only a pointer.
__global__ void pf_empty() {}
__global__ void pf_ptr(int *p) { *p = 1; }
