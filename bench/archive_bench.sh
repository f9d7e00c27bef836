#!/usr/bin/env bash
# Static library benchmark (docs/archives.md, "Cost"): a library of N members (default 10,000), a program
# that needs 1% of them.
#   1. build time: ptxlink-ar rcs vs llvm-ar rcs on the same N objects (best of $BENCH_RUNS runs, default 5);
#   2. link time: the program against the N-member library vs against a library holding only the members
#      it needs; the difference is what the unused 99% cost (reading the symbol index and member headers).
# Usage: bench/archive_bench.sh [BUILD_DIR] [N] [STEP]   (BUILD_DIR defaults to <repo>/build; the program
#        needs every STEP-th member, default 100: 1%; STEP 1 extracts every member, the case where
#        extraction's cost in members x names showed)
# Inputs are generated under bench/work/archive (git-ignored) and reused on later runs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(cd "${1:-$ROOT/build}" && pwd)/bin"
N="${2:-10000}"
STEP="${3:-100}"
LLVM_AR="${LLVM_AR:-$(command -v llvm-ar || echo /usr/lib/llvm-19/bin/llvm-ar)}"
WORK="$ROOT/bench/work/archive/n$N$([[ $STEP == 100 ]] || echo "-step$STEP")"
mkdir -p "$WORK"
cd "$WORK"

# Best wall time of $BENCH_RUNS (default 5) runs of a command, in seconds; the file named first ("-" for none) is removed
# before each run, so archive builds always start from scratch.
best_of() {
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
best = None
remove = sys.argv.pop(1)
for _ in range(int(os.environ.get("BENCH_RUNS", "5"))):
    if remove != "-" and os.path.exists(remove):
        os.remove(remove)
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
    d = time.perf_counter() - t
    best = d if best is None else min(best, d)
print(f"{best:.3f}")
PY
}

if [[ ! -f objs/done ]]; then
  echo "generating $N PTX members and assembling them..." >&2
  rm -rf ptx objs && mkdir -p ptx objs
  python3 - "$N" "$STEP" <<'PY'
import sys
n = int(sys.argv[1])
for i in range(n):
    with open(f"ptx/m{i:05d}.ptx", "w") as f:
        f.write(f""".version 8.0
.target sm_90
.address_size 64
.visible .global .align 4 .u32 v_{i} = {i};
.func (.param .b32 r) helper_{i}(.param .b32 x)
{{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  mul.lo.s32 %r2, %r1, {i % 97 + 3};
  add.s32 %r3, %r2, {i};
  st.param.b32 [r], %r3;
  ret;
}}
.visible .func (.param .b32 r) f_{i}(.param .b32 x)
{{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  {{ .param .b32 a; .param .b32 rr; st.param.b32 [a], %r1; call.uni (rr), helper_{i}, (a); ld.param.b32 %r2, [rr]; }}
  ld.global.u32 %r3, [v_{i}];
  add.s32 %r2, %r2, %r3;
  st.param.b32 [r], %r2;
  ret;
}}
""")
step = int(sys.argv[2])
with open("main.ptx", "w") as f:
    f.write(".version 8.0\n.target sm_90\n.address_size 64\n")
    needed = list(range(0, n, step))
    for i in needed:
        f.write(f".extern .func (.param .b32 r) f_{i}(.param .b32 x);\n")
    f.write(".visible .entry kmain(.param .u64 p)\n{\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<2>;\n"
            "  ld.param.u64 %rd1, [p];\n  mov.b32 %r1, 1;\n")
    for i in needed:
        f.write(f"  {{ .param .b32 a; .param .b32 r; st.param.b32 [a], %r1; call.uni (r), f_{i}, (a); "
                f"ld.param.b32 %r1, [r]; }}\n")
    f.write("  st.global.u32 [%rd1], %r1;\n  ret;\n}\n")
with open("needed.txt", "w") as f:
    f.write("\n".join(f"m{i:05d}.o" for i in needed) + "\n")
PY
  # One ptxlink-ar process assembles every member; extracting them gives the objects both tools archive.
  (cd ptx && "$BIN/ptxlink-ar" rc ../gen.a m*.ptx)
  (cd objs && "$BIN/ptxlink-ar" x ../gen.a)
  "$BIN/ptxlink-as" main.ptx -o main.o
  touch objs/done
fi

cd objs
OBJS=(m*.o)
echo "members: ${#OBJS[@]}, total object bytes: $(cat m*.o | wc -c)"
PTXLINK_AR=$(best_of ../lib_ptxlink.a "$BIN/ptxlink-ar" rcs ../lib_ptxlink.a "${OBJS[@]}")
LLVMAR=$(best_of ../lib_llvm.a "$LLVM_AR" rcs ../lib_llvm.a "${OBJS[@]}")
mapfile -t NEEDED < ../needed.txt
"$BIN/ptxlink-ar" rcs ../lib_needed.a "${NEEDED[@]}"
cd ..
cmp <(llvm-nm --print-armap lib_ptxlink.a 2>/dev/null | sed -n '/Archive map/,/^$/p') \
    <(llvm-nm --print-armap lib_llvm.a 2>/dev/null | sed -n '/Archive map/,/^$/p') >/dev/null &&
  echo "symbol index: identical to llvm-ar's" || echo "symbol index: differs from llvm-ar's"
echo "build:  ptxlink-ar rcs ${PTXLINK_AR}s   llvm-ar rcs ${LLVMAR}s   ratio $(python3 -c "print(f'{$PTXLINK_AR/$LLVMAR:.2f}')")"

# Each link run with --time; per row (wall, "read inputs", "extract archive members") the best of the runs.
python3 - "$BIN/ptxlink" "$N" "${#NEEDED[@]}" <<'PY'
import os, re, subprocess, sys, time
ptxlink, n, needed = sys.argv[1:]
runs = int(os.environ.get("BENCH_RUNS", "5"))
def measure(lib, out):
    best = {}
    for _ in range(runs):
        t = time.perf_counter()
        run = subprocess.run([ptxlink, "-arch", "sm_90", "--emit", "ptx", "main.o", lib, "-o", out, "--time", "-"],
                             check=True, capture_output=True, text=True)
        text = run.stdout + run.stderr
        rows = {"wall": (time.perf_counter() - t) * 1000}
        for line in text.splitlines():
            m = re.match(r"(read inputs|extract archive members),[^,]*,([0-9.]+)", line)
            if m:
                rows[m.group(1)] = float(m.group(2))
        for k, v in rows.items():
            best[k] = min(best.get(k, v), v)
    return best
big = measure("lib_ptxlink.a", "out_big.ptx")
small = measure("lib_needed.a", "out_small.ptx")
same = open("out_big.ptx").read() == open("out_small.ptx").read()
print(f"linked output identical for both libraries: {same}")
print(f"link (ms, best of {runs})        {n+' members':>16} {needed+' members':>16}")
for k in ("wall", "read inputs", "extract archive members"):
    print(f"  {k:<28} {big.get(k, float('nan')):16.2f} {small.get(k, float('nan')):16.2f}")
PY
echo "library sizes: $(wc -c < lib_ptxlink.a) bytes ($N members), $(wc -c < lib_needed.a) bytes (needed only)"
