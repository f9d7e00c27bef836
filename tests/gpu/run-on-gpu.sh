#!/usr/bin/env bash
# Runs what tests/gpu/build-programs.sh and tests/gpu/build-cuda-samples.sh built, on a machine with an
# NVIDIA GPU, and says for every ptxlink-linked executable whether the CUDA driver loaded it and whether
# it computed what its nvlink-linked twin computed.
#
# The problem it solves: CI has no GPU, so this is the only check that the fatbinaries ptxlink writes
# (PTX-only, SASS, compressed with zstd or LZ4, several architectures, -G) are accepted by the driver and
# give the right answers. It is run by hand when a GPU is at hand (README.md, "On a GPU"; results in docs/host-link.md).
#
# Usage: tests/gpu/run-on-gpu.sh PROGRAMS_BIN SAMPLES_BIN OUT_DIR
#   PROGRAMS_BIN  build-programs.sh's OUT/bin (PROGRAM/VARIANT executables; "nvcc" is the reference)
#   SAMPLES_BIN   build-cuda-samples.sh's OUT/bin (WAY/SAMPLE executables; "nvcc" is the reference)
# Prints one line per executable:
#   PROGRAM app sass: rc=0 AGREE            (the same output as the reference, lines of timings aside)
#   SAMPLE matrixMul ptxlink-sass: rc=0 (nvcc rc=0) AGREE
# then a timing table for xmodule (median of 3 runs). Exit status 1 if any executable disagrees.
set -uo pipefail
shopt -s nullglob
[[ $# -eq 3 ]] || { sed -n 2,18p "$0"; exit 2; }
PROGRAMS=$(realpath "$1"); SAMPLES=$(realpath -m "$2"); OUT=$(realpath -m "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | sed 's/^/GPU: /'
bad=0

# Output with the lines that legitimately differ between two runs removed: timings, throughputs, dates,
# addresses, process ids.
# The executable's own path (samples print argv[0]) is dropped too.
normalise() {
  grep -v -i -E 'kernel_ms|time|msec|ms\b|GB/s|Gflop|GFLOP|TOPS|MOPS|throughput|elapsed|sec\b|seconds|0x[0-9a-f]{6,}|pid' "$1" |
    sed -E "s#($SAMPLES|$PROGRAMS)/[^/ ]+/##g" || true
}

# Arguments that keep a sample's run short (its default is a long timing loop).
sample_args() {
  case $1 in
    eigenvalues) echo --iters-timing=1 ;;
  esac
}

run_one() { # EXE LOG [ARGS...] -> exit status
  local exe=$1 log=$2; shift 2
  timeout "${PTXLINK_GPU_TIMEOUT:-60}" "$exe" "$@" >"$log" 2>&1 </dev/null
}

# --- this repository's programs
for prog in "$PROGRAMS"/*/; do
  prog=$(basename "$prog")
  ref="$OUT/prog-$prog-nvcc.log"
  run_one "$PROGRAMS/$prog/nvcc" "$ref"; refrc=$?; echo $refrc >"$ref.rc"
  echo "PROGRAM $prog nvcc: rc=$refrc (reference)"
  for exe in "$PROGRAMS/$prog"/*; do
    v=$(basename "$exe")
    log="$OUT/prog-$prog-$v.log"
    run_one "$exe" "$log"; rc=$?
    # -G and two-architecture builds compare with nvcc's build of the same kind.
    twin=nvcc
    [[ $v == G-* ]] && twin=G-nvcc
    [[ $v == *-2arch ]] && twin=nvcc-2arch
    [[ $v == "$twin" ]] && continue # a reference itself
    # Each reference runs once: its exit status is kept beside its log.
    r="$OUT/prog-$prog-$twin.log"
    [[ -f "$r.rc" ]] || { run_one "$PROGRAMS/$prog/$twin" "$r"; echo $? >"$r.rc"; }
    rrc=$(cat "$r.rc")
    if [[ $rc -eq $rrc ]] && diff <(normalise "$r") <(normalise "$log") >/dev/null; then
      echo "PROGRAM $prog $v: rc=$rc AGREE"
    else
      echo "PROGRAM $prog $v: rc=$rc (reference rc=$rrc) DIFFER"; bad=1
      diff <(normalise "$r") <(normalise "$log") | head -n 10 | sed 's/^/    /'
    fi
  done
done

# --- xmodule's timings: median of 3 runs of each variant (the kernel's own time, CUDA events)
if [[ -d "$PROGRAMS/xmodule" ]]; then
  if command -v nvcc >/dev/null && [[ -f "$HERE/xmodule/main.cu" ]]; then
    # NVIDIA's link-time optimisation twin, where this toolkit has libnvvm.
    d=$(mktemp -d)
    if (cd "$d" && nvcc -O3 -rdc=true -dlto -arch=sm_${PTXLINK_GPU_ARCH:-90} -I"$HERE/xmodule" "$HERE/xmodule/main.cu" \
          "$HERE/xmodule/ops.cu" -o "$PROGRAMS/xmodule/nvcc-dlto") >"$OUT/xmodule-dlto-build.log" 2>&1; then
      log="$OUT/prog-xmodule-nvcc-dlto.log"; run_one "$PROGRAMS/xmodule/nvcc-dlto" "$log"; drc=$?
      diff <(normalise "$OUT/prog-xmodule-nvcc.log") <(normalise "$log") >/dev/null && a=AGREE || a=DIFFER
      echo "PROGRAM xmodule nvcc-dlto (built on this machine): rc=$drc $a"
    fi
  fi
  echo "TIMING xmodule (ms per launch, median of 3 runs of 20 launches)"
  for exe in "$PROGRAMS/xmodule"/*; do
    v=$(basename "$exe")
    ms=$(for i in 1 2 3; do "$exe" | sed -n 's/^kernel_ms=//p'; done | sort -g | sed -n 2p)
    echo "TIMING xmodule $v: $ms"
  done
fi

# --- cuda-samples
if [[ -d "$SAMPLES/nvcc" ]]; then
  for ref in "$SAMPLES/nvcc"/*; do
    s=$(basename "$ref")
    # The reference and each ptxlink build run at the same time (the GPU is time-sliced between them).
    ways=(nvcc)
    for way in "$SAMPLES"/*/; do way=$(basename "$way"); [[ $way == nvcc || ! -x "$SAMPLES/$way/$s" ]] || ways+=("$way"); done
    for way in "${ways[@]}"; do
      (run_one "$SAMPLES/$way/$s" "$OUT/sample-$s-$way.log" $(sample_args "$s"); echo $? >"$OUT/sample-$s-$way.rc") &
    done
    wait
    refrc=$(cat "$OUT/sample-$s-nvcc.rc")
    for way in "${ways[@]:1}"; do
      log="$OUT/sample-$s-$way.log"; rc=$(cat "$OUT/sample-$s-$way.rc")
      if [[ $rc -eq $refrc ]] && diff <(normalise "$OUT/sample-$s-nvcc.log") <(normalise "$log") >/dev/null; then
        verdict=AGREE
      elif [[ $rc -eq $refrc ]]; then
        verdict="SAME-STATUS, OUTPUT DIFFERS"
      else
        verdict=DIFFER; bad=1
      fi
      echo "SAMPLE $s $way: rc=$rc (nvcc rc=$refrc) $verdict"
      [[ $verdict == AGREE ]] || diff <(normalise "$OUT/sample-$s-nvcc.log") <(normalise "$log") | head -n 8 | sed 's/^/    /'
    done
  done
fi

# --- -G builds under NVIDIA's debugger: a breakpoint on a kernel, then steps into a device function of
# another file (app.cu's combine_k calls vec.cu's scale_add): the merged DWARF must give the debugger the
# same source lines as nvlink's. Compared: the "file:line" of every stop.
if command -v cuda-gdb >/dev/null && [[ -x "$PROGRAMS/app/G-nvcc" ]]; then
  for v in G-nvcc G-sass G-ptx; do
    [[ -x "$PROGRAMS/app/$v" ]] || continue
    timeout 300 cuda-gdb -batch -ex "set cuda break_on_launch none" -ex "break combine_k" -ex run -ex bt \
      -ex step -ex step -ex step -ex bt -ex continue "$PROGRAMS/app/$v" >"$OUT/gdb-$v.log" 2>&1 </dev/null
    grep -o -E '(at |^#[0-9]+ .* at )[^ ]+\.cu:[0-9]+|^[0-9]+\s.*' "$OUT/gdb-$v.log" | grep -o -E '[A-Za-z_]+\.cu:[0-9]+' \
      >"$OUT/gdb-$v.stops" || true
    echo "CUDA-GDB app $v: stops $(tr '\n' ' ' <"$OUT/gdb-$v.stops")"
  done
  for v in G-sass G-ptx; do
    [[ -f "$OUT/gdb-$v.stops" ]] || continue
    if [[ -s "$OUT/gdb-$v.stops" ]] && cmp -s "$OUT/gdb-G-nvcc.stops" "$OUT/gdb-$v.stops"; then
      echo "CUDA-GDB app $v: AGREE with G-nvcc"
    else
      echo "CUDA-GDB app $v: DIFFER from G-nvcc"; bad=1
    fi
  done
fi

# --- compute-sanitizer's memcheck on the ptxlink builds of app: no error where nvlink's build has none
if command -v compute-sanitizer >/dev/null; then
  for v in nvcc sass ptx G-sass; do
    [[ -x "$PROGRAMS/app/$v" ]] || continue
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$PROGRAMS/app/$v" >"$OUT/memcheck-$v.log" 2>&1
    echo "MEMCHECK app $v: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-$v.log" | head -n 1)"
  done
fi

# --- NVIDIA's own reader of fatbinaries, on every ptxlink-linked executable, where it is installed
if command -v cuobjdump >/dev/null; then
  n=0; failed=0
  for exe in "$PROGRAMS"/*/* "$SAMPLES"/ptxlink*/*; do
    [[ -x $exe && $(basename "$exe") != nvcc* && $(basename "$exe") != G-nvcc ]] || continue
    n=$((n + 1))
    cuobjdump --list-elf --list-ptx "$exe" >"$OUT/cuobjdump.log" 2>&1 || { failed=$((failed + 1)); echo "CUOBJDUMP-FAIL $exe"; sed 's/^/    /' "$OUT/cuobjdump.log" | head -n 5; }
  done
  echo "CUOBJDUMP: $n executables listed, $failed refused"
fi
exit $bad
