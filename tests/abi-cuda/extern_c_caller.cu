// ABI test input: calls an extern "C" device function declared `int f(int)`; extern_c_callee.cu defines
// it as `long f(long, int)` (the mismatch of issue "link-time ABI mismatch diagnosis").
extern "C" __device__ int f(int x);

extern "C" __global__ void use_f(int *out) { out[0] = f(out[1]); }
