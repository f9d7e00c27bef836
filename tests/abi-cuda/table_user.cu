// ABI test input: declares the extern array with 10 elements; table_def.cu defines 20.
extern __device__ int table[10];
extern "C" __global__ void read_table(int *out) { out[threadIdx.x] = table[threadIdx.x]; }
