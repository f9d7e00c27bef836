__device__ int helper2(int x) { return x + 7; }
__device__ int add3(int x) { return helper2(x) + 3; }
__global__ void kB(int *p) { p[0] = add3(p[1]); }
