#!/usr/bin/env bash
# Configures and builds ptxlink with CMake + Ninja.
#
# Usage: scripts/build.sh [TARGET...]
#   PTXLINK_BUILD_DIR   build directory (default: <repo>/build)
#   PTXLINK_BUILD_TYPE  CMake build type (default: Release)
#   PTXLINK_JOBS        ninja -j value (default: number of cores)
# With no TARGET everything is built (tools and the unit-test binary).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${PTXLINK_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${PTXLINK_BUILD_TYPE:-Release}"
JOBS="${PTXLINK_JOBS:-$(nproc 2>/dev/null || echo 2)}"

cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" >/dev/null
ninja -C "$BUILD_DIR" -j "$JOBS" "$@"
