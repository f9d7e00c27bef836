// LTO-IR: the kernel, calling the other LTO object's function.
__device__ float scaled_offset(float x, float k);
__global__ void apply_k(float *v, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = scaled_offset(v[i], k);
}
