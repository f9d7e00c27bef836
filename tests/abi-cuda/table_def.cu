// ABI test input: the definition of the array that table_user.cu declares with the wrong size.
__device__ int table[20];
