// Host code calling the host copy of printer.cu's __host__ __device__ function and kernels.cu's launcher.
int clamp_index(int i, int n);
void launch_scale(float *p);
int main(int argc, char **) {
  if (argc > 5)
    launch_scale(nullptr);
  return clamp_index(argc, 4) == 1 ? 0 : 1;
}
