// Member with only a device function nothing calls.
__device__ float never_called(float x) { return x * 3.0f; }
