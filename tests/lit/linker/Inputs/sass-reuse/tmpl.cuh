// A template kernel every file instantiates: nvcc writes a .weak copy into each module.
template <typename T> __global__ void scale(T *p, T f) { p[threadIdx.x] *= f; }
__device__ int twice(int x);
