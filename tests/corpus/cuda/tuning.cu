// Kernel tuning and cluster directives: __launch_bounds__ (.maxntid, .minnctapersm, .maxclusterrank),
// __maxnreg__ (.maxnreg), __cluster_dims__ (.reqnctapercluster / .explicitcluster, sm_90+),
// `#pragma unroll 1` (.pragma "nounroll"), and arch-specific targets (sm_90a, sm_100f).
// NVCC: sm90 -arch=sm_90
// NVCC: sm90a -arch=sm_90a
// NVCC: sm100f -arch=sm_100f

__global__ void __launch_bounds__(128) tu_maxntid(float *p) { p[threadIdx.x] *= 2.f; }
__global__ void __launch_bounds__(256, 4) tu_minblocks(float *p) { p[threadIdx.x] += 1.f; }
__global__ void __launch_bounds__(128, 2, 4) tu_cluster_rank(float *p) { p[threadIdx.x] -= 1.f; }
__global__ void __maxnreg__(40) tu_maxnreg(float *p, int n) {
  float acc = 0.f;
#pragma unroll 1
  for (int i = 0; i < n; ++i)
    acc += p[i] * p[n - i - 1];
  p[threadIdx.x] = acc;
}
__global__ void __cluster_dims__(2, 1, 1) tu_cluster(float *p) {
  __shared__ float s[64];
  s[threadIdx.x & 63] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[(threadIdx.x + 1) & 63];
}
__global__ void __cluster_dims__(2, 2, 1) __launch_bounds__(64) tu_cluster_bounds(int *p) { p[threadIdx.x] = blockIdx.y; }

__device__ __noinline__ int tu_unrolled(const int *p, int n) {
  int s = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i)
    s ^= p[i] << (i & 7);
  return s;
}
__global__ void tu_plain(int *p, int n) { p[0] = tu_unrolled(p, n); }
