// A kernel calling a device function that a .ptx file defines.
extern "C" __device__ float ptx_twice(float x);
__global__ void twice_k(float *p) { p[threadIdx.x] = ptx_twice(p[threadIdx.x]); }
