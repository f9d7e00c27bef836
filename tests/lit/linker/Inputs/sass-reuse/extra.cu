#include "tmpl.cuh"
__global__ void k_extra(int *p) { p[1] = twice(p[1]); }
void run_extra(int *p) { k_extra<<<1, 1>>>(p); scale<<<1, 32>>>(p, 4); }
