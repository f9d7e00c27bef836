#!/bin/sh
# ptxlink-device-link.sh PTXLINK [ptxlink arguments...]: the device-link rule that ptxlink's CMake
# package (ptxlinkConfig.cmake, ptxlink_cuda_device_link) installs for CUDA_SEPARABLE_COMPILATION targets.
#
# The problem: CMake hands the device-link rule the target's libraries as <LINK_LIBRARIES>, which mixes
# device libraries (given as paths: libdev.a) with the host link's -l flags (-lcudadevrt -lcudart_static
# -lrt -lpthread -ldl). Those hold no PTX ptxlink could link (the device runtime is SASS-only), so the
# -l flags are dropped here and everything else goes to ptxlink unchanged.
ptxlink=$1
shift
n=$#
while [ "$n" -gt 0 ]; do
  arg=$1
  shift
  n=$((n - 1))
  case $arg in
    -l*) ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec "$ptxlink" "$@"
