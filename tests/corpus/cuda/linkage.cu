// Linkage across translation units: weak template instantiations (.weak .func / .weak .entry),
// .extern functions and variables (incl. unsized arrays and extern __shared__ arrays), extern
// __constant__, file-local (static) symbols, function pointers, a call table and indirect calls
// (.callprototype).
// NVCC: O3 -arch=sm_80
// NVCC: G -G -arch=sm_75

template <typename T> __device__ __noinline__ T lk_max(T a, T b) { return a > b ? a : b; }
template __device__ int lk_max<int>(int, int);        // explicit instantiation: weak_odr
template <int N> __global__ void lk_fill(int *p) {    // template kernel: .weak .entry
  p[threadIdx.x] = N + lk_max<int>(threadIdx.x, N);
}
template __global__ void lk_fill<3>(int *);
template __global__ void lk_fill<7>(int *);

extern __device__ int lk_ext_counter;                 // .extern .global .align 4 .u32
extern __device__ float lk_ext_table[];               // .extern .global .align 4 .b8 lk_ext_table[]
extern __constant__ float lk_ext_coeffs[4];           // .extern .const
extern __device__ int lk_ext_func(int);               // .extern .func
extern __device__ double lk_ext_func2(double, const float *);
extern __shared__ float lk_dyn_smem[];                // .extern .shared .align 4 .b8 lk_dyn_smem[]
extern __shared__ __align__(16) double lk_dyn_smem2[];

static __device__ __noinline__ int lk_local_add(int a, int b) { return a + b; } // no linkage directive
__device__ __noinline__ int lk_sub(int a, int b) { return a - b; }
__device__ __noinline__ int lk_mul(int a, int b) { return a * b; }
static __device__ int lk_static_var = 11;

typedef int (*lk_binop)(int, int);
__device__ lk_binop lk_table[4] = {lk_local_add, lk_sub, lk_mul, lk_max<int>}; // call table
__device__ lk_binop lk_current = lk_sub;

__device__ __noinline__ int lk_apply(int op, int a, int b) { return lk_table[op & 3](a, b); }
__device__ __noinline__ float lk_apply_f(float (*fn)(float, double), float x) { return fn(x, 2.0); }
__device__ __noinline__ float lk_half(float x, double y) { return float(x / y); }

__global__ void lk_kernel(int *out, const float *in, int op) {
  int v = lk_apply(op, threadIdx.x, lk_ext_counter) + lk_current(1, 2);
  lk_dyn_smem[threadIdx.x] = in[threadIdx.x] * lk_ext_coeffs[threadIdx.x & 3];
  __syncthreads();
  v += lk_ext_func(v) + int(lk_ext_func2(lk_dyn_smem[threadIdx.x ^ 1], lk_ext_table));
  v += int(lk_apply_f(lk_half, lk_ext_table[threadIdx.x])) + lk_max<float>(1.f, in[0]) + lk_static_var;
  atomicAdd(&lk_ext_counter, v);
  out[threadIdx.x] = v;
}

__global__ void lk_kernel2(double *out) {
  lk_dyn_smem2[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = lk_dyn_smem2[threadIdx.x ^ 3] + lk_max<double>(1.0, out[0]);
}
