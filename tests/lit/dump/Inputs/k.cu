__device__ int counter;
__device__ __noinline__ int add1(int x) { return x + counter; }
__global__ void kern(int *p, float a, double b, char c) { p[0] = add1(c) + (int)a + (int)b; }
int main() { return 0; }
