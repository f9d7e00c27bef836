// ABI test input: calls norm1(Point) with the layout of point.h as compiled here (old: 8 bytes).
#include "point.h"
__global__ void use_norm1(Point *in, float *out) { out[0] = norm1(in[0]); }
