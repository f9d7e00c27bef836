// Dynamic parallelism: a parent kernel launching a child kernel defined in another file.
__global__ void child(int *p);
__global__ void parent(int *p) {
  if (threadIdx.x == 0)
    child<<<1, 32>>>(p);
}
