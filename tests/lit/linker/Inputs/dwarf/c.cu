__device__ int scale = 3;
static __device__ int twice(int x) { return 2 * x; }
__device__ int helperC(int x) { return twice(x) * scale; }
__global__ void kC(int *p) { p[0] = helperC(p[1]); }
