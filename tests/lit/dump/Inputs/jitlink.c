/* A small driver of NVIDIA's nvJitLink library (the linker of nvlink, as a library): links the files
   named on the command line for -arch=sm_90 (a name containing ".fatbin" is added as a fatbinary, any
   other as a cubin) and writes the linked cubin to the first argument. Exit 1 with nvJitLink's error log
   when an input is refused or the link fails. Used to show that a second NVIDIA reader takes ptxlink's
   compressed cubin images (compressed-cubin-nvlink.test).

   usage: jitlink OUT.cubin INPUT... */
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(nvJitLinkHandle Handle, const char *What) {
  size_t Size = 0;
  nvJitLinkGetErrorLogSize(Handle, &Size);
  char *Log = malloc(Size + 1);
  Log[0] = 0;
  if (Size)
    nvJitLinkGetErrorLog(Handle, Log);
  fprintf(stderr, "jitlink: %s failed\n%s\n", What, Log);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: jitlink OUT.cubin INPUT...\n");
    return 2;
  }
  nvJitLinkHandle Handle;
  const char *Options[] = {"-arch=sm_90"};
  if (nvJitLinkCreate(&Handle, 1, Options) != NVJITLINK_SUCCESS) {
    fprintf(stderr, "jitlink: nvJitLinkCreate failed\n");
    return 2;
  }
  for (int I = 2; I < argc; ++I) {
    nvJitLinkInputType Type = strstr(argv[I], ".fatbin") ? NVJITLINK_INPUT_FATBIN : NVJITLINK_INPUT_CUBIN;
    if (nvJitLinkAddFile(Handle, Type, argv[I]) != NVJITLINK_SUCCESS)
      return fail(Handle, argv[I]);
  }
  if (nvJitLinkComplete(Handle) != NVJITLINK_SUCCESS)
    return fail(Handle, "the link");
  size_t Size = 0;
  nvJitLinkGetLinkedCubinSize(Handle, &Size);
  char *Cubin = malloc(Size);
  nvJitLinkGetLinkedCubin(Handle, Cubin);
  FILE *Out = fopen(argv[1], "wb");
  if (!Out || fwrite(Cubin, 1, Size, Out) != Size || fclose(Out)) {
    fprintf(stderr, "jitlink: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
