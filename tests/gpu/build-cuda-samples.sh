#!/usr/bin/env bash
# Builds NVIDIA cuda-samples from their own unmodified CMakeLists.txt three ways: as nvcc does it (nvlink
# as the device linker), with ptxlink as the device linker (UsePtxlink.cmake through
# -DCMAKE_PROJECT_INCLUDE, docs/host-link.md) making a PTX-only fatbinary that the driver compiles at load
# time, and the same with `--sass` (cubins made by ptxas/nvlink per module, beside the PTX in the
# fatbinary). The stripped executables go to OUT/bin/<way>/ for tests/gpu/run-on-gpu.sh.
#
# The problem it solves: the test suite runs without a GPU, so it checks that ptxlink's device-link
# objects have the right shape but not that the CUDA driver loads them and that the kernels compute what
# nvlink's twins compute. That needs real programs with their own checks: the samples verify their
# results and exit non-zero on a wrong one.
#
# Usage: tests/gpu/build-cuda-samples.sh SAMPLES_ROOT PTXLINK_PREFIX OUT_DIR ARCH SAMPLE...
#   SAMPLES_ROOT   a checkout of github.com/NVIDIA/cuda-samples (Common/, cmake/, Samples/)
#   PTXLINK_PREFIX where ptxlink is installed (cmake --install build --prefix DIR)
#   ARCH           the GPU's architecture number (90 for an H100): the samples' own list of eight
#                  architectures is replaced by it in the copy of their CMakeLists.txt, only to keep the
#                  build short ("keep": build their list)
#   SAMPLE         a folder under Samples/, e.g. 0_Introduction/matrixMul
# Environment: PTXLINK_GPU_DEBUG=1 builds with the samples' ENABLE_CUDA_DEBUG (nvcc -G);
#              PTXLINK_GPU_WAYS (default "nvcc ptxlink ptxlink-sass") which builds to make.
# One CMake tree per way, with one top-level project that adds every sample's folder (CMake then checks
# the CUDA compiler once per way, not once per sample; each sample's project() still includes
# UsePtxlink.cmake).
set -uo pipefail
[[ $# -ge 5 ]] || { sed -n 2,25p "$0"; exit 2; }
ROOT=$(realpath "$1"); PREFIX=$(realpath "$2"); OUT=$(realpath -m "$3"); ARCH=$4; shift 4
DEBUG=OFF; [[ "${PTXLINK_GPU_DEBUG:-0}" == 1 ]] && DEBUG=ON
mkdir -p "$OUT/src/Samples"
cp -r "$ROOT/Common" "$ROOT/cmake" "$OUT/src/"
{
  echo "cmake_minimum_required(VERSION 3.20)"
  echo "project(ptxlink_gpu_samples LANGUAGES C CXX CUDA)"
} >"$OUT/src/Samples/CMakeLists.txt"
for S in "$@"; do
  src="$OUT/src/Samples/$S"
  rm -rf "$src" && mkdir -p "$(dirname "$src")" && cp -r "$ROOT/Samples/$S" "$src"
  [[ "$ARCH" != keep ]] &&
    sed -i -E "s/set\(CMAKE_CUDA_ARCHITECTURES [0-9 ]+\)/set(CMAKE_CUDA_ARCHITECTURES $ARCH)/" "$src/CMakeLists.txt"
  echo "add_subdirectory($S)" >>"$OUT/src/Samples/CMakeLists.txt"
done
for way in ${PTXLINK_GPU_WAYS:-nvcc ptxlink ptxlink-sass}; do
  b="$OUT/build/$way"
  extra=()
  case $way in
    ptxlink) extra=(-DCMAKE_PROJECT_INCLUDE="$PREFIX/lib/cmake/ptxlink/UsePtxlink.cmake") ;;
    ptxlink-sass) extra=(-DCMAKE_PROJECT_INCLUDE="$PREFIX/lib/cmake/ptxlink/UsePtxlink.cmake" "-DPTXLINK_OPTIONS=--sass") ;;
  esac
  # The three ways compile the same sources with the same flags (only the device link differs): with
  # ccache the second and third compile come from its cache.
  command -v ccache >/dev/null &&
    extra+=(-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  mkdir -p "$b"
  cmake -S "$OUT/src/Samples" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENABLE_CUDA_DEBUG=$DEBUG "${extra[@]}" \
    >"$b/configure.log" 2>&1 || { echo "CONFIGURE-FAIL $way (log: $b/configure.log)"; continue; }
  # -k 0: one sample that fails to build does not stop the others.
  cmake --build "$b" -j2 -- -k 0 -v >"$b/build.log" 2>&1
  mkdir -p "$OUT/bin/$way"
  for S in "$@"; do
    name=$(basename "$S")
    exe="$b/$S/$name"
    if [[ ! -x "$exe" ]]; then
      echo "BUILD-FAIL $way $S (log: $b/build.log)"
      continue
    fi
    strip -o "$OUT/bin/$way/$name" "$exe"
    # Which tool linked the device code, from the build's own command lines.
    dl=nvlink; grep -q "ptxlink-device-link.sh.* $S/" "$b/build.log" && dl=ptxlink
    echo "BUILT $way $S (device link: $dl)"
  done
done
