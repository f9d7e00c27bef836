// The driver-API route to a ptxlink fatbinary: no registration code, no device-link object. The program
// reads the fatbinary ptxlink wrote, loads it with cuModuleLoadData (the driver JIT-compiles the PTX image
// for this GPU), looks the kernel up by name and launches it.
//   usage: loader app.fatbin
#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

static bool check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *msg = nullptr;
  cuGetErrorString(r, &msg);
  std::fprintf(stderr, "%s: %s\n", what, msg ? msg : "unknown error");
  return false;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s app.fatbin\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> fatbin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (fatbin.empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  if (!check(cuInit(0), "cuInit (is there a GPU?)"))
    return 3;
  CUdevice dev;
  CUcontext ctx;
  CUmodule module;
  CUfunction kernel;
  if (!check(cuDeviceGet(&dev, 0), "cuDeviceGet") || !check(cuCtxCreate(&ctx, nullptr, 0, dev), "cuCtxCreate") ||
      !check(cuModuleLoadData(&module, fatbin.data()), "cuModuleLoadData") ||
      !check(cuModuleGetFunction(&kernel, module, "scale_all"), "cuModuleGetFunction"))
    return 1;
  const int n = 1024;
  std::vector<float> host(n, 2.0f);
  CUdeviceptr data;
  if (!check(cuMemAlloc(&data, n * sizeof(float)), "cuMemAlloc") ||
      !check(cuMemcpyHtoD(data, host.data(), n * sizeof(float)), "cuMemcpyHtoD"))
    return 1;
  int count = n;
  void *params[] = {&data, &count};
  if (!check(cuLaunchKernel(kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel") ||
      !check(cuMemcpyDtoH(host.data(), data, n * sizeof(float)), "cuMemcpyDtoH"))
    return 1;
  int bad = 0;
  for (float v : host)
    bad += v != 6.0f;
  std::printf("%s: %d of %d values wrong\n", bad ? "FAILED" : "ok", bad, n);
  cuMemFree(data);
  cuModuleUnload(module);
  cuCtxDestroy(ctx);
  return bad ? 1 : 0;
}
