// Device code of the driver-API example, in two files linked by ptxlink: the kernel calls a device
// function defined in helpers.cu. extern "C" keeps the kernel's name unmangled for cuModuleGetFunction.
extern __device__ float scale_by(float x);
extern "C" __global__ void scale_all(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = scale_by(data[i]);
}
