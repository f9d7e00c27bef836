// -ewp (extensible whole program): nvcc makes a relocatable object (__nv_relfatbin) whose cubins are
// ELF type 0xff00 compiled by ptxas -ewp (not -c); nvcc's implicit device link (nvlink) links them.
#include <cstdio>
__device__ int counter;
__global__ void k(int *out) { out[threadIdx.x] = atomicAdd(&counter, 1); }
int main() {
  int *d; cudaMalloc(&d, 32 * sizeof(int));
  k<<<1, 32>>>(d);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
