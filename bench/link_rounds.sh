#!/usr/bin/env bash
# The headline link figures of docs/performance.md: `cat` of the objects, ptxlink for one and for two
# arches, and nvlink on the `ptxas -c` cubins of the same modules, each run once per round for N rounds
# (interleaved, so that the machine's drift hits all four alike); prints the min and median CPU time
# (perf stat task-clock: user+sys of the process) of each.
# Usage: bench/link_rounds.sh [BUILD_DIR] [N]   (after `python3 bench/run.py`, which makes the inputs)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(cd "${1:-$ROOT/build}" && pwd)/bin"
N="${2:-15}"
WORK="$ROOT/bench/work"
shopt -s nullglob
OBJS=("$WORK"/objs/program/*.o)
# run.py keeps the cubins keyed by the content of their PTX (stem-<sha256 prefix>.o): take this program's.
CUBINS=()
for ptx in "$WORK"/program/*.ptx; do
  digest=$(sha256sum "$ptx" | cut -c1-20)
  cubin="$WORK/cubins/sm_80/$(basename "$ptx" .ptx)-$digest.o"
  [ -f "$cubin" ] && CUBINS+=("$cubin")
done
if [ ${#OBJS[@]} -eq 0 ]; then echo "no objects in $WORK/objs/program: run bench/run.py first" >&2; exit 1; fi
command -v perf >/dev/null || { echo "perf is needed" >&2; exit 1; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
measure() {
  local name=$1; shift
  perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | grep task-clock | cut -d, -f1 >> "$OUT/$name" || true
}
NAMES=(cat ptxlink-sm_80 ptxlink-sm_80,sm_90)
for _ in $(seq "$N"); do
  measure cat cat "${OBJS[@]}"
  measure ptxlink-sm_80 "$BIN/ptxlink" -arch sm_80 "${OBJS[@]}" -o "$OUT/p.fatbin"
  measure ptxlink-sm_80,sm_90 "$BIN/ptxlink" -arch sm_80,sm_90 "${OBJS[@]}" -o "$OUT/p.fatbin"
  if [ ${#CUBINS[@]} -gt 0 ] && command -v nvlink >/dev/null; then
    measure nvlink nvlink -arch=sm_80 "${CUBINS[@]}" -o "$OUT/nv.cubin"
  fi
done
[ -f "$OUT/nvlink" ] && NAMES+=(nvlink)
for k in "${NAMES[@]}"; do
  sort -n "$OUT/$k" | awk -v k="$k" '{a[NR]=$1} END {printf "%-22s CPU min %8.2f ms  median %8.2f ms  (%d runs)\n", k, a[1], a[int((NR+1)/2)], NR}'
done
