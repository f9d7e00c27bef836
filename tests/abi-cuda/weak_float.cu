// ABI test input: a weak `float f3(float)`; strong_int.cu defines `int f3(int)`. Both are `.b32` in PTX, so
// only the debug information (-G) of the two definitions tells them apart.
extern "C" __device__ __attribute__((weak)) float f3(float x) { return x * 0.5f; }
extern "C" __global__ void use_f3(float *out) { out[0] = f3(out[1]); }
