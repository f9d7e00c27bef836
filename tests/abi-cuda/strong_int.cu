// ABI test input: the strong `int f3(int)` that wins over weak_float.cu's `float f3(float)`.
extern "C" __device__ int f3(int x) { return x + 1; }
