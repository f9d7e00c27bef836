#!/usr/bin/env bash
# Round trip of real PTX through ptxlink's object model and PTX printer, judged by NVIDIA's ptxas:
# for every CORPUS_DIR/*.ptx that ptxas accepts (with -c, or failing that as a whole program, for the
# architecture its .target names), `ptxlink-as X.ptx --print-ptx` must be accepted by ptxas the same
# way (ptxas too new for the target: the oldest architecture it supports). Files ptxas rejects, or whose target it does not support, are counted and skipped.
# The object path (write -> read -> print gives the same text) is checked by the unit test
# ObjectFormatCorpusTest, so the PTX checked here is also what a read-back object prints.
#
# Prints one line per file (PASS/FAIL/SKIP with the reason) and a summary line
#   roundtrip: N files, A accepted by ptxas, P round trips accepted, F failures
# Exit status 1 if F > 0.
# Usage: roundtrip.sh CORPUS_DIR WORK_DIR
set -uo pipefail
CORPUS="$1"
WORK="$2"
mkdir -p "$WORK"
# The oldest architecture this ptxas compiles for (its --help lists some it no longer accepts).
printf '.version 6.0\n.target sm_30\n.address_size 64\n' >"$WORK/probe.ptx"
OLDEST=sm_75
for cand in $(ptxas --help 2>/dev/null | grep -o 'sm_[0-9][0-9]*' | sort -u -t_ -k2 -n); do
  if ptxas -arch="$cand" -c "$WORK/probe.ptx" -o "$WORK/probe.cubin" >/dev/null 2>&1; then
    OLDEST="$cand"
    break
  fi
done
files=0 accepted=0 passed=0 failures=0
for ptx in "$CORPUS"/*.ptx; do
  [ -e "$ptx" ] || continue
  name="$(basename "$ptx" .ptx)"
  files=$((files + 1))
  arch="$(tr -d '\r' < "$ptx" | sed -n 's/^[[:space:]]*\.target[[:space:]]*\([a-z_0-9]*\).*/\1/p' | head -n1)"
  arch="${arch/compute_/sm_}"
  if [ -z "$arch" ]; then
    echo "SKIP: $name: no .target"
    continue
  fi
  # ptxas 13 knows sm_75 and later only; PTX for an older target is forward compatible, so such files
  # are compiled for the oldest architecture this ptxas supports (and reported as such).
  probe="$(ptxas -arch="$arch" -c "$WORK/probe.ptx" -o "$WORK/probe.cubin" 2>&1)"
  case "$probe" in *"is not defined for option"*) arch="$OLDEST" ;; esac
  mode=""
  if ptxas -arch="$arch" -c "$ptx" -o "$WORK/$name.orig.cubin" >"$WORK/$name.orig.log" 2>&1; then
    mode="-c"
  elif ptxas -arch="$arch" "$ptx" -o "$WORK/$name.orig.cubin" >>"$WORK/$name.orig.log" 2>&1; then
    mode="whole"
  else
    echo "SKIP: $name: ptxas -arch=$arch rejects the original: $(grep -m1 -E 'error|fatal' "$WORK/$name.orig.log")"
    continue
  fi
  accepted=$((accepted + 1))
  if ! ptxlink-as "$ptx" --print-ptx >"$WORK/$name.rt.ptx" 2>"$WORK/$name.as.log"; then
    failures=$((failures + 1))
    echo "FAIL: $name: ptxlink-as --print-ptx failed: $(head -n1 "$WORK/$name.as.log")"
    continue
  fi
  if [ "$mode" = "-c" ]; then
    ptxas -arch="$arch" -c "$WORK/$name.rt.ptx" -o "$WORK/$name.rt.cubin" >"$WORK/$name.rt.log" 2>&1
  else
    ptxas -arch="$arch" "$WORK/$name.rt.ptx" -o "$WORK/$name.rt.cubin" >"$WORK/$name.rt.log" 2>&1
  fi
  if [ $? -eq 0 ]; then
    passed=$((passed + 1))
    echo "PASS: $name ($arch, ${mode/-c/separate})"
  else
    failures=$((failures + 1))
    echo "FAIL: $name: ptxas -arch=$arch ($mode) rejects the printed PTX $WORK/$name.rt.ptx: $(grep -m1 -E 'error|fatal' "$WORK/$name.rt.log")"
  fi
done
echo "roundtrip: $files files, $accepted accepted by ptxas, $passed round trips accepted, $failures failures"
[ "$failures" -eq 0 ]
