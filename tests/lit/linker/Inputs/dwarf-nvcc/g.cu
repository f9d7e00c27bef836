// Only a variable: linked first, its compile unit and abbreviation table come before every other one.
__device__ int g;
