__global__ void k(int **p) { cudaMalloc((void **)p, 16); cudaFree(*p); }
