# UsePtxlink.cmake: ptxlink as the device linker of a CMake project that was not written for it.
#
#   cmake -S . -B build -DCMAKE_PROJECT_INCLUDE=<prefix>/lib/cmake/ptxlink/UsePtxlink.cmake
#         [-DPTXLINK_OPTIONS="--sass;-j;8"]
#
# CMake includes this file after every project() call of the project, so no CMakeLists.txt needs an edit:
# it finds the package it is installed with and calls ptxlink_cuda_device_link() there, which links each
# CUDA_SEPARABLE_COMPILATION target for its own CUDA_ARCHITECTURES (set before or after this point).
# PTXLINK_OPTIONS: more ptxlink options, a CMake list.
find_package(ptxlink REQUIRED CONFIG PATHS "${CMAKE_CURRENT_LIST_DIR}" NO_DEFAULT_PATH)
ptxlink_cuda_device_link(OPTIONS ${PTXLINK_OPTIONS})
