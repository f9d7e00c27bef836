// What the first touch of fresh memory costs, in huge pages and in 4 KB pages.
//
// The problem: a link's heap is memory the process touches for the first time, and the kernel zeroes each
// page then. With transparent huge pages (prepareToolHeap marks the heap) that is 2 MB at once, cheap per
// byte when the memory is warm, but in a VM that gives freed huge-page-sized blocks back to its host the
// host must back such a page again first. This program maps N MB, marks it (or marks it not) for huge
// pages, writes one byte per 4 KB page and prints the time per 2 MB. Run it twice in a row, and after a
// pause: the difference between the runs is the difference between warm and cold memory
// (docs/performance.md, "Seventh pass").
//
// Usage: cc -O2 bench/first_touch.c -o first_touch && ./first_touch MB HUGE   (HUGE: 1 huge pages, 0 not)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MB HUGE\n", argv[0]);
    return 1;
  }
  const size_t HugePage = (size_t)2 << 20;
  size_t Bytes = (size_t)atol(argv[1]) << 20;
  int Huge = atoi(argv[2]);
  char *Map = mmap(NULL, Bytes + HugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (Map == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  char *P = (char *)(((uintptr_t)Map + HugePage - 1) & ~(uintptr_t)(HugePage - 1)); // 2 MB aligned
  madvise(P, Bytes, Huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  struct timespec A, B;
  clock_gettime(CLOCK_MONOTONIC, &A);
  for (size_t I = 0; I < Bytes; I += 4096)
    P[I] = 1;
  clock_gettime(CLOCK_MONOTONIC, &B);
  double Ms = (B.tv_sec - A.tv_sec) * 1e3 + (B.tv_nsec - A.tv_nsec) / 1e6;
  printf("%zu MB, %s: %.1f ms, %.3f ms per 2 MB\n", Bytes >> 20, Huge ? "huge pages" : "4 KB pages", Ms,
         Ms / ((double)Bytes / HugePage));
  return 0;
}
