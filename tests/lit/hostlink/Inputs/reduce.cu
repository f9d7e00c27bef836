// Device library member with a kernel (host code can launch it) and a device function.
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__global__ void reduce_k(const float *in, float *out, int n) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += 32) s += in[i];
  s = warp_sum(s);
  if (threadIdx.x == 0) *out = s;
}
void reduce_launch(const float *in, float *out, int n) { reduce_k<<<1, 32>>>(in, out, n); }
