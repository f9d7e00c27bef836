/* A stand-in for the CUDA runtime's registration entry points, so that the start-up code of a program
 * device-linked by ptxlink (or nvcc) can run on a machine without a GPU. Linked into the executable, its
 * definitions take precedence over libcudart.so's. It prints every call in order and checks what it is
 * given: the linked wrapper (magic, version 2, a fatbinary, the NULL-terminated list of the modules'
 * relocatable fatbinaries), one handle throughout, and that every kernel and variable a module registers
 * is defined under that name in a PTX image of the linked fatbinary (when it has PTX: nvcc's has SASS). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int magic; int version; const unsigned long long *data; void *filename_or_fatbins; } Wrapper;

static void *the_handle = (void *)0x1234;
static const char *ptx[16];
static int nptx;

static void find_ptx(const unsigned char *fatbin) {
  uint64_t size = *(const uint64_t *)(fatbin + 8);
  const unsigned char *p = fatbin + 16, *end = fatbin + 16 + size;
  while (p < end) {
    uint16_t kind = *(const uint16_t *)p;
    uint32_t header = *(const uint32_t *)(p + 4);
    uint64_t payload = *(const uint64_t *)(p + 8);
    uint32_t compressed = *(const uint32_t *)(p + 16);
    if (kind == 1 && compressed == 0 && nptx < 16)
      ptx[nptx++] = (const char *)(p + header);
    p += header + payload;
  }
}

/* Is name defined in every PTX image (as `.entry name(` or a variable `name;`/`name[`/`name =`)? */
static const char *check(const char *name, int kernel) {
  if (nptx == 0)
    return "";
  for (int i = 0; i < nptx; ++i) {
    int found = 0;
    size_t n = strlen(name);
    for (const char *s = strstr(ptx[i], name); s && !found; s = strstr(s + 1, name)) {
      char after = s[n], before = s[-1];
      if (before != ' ')
        continue;
      if (kernel ? (after == '(' && s >= ptx[i] + 7 && !strncmp(s - 7, ".entry ", 7))
                 : (after == ';' || after == '[' || after == ' '))
        found = 1;
    }
    if (!found)
      return " MISSING-IN-PTX";
  }
  return " in-ptx";
}

void **__cudaRegisterFatBinary(void *fatCubin) {
  const Wrapper *w = (const Wrapper *)fatCubin;
  const unsigned char *data = (const unsigned char *)w->data;
  int fatbin_ok = *(const uint32_t *)data == 0xBA55ED50u;
  if (fatbin_ok && w->version == 2)
    find_ptx(data);
  int prelinked = 0, prelinked_ok = 1;
  if (w->version == 2 && w->filename_or_fatbins)
    for (void **l = (void **)w->filename_or_fatbins; *l; ++l, ++prelinked)
      prelinked_ok &= *(const uint32_t *)*l == 0xBA55ED50u;
  printf("registerFatBinary magic=0x%x version=%d fatbin=%s prelinked=%d%s ptx-images=%d\n", (unsigned)w->magic,
         w->version, fatbin_ok ? "ok" : "BAD", prelinked, prelinked_ok ? "" : " BAD-PRELINKED", nptx);
  return (void **)the_handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) {
  printf("registerFatBinaryEnd%s\n", handle == the_handle ? "" : " WRONG-HANDLE");
}

void __cudaUnregisterFatBinary(void **handle) {
  printf("unregisterFatBinary%s\n", handle == the_handle ? "" : " WRONG-HANDLE");
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName, int threadLimit,
                            void *tid, void *bid, void *bDim, void *gDim, int *wSize) {
  printf("function %s%s%s\n", deviceName, check(deviceName, 1), handle == the_handle ? "" : " WRONG-HANDLE");
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName, int ext, size_t size,
                       int constant, int global) {
  printf("variable %s%s%s\n", deviceName, check(deviceName, 0), handle == the_handle ? "" : " WRONG-HANDLE");
}

void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress, const char *deviceName,
                              int ext, size_t size, int constant, int global) {
  printf("managed %s%s\n", deviceName, check(deviceName, 0));
}

char __cudaInitModule(void **handle) { return 1; }

int main(void) {
  printf("main\n");
  return 0;
}
