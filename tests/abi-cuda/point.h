// ABI test input: a struct passed by value whose layout changed between two builds (-DPOINT_V2 adds a
// field), so callers built against the old layout pass 8 bytes where the callee reads 12.
#pragma once
struct Point {
  float x, y;
#ifdef POINT_V2
  float z;
#endif
};
__device__ float norm1(Point p);
