#include "tmpl.cuh"
// A file-local helper with the same name as vec.cu's: the linked PTX renames one, nvlink keeps both.
static __device__ int helper(int x) { return x + 1; }
__global__ void k_main(int *p) { p[0] = twice(helper(p[0])); }
void run_main(int *p) { k_main<<<1, 1>>>(p); scale<<<1, 32>>>(p, 2); }
