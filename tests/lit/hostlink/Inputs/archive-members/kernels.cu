// Member with a kernel: linked by every device link (its launch stub is host-reachable).
__global__ void scale(float *p, float f) { p[threadIdx.x] *= f; }
void launch_scale(float *p) { scale<<<1, 32>>>(p, 2.0f); }
