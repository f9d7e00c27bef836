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

# FindCUDA (find_package(CUDA), cuda_add_library/cuda_add_executable with CUDA_SEPARABLE_COMPILATION)
# device-links each target with its own `nvcc -dlink` command, which no rule of CMake's CUDA language
# reaches: such a build keeps nvcc's device link. Said once, at the end of configuration, rather than
# left for the user to find in the build's command lines (docs/host-link.md, "CMake").
get_property(_ptxlink_findcuda_check GLOBAL PROPERTY PTXLINK_FINDCUDA_CHECK)
if(NOT _ptxlink_findcuda_check AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  set_property(GLOBAL PROPERTY PTXLINK_FINDCUDA_CHECK ON)
  function(_ptxlink_warn_findcuda)
    if(NOT DEFINED CUDA_NVCC_EXECUTABLE)
      return()
    endif()
    set(_dirs "${CMAKE_SOURCE_DIR}")
    while(_dirs)
      list(POP_FRONT _dirs _dir)
      get_directory_property(_separable DIRECTORY "${_dir}" DEFINITION CUDA_SEPARABLE_COMPILATION)
      if(_separable)
        message(WARNING "ptxlink: ${_dir} uses FindCUDA with CUDA_SEPARABLE_COMPILATION: FindCUDA's targets "
                        "(cuda_add_library, cuda_add_executable) are device-linked by its own `nvcc -dlink` "
                        "commands, which UsePtxlink.cmake cannot reach; they keep nvcc's device link. Targets "
                        "of CMake's CUDA language (enable_language(CUDA), CUDA_SEPARABLE_COMPILATION as a "
                        "target property) are linked by ptxlink.")
        return()
      endif()
      get_directory_property(_subdirs DIRECTORY "${_dir}" SUBDIRECTORIES)
      list(APPEND _dirs ${_subdirs})
    endwhile()
  endfunction()
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _ptxlink_warn_findcuda)
endif()
