// Module-scope variables in every state space with initializers: nested structs, arrays of structs,
// pointers to other variables (generic(x)), function pointers, strings, __constant__ tables, function-
// scope __shared__ arrays (hoisted to module scope by nvcc), __managed__ variables, static variables.
// NVCC: O3 -arch=sm_86
// NVCC: G -G -arch=sm_80

struct Inner { short s; char c[3]; double d; };
struct Outer {
  int id;
  Inner in[2];
  float f;
  int (*fn)(int);
  const int *ptr;
};

__device__ __noinline__ int gl_twice(int x) { return 2 * x; }
__device__ __noinline__ int gl_thrice(int x) { return 3 * x; }

__device__ int gl_int = 42;
__device__ int gl_arr[6] = {1, 2, 3, 4, 5, 6};
__device__ Outer gl_outer = {7, {{1, {'a', 'b', 'c'}, 1.5}, {-2, {'x', 0, 'z'}, -0.25}}, 3.25f, gl_twice, &gl_int};
__device__ Outer gl_outers[2] = {{1, {}, 0.f, gl_thrice, gl_arr + 2}, {2, {{3, {1, 2, 3}, 4.0}}, 1.f, nullptr, nullptr}};
__device__ int *gl_ptr = &gl_arr[3];
__device__ const char *gl_msg = "ptxlink corpus";
__device__ char gl_str[] = "hello";
__device__ unsigned long long gl_big = 0x123456789abcdef0ull;
__device__ double gl_dbl[3] = {1.0, -0.0, 6.02214076e23};
__device__ float gl_zero[1024];                       // large, zero-initialised
__device__ __managed__ int gl_managed = 5;            // .attribute(.managed)
static __device__ int gl_static = 9;

__constant__ float gl_coeffs[8] = {0.5f, 0.25f, 0.125f, 0.0625f, 1, 2, 4, 8};
__constant__ Outer gl_const_outer = {3, {{9, {1, 1, 1}, 2.0}, {8, {2, 2, 2}, 3.0}}, 0.5f, gl_twice, &gl_int};
__constant__ int gl_const_plain;

__global__ void gl_kernel(float *out, int n) {
  __shared__ float tile[32][33];
  __shared__ __align__(16) int counts[8];
  int t = threadIdx.x;
  if (t < 8)
    counts[t] = 0;
  tile[t % 32][t / 32] = gl_coeffs[t & 7] * gl_dbl[t % 3] + gl_zero[t];
  __syncthreads();
  atomicAdd(&counts[t & 7], 1);
  __syncthreads();
  const Outer &o = (t & 1) ? gl_outer : gl_const_outer;
  int v = o.fn ? o.fn(o.id) : 0;
  v += gl_outers[t & 1].ptr ? *gl_outers[t & 1].ptr : 0;
  out[t] = tile[t / 32][t % 32] + v + *gl_ptr + gl_msg[t % 14] + gl_str[t % 5] + float(gl_big & 0xff) +
           gl_managed + gl_static + counts[t & 7] + o.in[1].d + gl_const_plain;
  gl_zero[t] = out[t];
}
