#!/usr/bin/env bash
# The test command: installs what is missing, builds everything, runs a short fuzz pass, then the whole
# test suite with ctest (GoogleTest unit tests + the lit end-to-end suite + the replay of every fuzz
# regression input). The last lines printed are ctest's summary and the fuzz pass's result; the exit status
# is non-zero if anything failed.
#
# Tests that need NVIDIA's tools (nvcc, ptxas, nvlink, fatbinary) or the shared PTX corpus (../shared)
# are reported as skipped/unsupported when those are absent, never as passed.
#
# The fuzz pass (issue 15): scripts/fuzz.sh ci builds the ASan/UBSan + libFuzzer configuration in
# build-fuzz/ and fuzzes every target for PTXLINK_FUZZ_SECONDS (default 30) with a fixed seed; it is
# skipped, with a line saying so, where clang++ with libFuzzer is not installed. A crash it finds fails the
# test command; the input is left in build-fuzz/artifacts/ (docs/reliability.md says what to do with it).
#   PTXLINK_BUILD_DIR, PTXLINK_BUILD_TYPE, PTXLINK_JOBS: see scripts/build.sh
#   PTXLINK_FUZZ_SECONDS: seconds per fuzz target (0: no fuzz pass)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${PTXLINK_BUILD_DIR:-$ROOT/build}"
JOBS="${PTXLINK_JOBS:-$(nproc 2>/dev/null || echo 2)}"
FUZZ_SECONDS="${PTXLINK_FUZZ_SECONDS:-30}"

"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh"

fuzz_result="fuzz pass: not run (PTXLINK_FUZZ_SECONDS=0)"
fuzz_status=0
if [[ "$FUZZ_SECONDS" != 0 ]]; then
  "$ROOT/scripts/fuzz.sh" ci "$FUZZ_SECONDS" || fuzz_status=$?
  case $fuzz_status in
    0) fuzz_result="fuzz pass: ${FUZZ_SECONDS}s per target, no crash, leak, timeout or sanitizer report" ;;
    3) fuzz_result="fuzz pass: skipped (no clang++ with libFuzzer)"; fuzz_status=0 ;;
    *) fuzz_result="fuzz pass: FAILED (see the lines above and build-fuzz/artifacts/)" ;;
  esac
fi

cd "$BUILD_DIR"
ctest_status=0
ctest --output-on-failure -j "$JOBS" || ctest_status=$?
echo "$fuzz_result"
[[ $ctest_status -eq 0 && $fuzz_status -eq 0 ]]
