// ABI test input: declares `int f2(int)`, which float_callee.cu defines as `float f2(float)`.
extern "C" __device__ int f2(int x);
extern "C" __global__ void use_f2(int *out) { out[0] = f2(out[1]); }
