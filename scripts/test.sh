#!/usr/bin/env bash
# The test command: installs what is missing, builds everything, runs the whole test suite with ctest
# (GoogleTest unit tests + the lit end-to-end suite). The last lines printed are ctest's summary; the exit
# status is non-zero if anything failed.
#
# Tests that need NVIDIA's tools (nvcc, ptxas, nvlink, fatbinary) or the shared PTX corpus (../shared)
# are reported as skipped/unsupported when those are absent, never as passed.
#   PTXLINK_BUILD_DIR, PTXLINK_BUILD_TYPE, PTXLINK_JOBS: see scripts/build.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${PTXLINK_BUILD_DIR:-$ROOT/build}"
JOBS="${PTXLINK_JOBS:-$(nproc 2>/dev/null || echo 2)}"

"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh"
cd "$BUILD_DIR"
exec ctest --output-on-failure -j "$JOBS"
