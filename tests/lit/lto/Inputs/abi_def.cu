// ...that this file defines with double parameters: an ABI mistake no C++ mangling catches.
extern "C" __device__ double blend(double x, double y) { return x * 0.5 + y; }
