// Device library member with device code only: extracted only because app.cu calls it.
__device__ float dev_only_helper(float v) { return v * 0.5f + 1.0f; }
