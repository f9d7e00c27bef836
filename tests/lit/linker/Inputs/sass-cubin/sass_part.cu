// Compiled to a relocatable cubin (nvcc -cubin -rdc=true) for sass-input-cubin.test: it defines a function,
// a variable, a kernel and a weak template instance that the PTX module uses too, and calls a function
// only the PTX module defines.
extern __device__ int addone(int);
__device__ int counter;
__device__ __noinline__ int twice(int x) { return 2 * x + counter; }
template <typename T> __device__ __noinline__ T tmax(T a, T b) { return a > b ? a : b; }
__global__ void ka(int *p) { p[threadIdx.x] = addone(twice(p[threadIdx.x])) + tmax(p[0], 3); }
