#!/usr/bin/env bash
# The demo command: installs what is missing, builds the tools (Release), then runs the main job on the
# bundled example (examples/vecmath, three CUDA translation units compiled by `nvcc -rdc=true -ptx`):
# assemble each PTX file into a relocatable object, archive two of them, link the program for sm_80 and
# sm_90 into one NVIDIA fatbinary, dump the result, and emit the linked PTX (checked with ptxas if the
# CUDA tools are installed); with nvcc installed, build the host program with ptxlink as its device
# linker (nvcc -dc, ptxlink --emit host-object, g++ -lcudart) and run it when a GPU is present.
#
# A step is skipped (and says so) only when the tool it needs has not been written yet; a tool that
# exists and fails stops the demo with a non-zero status.
#   PTXLINK_BUILD_DIR, PTXLINK_BUILD_TYPE, PTXLINK_JOBS: see scripts/build.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${PTXLINK_BUILD_DIR:-$ROOT/build}"
EXAMPLE="$ROOT/examples/vecmath"
OUT="$BUILD_DIR/demo"
BIN="$BUILD_DIR/bin"

"$ROOT/scripts/install-deps.sh"

# Build only the tools (not the unit tests): those whose sources exist are known to CMake.
PTXLINK_BUILD_TYPE="${PTXLINK_BUILD_TYPE:-Release}" "$ROOT/scripts/build.sh" -t targets >/dev/null
targets=()
for tool in ptxlink-as ptxlink ptxlink-ar ptxlink-dump; do
  if ninja -C "$BUILD_DIR" -t query "$tool" >/dev/null 2>&1; then
    targets+=("$tool")
  else
    echo "demo: note: $tool is not written yet; the steps that need it are skipped"
  fi
done
if [ ${#targets[@]} -gt 0 ]; then
  PTXLINK_BUILD_TYPE="${PTXLINK_BUILD_TYPE:-Release}" "$ROOT/scripts/build.sh" "${targets[@]}"
fi
have() { [ -x "$BIN/$1" ]; }
run() {
  echo
  echo "\$ $*" | sed "s#$BIN/##g; s#$ROOT/##g"
  "$@"
}

rm -rf "$OUT"
mkdir -p "$OUT"
PTX=(ops reduce kernels)

# 1. Assemble: PTX -> relocatable device ELF (one section per function/variable, symbols, relocations).
inputs=()
if have ptxlink-as; then
  for m in "${PTX[@]}"; do
    run "$BIN/ptxlink-as" "$EXAMPLE/$m.ptx" -o "$OUT/$m.o"
    inputs+=("$OUT/$m.o")
  done
else
  echo "demo: skip: assembling (ptxlink-as not built); the linker will read the .ptx files directly"
  for m in "${PTX[@]}"; do inputs+=("$EXAMPLE/$m.ptx"); done
fi

# 2. Inspect one object: kernels.o references vm_axpy, vm_block_sum, vm_scale... defined elsewhere.
if have ptxlink-dump && have ptxlink-as; then
  run "$BIN/ptxlink-dump" --symbols "$OUT/kernels.o"
fi

# 3. Archive the helpers: the linker pulls members out of the library only when they are needed.
link_inputs=("${inputs[@]}")
if have ptxlink-ar && have ptxlink-as; then
  run "$BIN/ptxlink-ar" rcs "$OUT/libvecmath.a" "$OUT/ops.o" "$OUT/reduce.o"
  link_inputs=("$OUT/kernels.o" "$OUT/libvecmath.a")
  if have ptxlink-dump; then
    run "$BIN/ptxlink-dump" --list "$OUT/libvecmath.a"
  fi
else
  echo "demo: skip: archiving (ptxlink-ar not built)"
fi

# 4. Link for two architectures into one fatbinary, then look inside it.
if have ptxlink; then
  run "$BIN/ptxlink" -arch sm_80,sm_90 "${link_inputs[@]}" -o "$OUT/vecmath.fatbin"
  if have ptxlink-dump; then
    run "$BIN/ptxlink-dump" --list "$OUT/vecmath.fatbin"
  fi
  # 5. The linked PTX module for one arch: a complete program that ptxas compiles without -c.
  run "$BIN/ptxlink" -arch sm_80 --emit ptx "${link_inputs[@]}" -o "$OUT/vecmath.sm_80.ptx"
  echo
  # Definitions open their body with a "{" line of their own (prototypes have none).
  kernels="$(grep -cE '^\.(visible |weak )?\.entry' "$OUT/vecmath.sm_80.ptx" || true)"
  bodies="$(grep -c '^{$' "$OUT/vecmath.sm_80.ptx" || true)"
  echo "linked PTX: $kernels kernels, $((bodies - kernels)) device functions defined (the helpers nothing" \
    "calls were dropped), $(wc -c <"$OUT/vecmath.sm_80.ptx") bytes -> $OUT/vecmath.sm_80.ptx"
  if command -v ptxas >/dev/null 2>&1; then
    run ptxas -arch=sm_80 "$OUT/vecmath.sm_80.ptx" -o "$OUT/vecmath.sm_80.cubin"
    echo "ptxas accepted the linked module (whole program, no -c)"
  else
    echo "demo: note: ptxas not installed; not compiling the linked PTX"
  fi
else
  echo "demo: skip: linking (ptxlink not built)"
fi

# 6. The same program as a CUDA build with ptxlink as its device linker: nvcc -dc compiles each file
#    (keeping PTX), nvcc -lib archives the helpers, ptxlink --emit host-object writes the device-link
#    object, g++ links the executable with -lcudart. Run when a GPU is present.
if have ptxlink && command -v nvcc >/dev/null 2>&1 && command -v make >/dev/null 2>&1; then
  echo
  echo "\$ make -C examples/vecmath run   # nvcc -dc, nvcc -lib, ptxlink --emit host-object, g++ -lcudart"
  make --no-print-directory -C "$EXAMPLE" run BUILD="$OUT/host" PTXLINK_BIN="$BIN"
else
  echo "demo: note: nvcc (or make) not installed; not building the host program through ptxlink"
fi

echo
echo "demo: done; outputs in $OUT"
