#!/usr/bin/env bash
# Checks ptxlink-as against a generated corpus (tests/corpus/generate.sh OUT_DIR):
#   1. every OUT_DIR/*.ptx must assemble: `ptxlink-as X.ptx -o X.o`;
#   2. where NVIDIA's ptxas is installed, the assembler's PTX printer must round-trip every file into PTX
#      that ptxas accepts: `ptxlink-as X.ptx --print-ptx > X.rt.ptx && ptxas -arch=<X's .target> -c`.
#      Files listed in OUT_DIR/no-ptxas.txt (PTX that ptxas itself rejects, e.g. 32-bit) are exempt from
#      step 2 only.
# Prints one line per failure with the tool's first error lines, then a summary line
#   corpus: N files, A assembled, R round-tripped through ptxas, F failures
# and exits 1 if F > 0 or N == 0. Tools are taken from PATH (the lit configuration puts build/bin first).
#
# Usage: tests/corpus/check.sh OUT_DIR [PREFIX]   (PREFIX: only files whose name starts with it)
set -uo pipefail

DIR="$1"
PREFIX="${2:-}"
WORK="$DIR/check"
mkdir -p "$WORK"
if ! command -v ptxlink-as >/dev/null 2>&1; then
  echo "FAIL: ptxlink-as not found on PATH (build it first)"
  echo "corpus: 0 files, 0 assembled, 0 round-tripped through ptxas, 1 failures"
  exit 1
fi
have_ptxas=0
command -v ptxas >/dev/null 2>&1 && have_ptxas=1

files=0 assembled=0 roundtrip=0 failures=0
fail() { # $1 = file, $2 = what, $3 = log
  failures=$((failures + 1))
  echo "FAIL: $1: $2"
  sed -n '1,6s/^/    /p' "$3"
}

for ptx in "$DIR"/"$PREFIX"*.ptx; do
  [ -e "$ptx" ] || continue
  name="$(basename "$ptx" .ptx)"
  files=$((files + 1))
  if ptxlink-as "$ptx" -o "$WORK/$name.o" >"$WORK/$name.as.log" 2>&1; then
    assembled=$((assembled + 1))
  else
    fail "$name.ptx" "ptxlink-as failed" "$WORK/$name.as.log"
    continue
  fi
  [ "$have_ptxas" = 1 ] || continue
  grep -qx "$name.ptx" "$DIR/no-ptxas.txt" 2>/dev/null && continue
  arch="$(sed -n 's/^[[:space:]]*\.target[[:space:]]*\([a-z_0-9]*\).*/\1/p' "$ptx" | head -n1)"
  if ! ptxlink-as "$ptx" --print-ptx >"$WORK/$name.rt.ptx" 2>"$WORK/$name.print.log"; then
    fail "$name.ptx" "ptxlink-as --print-ptx failed" "$WORK/$name.print.log"
  elif ! ptxas -arch="$arch" -c "$WORK/$name.rt.ptx" -o "$WORK/$name.cubin" >"$WORK/$name.ptxas.log" 2>&1; then
    fail "$name.ptx" "ptxas -arch=$arch rejects the printed PTX ($WORK/$name.rt.ptx)" "$WORK/$name.ptxas.log"
  else
    roundtrip=$((roundtrip + 1))
  fi
done

[ "$have_ptxas" = 1 ] || echo "note: ptxas not found: round trip not checked"
echo "corpus: $files files, $assembled assembled, $roundtrip round-tripped through ptxas, $failures failures"
[ "$files" -gt 0 ] && [ "$failures" -eq 0 ]
