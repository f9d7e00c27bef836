template <int N> __device__ int scaleT(int x) { return x * N; }
__global__ void kT1(int *p) { p[0] = scaleT<3>(p[1]); }
