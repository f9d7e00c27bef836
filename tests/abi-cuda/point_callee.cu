// ABI test input: defines norm1(Point); compiled with -DPOINT_V2 the struct is 12 bytes.
#include "point.h"
__device__ float norm1(Point p) {
  float s = p.x + p.y;
#ifdef POINT_V2
  s += p.z;
#endif
  return s;
}
