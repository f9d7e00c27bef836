// Device library member that nothing refers to: not part of the device link.
__device__ float never_called(float v) { return v - 3.0f; }
