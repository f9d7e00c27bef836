__global__ void child(int *p) { p[threadIdx.x] += 1; }
