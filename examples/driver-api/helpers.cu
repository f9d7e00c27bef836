// A device function and a device variable that scale.cu uses: separate compilation needs a device link.
__device__ float factor = 3.0f;
__device__ float scale_by(float x) { return x * factor; }
