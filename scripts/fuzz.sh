#!/usr/bin/env bash
# Builds the sanitizer + libFuzzer configuration of ptxlink, makes seed corpora from the test inputs, and
# fuzzes every target for a fixed time each (docs/reliability.md records what the campaigns found).
#
# Usage: scripts/fuzz.sh [build | seeds | run SECONDS [TARGET...] | campaign CPU_SECONDS [TARGET...] |
#                         all SECONDS | ci SECONDS]  (default: all 60)
#   campaign: each target until its process has used CPU_SECONDS of CPU time (not wall time: on a shared,
#       loaded machine a wall-clock budget gives a target a fraction of it); stopped by SIGUSR1, libFuzzer's
#       graceful exit; prints one row per target (executions, coverage, corpus, peak RSS, CPU and wall
#       minutes) for docs/reliability.md. PTXLINK_FUZZ_PARALLEL=N runs N targets at a time (default 1).
#   ci: the time-boxed pass that scripts/test.sh runs on every build: skipped (exit 3, with a line saying
#       why) where no clang++ with libFuzzer is installed; otherwise build, seeds, and every target for
#       SECONDS with a fixed seed; exit 1 if any target crashed, leaked, hit a sanitizer or timed out.
#   targets: readers assembler object archive hostobj linker   (tests/fuzz/CMakeLists.txt says what each reads)
#   PTXLINK_FUZZ_BUILD_DIR  build directory (default: <repo>/build-fuzz)
#   PTXLINK_JOBS            ninja -j (default: number of cores)
#   PTXLINK_FUZZ_JOBS       libFuzzer processes per target (default 1; the campaign runs targets in turn)
#   PTXLINK_FUZZ_SEED       libFuzzer's -seed (default: random; the ci pass uses 1, so that a developer's run
#                           takes the same mutations in the same order as CI's, as far as its time reaches;
#                           the input CI prints in Base64 is the exact reproducer)
#   CXX                     the compiler (default: clang++-14, else clang++); it must ship libFuzzer
#
# What a developer needs to know (each of these cost someone an afternoon):
# - The project is C++ only. Pass no C compiler (CC / -DCMAKE_C_COMPILER): enabling C makes LLVM's CMake
#   package look for libffi with the C compiler (FindFFI), which fails or finds the wrong one.
# - -fsanitize=address,undefined,fuzzer-no-link goes into CMAKE_CXX_FLAGS so that it instruments the
#   libraries under test (objtools, assembler, linker), not only the harness: coverage feedback and
#   ASan checks come from the code that is compiled with them. Only the fuzz binaries link -fsanitize=fuzzer.
# - Debian's LLVM 19 is not instrumented. Its headers poison memory (ASAN_POISON_MEMORY_REGION in the
#   allocators) that its uninstrumented library code then touches: run with
#   ASAN_OPTIONS=allow_user_poisoning=0, or ASan reports false use-after-poison in LLVM's own code.
# - Asserts on: the build type is "Fuzz" with -O1 -g and no -DNDEBUG, so the assertions in LLVM's headers
#   (DenseMap's reserved keys, StringRef bounds, ...) run in our code. A Release build hides exactly the
#   bugs the fuzzer is for (issue 15's DenseMap empty-key lookup only shows as an assertion).
# - The shared libLLVM is linked (-DPTXLINK_LLVM_SHARED=ON): linking the static components with
#   -static-libstdc++ under ASan duplicates operator new, and the shared library links far faster.
# - A crash leaves build-fuzz/artifacts/<target>-crash-<sha1>: replay it with
#   build-fuzz/bin/ptxlink-fuzz-<target> FILE, fix the bug, and copy the file to
#   tests/fuzz/regressions/<target>/ so that ctest's fuzz-replay-<target> runs it on every build.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${PTXLINK_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
JOBS="${PTXLINK_JOBS:-$(nproc 2>/dev/null || echo 2)}"
TARGETS=(readers assembler object archive hostobj linker)
SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

