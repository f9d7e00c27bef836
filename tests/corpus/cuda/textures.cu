// Texture and surface objects (cudaTextureObject_t / cudaSurfaceObject_t passed as .u64 kernel
// parameters and used by tex/tld4/suld/sust), plus line info (.file/.loc without -G).
// NVCC: lineinfo -lineinfo -arch=sm_80
// NVCC: sm120 -arch=sm_120

__device__ __noinline__ float4 tx_sample(cudaTextureObject_t t, float u, float v) { return tex2D<float4>(t, u, v); }

__global__ void tx_kernel(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                          cudaSurfaceObject_t surf, float *out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  float a = tex1Dfetch<float>(t1, x);
  float4 b = tx_sample(t2, x + 0.5f, y + 0.5f);
  float c = tex2DLod<float>(t3, x, y, 1.0f);
  float4 g = tex2Dgather<float4>(t2, x + 0.5f, y + 0.5f, 0);
  float d = tex3D<float>(t3, x, y, 0.5f);
  float s;
  surf2Dread(&s, surf, x * 4, y);
  surf2Dwrite(a + b.x + c + g.w + d + s, surf, x * 4, y);
  out[y * w + x] = a + b.y + s;
}
