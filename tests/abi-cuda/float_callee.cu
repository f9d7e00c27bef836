// ABI test input: defines `float f2(float)`; int_caller.cu declares `int f2(int)`: the same .b32-sized
// parameter, so only the PTX type (.f32 vs .b32) or debug information can tell.
extern "C" __device__ float f2(float x) { return x * 0.5f; }