find_cxx() {
  if [[ -n "${CXX:-}" ]]; then echo "$CXX"; return; fi
  for c in clang++-14 clang++-19 clang++; do
    if command -v "$c" >/dev/null; then echo "$c"; return; fi
  done
  echo "fuzz.sh: clang++ not found (libFuzzer comes with clang)" >&2
  exit 2
}

# Whether this machine can build the fuzz configuration at all: a clang++ whose libFuzzer and sanitizer
# runtimes link a trivial fuzz target (Debian: clang-14 and libclang-rt-14-dev).
can_build_fuzzers() {
  local cxx tmp ok=1
  cxx="$(find_cxx 2>/dev/null)" || return 1
  tmp="$(mktemp -d)"
  printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }\n' > "$tmp/t.cpp"
  "$cxx" $SANITIZE -fsanitize=fuzzer "$tmp/t.cpp" -o "$tmp/t" >/dev/null 2>&1 || ok=0
  rm -rf "$tmp"
  [[ $ok -eq 1 ]]
}

build() {
  local cxx
  cxx="$(find_cxx)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_CXX_FLAGS_FUZZ="-O1 -g" \
    -DCMAKE_CXX_FLAGS="$SANITIZE -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$SANITIZE" -DPTXLINK_LLVM_SHARED=ON -DPTXLINK_FUZZ=ON >/dev/null
  local t=() n
  for n in "${TARGETS[@]}"; do t+=("ptxlink-fuzz-$n"); done
  ninja -C "$BUILD_DIR" -j "$JOBS" "${t[@]}" ptxlink-as ptxlink-ar ptxlink-dump
}

