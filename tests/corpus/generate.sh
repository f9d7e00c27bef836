#!/usr/bin/env bash
# Generates the test corpus of real PTX from the compilers on this machine.
#
# Usage: tests/corpus/generate.sh [--nvcc-only | --llc-only] OUT_DIR
#
# Sources written for the tests say how to compile them in header lines:
#   cuda/X.cu:  `// NVCC: TAG FLAGS...`  -> OUT_DIR/cuda-X.TAG.ptx   (nvcc -rdc=true -ptx FLAGS)
#   llvm/X.ll:  `; LLC: TAG FLAGS...`    -> OUT_DIR/llvm-X.TAG.ptx   (llc-19 -march=nvptx64 FLAGS, or
#                                            FLAGS alone if they choose the -march, e.g. nvptx for 32-bit)
#               `; LLC-NOPTXAS: TAG FLAGS`  the same, for output that NVIDIA's ptxas itself rejects (32-bit
#                                            PTX: "32-Bit compilation is no longer supported" since CUDA 12);
#                                            its name goes to OUT_DIR/no-ptxas.txt
# One file per header line, so each source covers several .version/.target/debug variants. What the
# tools know (checked with `llc-19 -march=nvptx64 -mattr=help`, `nvcc --list-gpu-arch`, `ptxas --help`):
# llc 19 writes sm_20..sm_90a and PTX 3.2..8.5; nvcc/ptxas 13 handle sm_75..sm_121 (+a/f) and PTX <= 9.0,
# and ptxas 13 rejects 32-bit PTX. The variants below stay inside both. nvcc is slow
# (seconds per file), so its compilations run two at a time; a compiler missing from the machine is
# reported and its half of the corpus is skipped (the lit tests REQUIRE nvcc or llc); an nvcc that does
# not know a variant's -arch skips that variant; any other compiler failure is an error.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
want_nvcc=1 want_llc=1
case "${1:-}" in
  --nvcc-only) want_llc=0; shift ;;
  --llc-only) want_nvcc=0; shift ;;
esac
if [ $# -ne 1 ]; then
  echo "usage: $0 [--nvcc-only | --llc-only] OUT_DIR" >&2
  exit 2
fi
OUT="$1"
mkdir -p "$OUT"

find_llc() {
  for c in llc-19 /usr/lib/llvm-19/bin/llc llc; do
    if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
  done
  return 1
}
find_nvcc() {
  for c in nvcc "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"; do
    if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
  done
  return 1
}

# Writes "COMPILER SRC OUT FLAGS..." job lines for one source kind.
jobs_for() { # $1 = nvcc|llc, $2 = marker regex, $3 = dir, $4 = extension, $5 = output prefix
  local src tag flags line
  for src in "$HERE/$3"/*."$4"; do
    [ -e "$src" ] || continue
    while IFS= read -r line; do
      tag="${line%% *}"
      flags="${line#"$tag"}"
      echo "$src $OUT/$5-$(basename "$src" ".$4").$tag.ptx $flags"
    done < <(sed -n "s#^$2 *##p" "$src")
  done
}

status=0
if [ "$want_nvcc" = 1 ]; then
  if NVCC="$(find_nvcc)"; then
    archs=" $("$NVCC" --list-gpu-arch 2>/dev/null | tr '\n' ' ') "
    jobs_for nvcc '// NVCC:' cuda cu cuda >"$OUT/.nvcc-jobs"
    : >"$OUT/.nvcc-run"
    while read -r src out flags; do
      arch="$(sed -n 's/.*-arch=sm_\([0-9]*\).*/\1/p' <<<"$flags")"
      if [ -n "$arch" ] && [[ "$archs" != *" compute_$arch "* ]]; then
        echo "generate: skip $(basename "$out"): this nvcc does not know sm_$arch"
        continue
      fi
      echo "$src $out $flags" >>"$OUT/.nvcc-run"
    done <"$OUT/.nvcc-jobs"
    # shellcheck disable=SC2016
    if ! xargs -P2 -L1 sh -c 'src=$1 out=$2; shift 2; "$0" -rdc=true -ptx "$@" "$src" -o "$out" || { echo "generate: FAILED: nvcc $* $src" >&2; exit 255; }' "$NVCC" <"$OUT/.nvcc-run"; then
      status=1
    fi
    echo "generate: nvcc ($("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')): $(wc -l <"$OUT/.nvcc-run") files"
  else
    echo "generate: nvcc not found: no CUDA part of the corpus"
  fi
fi
if [ "$want_llc" = 1 ]; then
  if LLC="$(find_llc)"; then
    n=0
    : >"$OUT/no-ptxas.txt"
    jobs_for llc '; LLC-NOPTXAS:' llvm ll llvm | while read -r src out flags; do basename "$out"; done >>"$OUT/no-ptxas.txt"
    while read -r src out flags; do
      march=(-march=nvptx64)
      [[ " $flags" == *" -march="* ]] && march=()
      # shellcheck disable=SC2086
      if ! "$LLC" "${march[@]}" $flags "$src" -o "$out"; then
        echo "generate: FAILED: llc $flags $src" >&2
        status=1
      fi
      n=$((n + 1))
    done < <(jobs_for llc '; LLC:' llvm ll llvm; jobs_for llc '; LLC-NOPTXAS:' llvm ll llvm)
    echo "generate: llc ($("$LLC" --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p')): $n files"
  else
    echo "generate: llc not found: no LLVM part of the corpus"
  fi
fi
rm -f "$OUT/.nvcc-jobs" "$OUT/.nvcc-run"
exit $status
