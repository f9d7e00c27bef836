// A self-contained kernel, compiled without -rdc=true into an executable cubin for sass-input-cubin.test.
__global__ void kwhole(int *p) { p[threadIdx.x] += 1; }