# Seeds are made here from the inputs of the tests (nothing binary is kept in the repository): PTX from
# tests/ and the shared corpus, objects and archives from ptxlink-as/-ar, fatbinaries plain and with
# each compression, cubins from ptxas -c, NVIDIA fatbinaries from fatbinary --create, host objects from
# nvcc -rdc -c, where those tools are installed.
seeds() {
  local bin="$BUILD_DIR/bin" s="$BUILD_DIR/seeds" tmp
  rm -rf "$s" && mkdir -p "$s"/{readers,assembler,object,archive,hostobj,linker}
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  local ptx=() f i=0
  while IFS= read -r f; do ptx+=("$f"); done < <(
    { find "$ROOT/tests" -name '*.ptx' -size -64k; \
      [[ -d "$ROOT/../shared/corpus/public" ]] && find "$ROOT/../shared/corpus/public" -name '*.ptx' -size -32k; } \
      2>/dev/null | sort | head -n 120)
  for f in "${ptx[@]}"; do
    i=$((i + 1))
    cp "$f" "$s/assembler/$i.ptx"
    if "$bin/ptxlink-as" "$f" -o "$tmp/$i.o" 2>/dev/null; then
      cp "$tmp/$i.o" "$s/object/$i.o"
      [[ $i -le 40 ]] && for c in none lz4 zstd; do
        "$bin/ptxlink-dump" --create-fatbin "$s/readers/$i-$c.fatbin" --compress "$c" "$f" 2>/dev/null || true
      done
      if [[ $i -le 40 ]] && command -v ptxas >/dev/null &&
         ptxas -arch=sm_90 -c "$f" -o "$tmp/$i.cubin" 2>/dev/null; then
        cp "$tmp/$i.cubin" "$s/readers/$i.cubin"
        if command -v fatbinary >/dev/null; then
          fatbinary --create="$s/readers/$i-nv.fatbin" -64 "--image3=kind=elf,sm=90,file=$tmp/$i.cubin" 2>/dev/null || true
          fatbinary --create="$s/readers/$i-nvc.fatbin" -64 --compress-all \
            "--image3=kind=elf,sm=90,file=$tmp/$i.cubin" "--image3=kind=ptx,sm=90,file=$f" 2>/dev/null || true
        fi
      fi
    fi
  done
  # Linker seeds: neighbouring modules joined by the target's separator.
  for ((i = 1; i + 1 <= ${#ptx[@]} && i <= 40; i += 2)); do
    { cat "${ptx[$((i - 1))]}"; printf '\n//--\n'; cat "${ptx[$i]}"; } > "$s/linker/$i.ptx"
  done
  local objs=("$s"/object/*.o)
  for ((i = 0; i + 3 <= ${#objs[@]} && i < 30; i += 3)); do
    "$bin/ptxlink-ar" rcs "$s/archive/$i.a" "${objs[@]:$i:3}" 2>/dev/null || true
  done
  if command -v nvcc >/dev/null; then
    printf '__device__ int twice(int x) { return 2 * x; }\n__global__ void k(int *p) { p[0] = twice(p[1]); }\n' > "$tmp/k.cu"
    nvcc -rdc=true -c -arch=sm_90 "$tmp/k.cu" -o "$s/readers/host-rdc.o" 2>/dev/null || true
    nvcc -c -arch=sm_90 "$tmp/k.cu" -o "$s/readers/host.o" 2>/dev/null || true
    cp "$s"/readers/host*.o "$s/hostobj/" 2>/dev/null || true
    nvcc -rdc=true -lib -arch=sm_90 "$tmp/k.cu" -o "$s/hostobj/lib.a" 2>/dev/null || true
  fi
  cp "$ROOT"/tests/fuzz/regressions/readers/* "$s/readers/" 2>/dev/null || true
  for n in "${TARGETS[@]}"; do echo "seeds/$n: $(ls "$s/$n" | wc -l) files"; done
}

run() {
  local seconds="$1"; shift
  local which=("$@")
  [[ ${#which[@]} -eq 0 ]] && which=("${TARGETS[@]}")
  mkdir -p "$BUILD_DIR/artifacts" "$BUILD_DIR/logs"
  local failed=0 n
  for n in "${which[@]}"; do
    local corpus="$BUILD_DIR/corpus/$n" log="$BUILD_DIR/logs/$n.log"
    mkdir -p "$corpus"
    echo "== fuzzing $n for ${seconds}s (log: $log)"
    # -rss_limit_mb: the issue-15 memory bound (2x input + 100 MB) with room for ASan's shadow.
    local parallel=()
    [[ "${PTXLINK_FUZZ_JOBS:-1}" -gt 1 ]] && parallel=(-fork="$PTXLINK_FUZZ_JOBS")
    [[ -n "${PTXLINK_FUZZ_SEED:-}" ]] && parallel+=(-seed="$PTXLINK_FUZZ_SEED")
    if ! "$BUILD_DIR/bin/ptxlink-fuzz-$n" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 \
        -max_len=65536 -print_final_stats=1 "${parallel[@]}" \
        -artifact_prefix="$BUILD_DIR/artifacts/$n-" "$corpus" "$BUILD_DIR/seeds/$n" "$ROOT/tests/fuzz/regressions/$n" \
        >"$log" 2>&1; then
      echo "   FAILED: see $log and $BUILD_DIR/artifacts/"
      # What CI's log needs to reproduce it: the report's first lines and the input (Base64).
      grep -E "ERROR|SUMMARY|Assertion|runtime error|Test unit written|^Base64" "$log" | head -n 20 || true
      failed=1
    fi
    grep -E "stat::number_of_executed_runs|stat::peak_rss_mb" "$log" | tr '\n' ' ' || true
    grep -E "^#[0-9]+.*(DONE|cov:)" "$log" | tail -n 1 || true
  done
  return $failed
}

# Seconds of CPU (user + system) process PID has used, from /proc/PID/stat (fields 14 and 15, in ticks).
cpu_seconds() {
  local ticks
  ticks="$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null)" || return 1
  [[ -n "$ticks" ]] || return 1
  echo $((ticks / $(getconf CLK_TCK)))
}

# One target of a campaign: runs until CPU_SECONDS of CPU, then asks libFuzzer to stop (SIGUSR1 ends its
# loop as -max_total_time does: final stats, exit 0). Prints the target's row; returns 1 on a finding.
campaign_target() {
  local n="$1" budget="$2"
  local corpus="$BUILD_DIR/corpus/$n" log="$BUILD_DIR/logs/$n.campaign.log" start pid used=0 rc=0
  mkdir -p "$corpus" "$BUILD_DIR/artifacts" "$BUILD_DIR/logs"
  start=$(date +%s)
  "$BUILD_DIR/bin/ptxlink-fuzz-$n" -max_total_time=86400 -timeout=25 -rss_limit_mb=2560 -max_len=65536 \
    -print_final_stats=1 -handle_usr1=1 -artifact_prefix="$BUILD_DIR/artifacts/$n-" \
    "$corpus" "$BUILD_DIR/seeds/$n" "$ROOT/tests/fuzz/regressions/$n" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    used="$(cpu_seconds "$pid")" || break
    if [[ "$used" -ge "$budget" ]]; then kill -USR1 "$pid" 2>/dev/null; break; fi
    sleep 5
  done
  wait "$pid" || rc=$?
  local runs cov corpus_n rss wall
  runs="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
  rss="$(grep -oE 'stat::peak_rss_mb: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
  cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+' || echo '?')"
  corpus_n="$(ls "$corpus" | wc -l)"
  wall=$(( $(date +%s) - start ))
  local finding=none
  [[ $rc -ne 0 ]] && finding="exit $rc: see $log"
  printf '| %s | %s | %s | %s | %s MB | %.1f | %.1f | %s |\n' "$n" "$runs" "$cov" "$corpus_n" "$rss" \
    "$(echo "$used / 60" | bc -l)" "$(echo "$wall / 60" | bc -l)" "$finding"
  if [[ $rc -ne 0 ]]; then
    grep -E "ERROR|SUMMARY|Assertion|runtime error|Test unit written" "$log" | head -n 20 >&2 || true
    return 1
  fi
}

campaign() {
  local budget="$1"; shift
  local which=("$@") failed=0 n running=0
  [[ ${#which[@]} -eq 0 ]] && which=("${TARGETS[@]}")
  echo "| target | executions | coverage (edges) | corpus | peak RSS | CPU minutes | wall minutes | findings |"
  echo "|---|---|---|---|---|---|---|---|"
  local pids=()
  for n in "${which[@]}"; do
    campaign_target "$n" "$budget" & pids+=($!)
    running=$((running + 1))
    if [[ $running -ge "${PTXLINK_FUZZ_PARALLEL:-1}" ]]; then
      wait "${pids[0]}" || failed=1
      pids=("${pids[@]:1}"); running=$((running - 1))
    fi
  done
  for n in "${pids[@]}"; do wait "$n" || failed=1; done
  return $failed
}

case "${1:-all}" in
  build) build ;;
  seeds) seeds ;;
  run) shift; run "${1:-60}" "${@:2}" ;;
  campaign) shift; campaign "${1:-900}" "${@:2}" ;;
  all) build && seeds && run "${2:-60}" ;;
  ci)
    if ! can_build_fuzzers; then
      echo "fuzz pass: skipped (no clang++ with libFuzzer and the sanitizer runtimes; Debian: clang-14 libclang-rt-14-dev)"
      exit 3
    fi
    export PTXLINK_FUZZ_SEED="${PTXLINK_FUZZ_SEED:-1}"
    echo "fuzz pass: ASan/UBSan build in $BUILD_DIR, then ${2:-30}s per target (seed $PTXLINK_FUZZ_SEED)"
    mkdir -p "$BUILD_DIR"
    build >"$BUILD_DIR/ci-build.log" 2>&1 ||
      { tail -n 30 "$BUILD_DIR/ci-build.log"; echo "fuzz pass: the sanitizer build FAILED"; exit 1; }
    seeds && run "${2:-30}" ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
