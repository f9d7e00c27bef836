// A device library member (nvcc -lib): device functions only, extracted for lib_mix.
__device__ float lib_mix(float a, float b) { return a * 0.25f + b * 0.75f; }
