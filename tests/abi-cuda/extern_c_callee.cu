// ABI test input: the definition that extern_c_caller.cu declares differently.
extern "C" __device__ long f(long x, int y) { return x * 3 + y; }
