#include <cstdio>
typedef float (*fn_t)(float);
extern __device__ float twice(float);
__device__ fn_t d_twice = twice;
__global__ void apply(float *v, fn_t f) { v[threadIdx.x] = f(v[threadIdx.x]); }
int main() { fn_t h; cudaMemcpyFromSymbol(&h, d_twice, sizeof h); float *v; cudaMalloc(&v, 128); apply<<<1,32>>>(v, h); cudaDeviceSynchronize(); printf("ok\n"); return 0; }
