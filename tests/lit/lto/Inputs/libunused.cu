// A device library member nothing needs: left out of the link.
__device__ float lib_unused(float a) { return a * a * a; }
