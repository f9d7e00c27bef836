// Member with only a __host__ __device__ function: no kernel, no device variable, and no device code
// calls it, but host code does (its host copy), so the host linker takes this member and its static
// initializer calls __cudaRegisterLinkedBinary<id>.
__host__ __device__ int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
