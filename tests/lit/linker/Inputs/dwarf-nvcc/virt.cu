// Virtual functions: nvcc gives the destructors it generates labels ($L__func_endN) that no debug entry
// names, with the numbers another module's debug info uses for its own labels.
struct Shape {
  __device__ virtual float area() const { return 0; }
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __device__ Square(float s) : s(s) {}
  __device__ float area() const override { return s * s; }
};
__global__ void kVirt(float *out) {
  Shape *p = new Square(out[0]);
  out[1] = p->area();
  delete p;
}
