// A file-local kernel: two objects compiled from this file have one of the same name, which the linked
// PTX renames.
static __global__ void k_local(int *p) { p[2] = 7; }
void run_local(int *p) { k_local<<<1, 1>>>(p); }
