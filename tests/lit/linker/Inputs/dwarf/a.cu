extern __device__ int add3(int);
__device__ int helper(int x) { return x * 2; }
__global__ void kA(int *p) { p[0] = add3(p[1]) + helper(p[2]); }
