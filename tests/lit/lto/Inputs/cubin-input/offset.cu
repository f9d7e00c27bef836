// LTO-IR: calls the cubin's function, and is itself inlined into the kernel by nvJitLink.
__device__ float scale_by(float x, float k);
__device__ float scaled_offset(float x, float k) { return scale_by(x, k) + 2.0f; }
