// Compiled to PTX (nvcc -rdc=true -ptx) for sass-input-cubin.test: calls into the cubin (twice, counter),
// defines what the cubin calls (addone, used by nothing else here), and shares a weak template instance.
extern __device__ int twice(int);
extern __device__ int counter;
template <typename T> __device__ __noinline__ T tmax(T a, T b) { return a > b ? a : b; }
__device__ __noinline__ int addone(int x) { return x + 1 + counter; }
__global__ void kb(int *p) { p[0] = twice(p[1]) + tmax(p[2], 4); }
