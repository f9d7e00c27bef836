#!/usr/bin/env bash
# Builds this repository's own multi-file CUDA programs for tests/gpu/run-on-gpu.sh: each once with
# NVIDIA's device link (nvcc -dlink, nvlink) and in several ptxlink variants, so that a machine with a GPU
# can show that the CUDA driver loads every kind of fatbinary ptxlink writes and that the kernels compute
# what nvlink's twin computes.
#
# The problem it solves: without a GPU the test suite checks the device-link object's shape
# (tests/lit/hostlink) but never runs it. Variants (directory names under OUT/bin/<program>/):
#   nvcc          nvcc -dc, nvcc -dlink, g++ (the reference; nvcc -dlink is given the library members
#                 the program uses, since it would register all of a library's members)
#   ptx           ptxlink --emit host-object: a PTX-only fatbinary, compiled by the driver at load time
#   ptx-zstd      the same, PTX compressed (--compress zstd)
#   ptx-sm80      PTX for compute_80 only: the driver compiles it for the newer GPU it runs on
#   sass          --sass: cubins from ptxas/nvlink per module (default compression: PTX zstd:3, cubins none)
#   sass-none / sass-zstd / sass-lz4 / sass-zstd19   the same with --compress none / zstd / lz4 / zstd:19
#                 (an explicit --compress compresses the cubins too: the driver decompresses them)
#   sass-2arch    --sass -arch sm_80,sm_<ARCH>: the driver picks the cubin for its GPU
#   sass-whole    --sass --whole-program: one ptxas run over the linked module (cross-module inlining)
#   (xmodule's nvcc -dlto twin, NVIDIA's link-time optimisation and the fair reference for sass-whole's
#   speed, is built by run-on-gpu.sh where the GPU machine's toolkit has libnvvm; this one lacks it)
#   G-nvcc, G-sass, G-ptx   (app only) compiled with -G, linked by nvcc / ptxlink --sass / ptxlink
#
# Usage: tests/gpu/build-programs.sh PTXLINK_BIN_DIR OUT_DIR [ARCH]   (ARCH: 90 for an H100, the default)
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n 2,22p "$0"; exit 2; }
BIN=$(realpath "$1"); OUT=$(realpath -m "$2"); ARCH=${3:-90}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_APP="$HERE/../lit/hostlink/Inputs"
CUDA_LIB=$(dirname "$(command -v nvcc)")/../lib64
HOSTLIBS=(-L"$CUDA_LIB" -lcudart_static -ldl -lpthread -lrt)
W=$OUT/work
rm -rf "$W" && mkdir -p "$W" "$OUT/bin"
GEN=(-gencode "arch=compute_$ARCH,code=[sm_$ARCH,compute_$ARCH]")
GEN2=(-gencode "arch=compute_80,code=[sm_80,compute_80]" "${GEN[@]}")

# link NAME PROGRAM 'HOST OBJECTS' DEVICE-LINK-COMMAND...: the device link writes $W/PROGRAM/NAME/dlink.o
link() {
  local name=$1 prog=$2 host=$3; shift 3
  local d=$W/$prog/$name
  mkdir -p "$d" "$OUT/bin/$prog"
  if ! (cd "$W/$prog/objs-${OBJS:-plain}" && "$@" -o "$d/dlink.o" >"$d/link.log" 2>&1); then
    echo "LINK-FAIL $prog $name"; sed 's/^/    /' "$d/link.log" | head -n 20; return 0
  fi
  # The device-link object goes where @DLINK@ is: before the libraries whose members it pulls in.
  (cd "$W/$prog/objs-${OBJS:-plain}" && g++ ${host/@DLINK@/$d/dlink.o} "${HOSTLIBS[@]}" -o "$OUT/bin/$prog/$name")
  echo "BUILT $prog $name"
}

# --- app: tests/lit/hostlink/Inputs (calls across files, a device library, static and template kernels)
build_app_objects() { # DIR FLAGS...
  local d=$1; shift
  mkdir -p "$d" && cd "$d"
  nvcc -dc "$@" -I"$SRC_APP" "$SRC_APP"/vec.cu "$SRC_APP"/app.cu "$SRC_APP"/reduce.cu "$SRC_APP"/devonly.cu \
    "$SRC_APP"/unused.cu
  nvcc -lib reduce.o devonly.o unused.o -o libred.a
  g++ -c "$SRC_APP"/main.cpp -o main.o
  cd - >/dev/null
}
build_app_objects "$W/app/objs-plain" "${GEN[@]}"
build_app_objects "$W/app/objs-2arch" "${GEN2[@]}"
build_app_objects "$W/app/objs-G" -G "${GEN[@]}"
APP_HOST="main.o app.o vec.o @DLINK@ libred.a"
P="$BIN/ptxlink"
link nvcc app "$APP_HOST" nvcc -dlink "${GEN[@]}" app.o vec.o reduce.o devonly.o
link ptx app "$APP_HOST" "$P" -arch sm_$ARCH --emit host-object main.o app.o vec.o libred.a
link ptx-zstd app "$APP_HOST" "$P" -arch sm_$ARCH --compress zstd --emit host-object main.o app.o vec.o libred.a
OBJS=2arch link ptx-sm80 app "$APP_HOST" "$P" -arch sm_80 --emit host-object main.o app.o vec.o libred.a
for c in "" none zstd lz4 zstd:19; do
  link "sass${c:+-${c/:/}}" app "$APP_HOST" "$P" -arch sm_$ARCH --sass ${c:+--compress $c} --emit host-object \
    main.o app.o vec.o libred.a
done
link sass-whole app "$APP_HOST" "$P" -arch sm_$ARCH --sass --whole-program --emit host-object main.o app.o vec.o libred.a
OBJS=2arch link sass-2arch app "$APP_HOST" "$P" -arch sm_80,sm_$ARCH --sass --emit host-object main.o app.o vec.o libred.a
OBJS=2arch link nvcc-2arch app "$APP_HOST" nvcc -dlink "${GEN2[@]}" app.o vec.o reduce.o devonly.o
OBJS=G link G-nvcc app "$APP_HOST" nvcc -dlink -G "${GEN[@]}" app.o vec.o reduce.o devonly.o
OBJS=G link G-sass app "$APP_HOST" "$P" -arch sm_$ARCH --sass --emit host-object main.o app.o vec.o libred.a
OBJS=G link G-ptx app "$APP_HOST" "$P" -arch sm_$ARCH --emit host-object main.o app.o vec.o libred.a

# --- xmodule: a hot loop calling into another translation unit (timed)
mkdir -p "$W/xmodule/objs-plain"
(cd "$W/xmodule/objs-plain" && nvcc -dc -O3 "${GEN[@]}" -I"$HERE/xmodule" "$HERE/xmodule/main.cu" "$HERE/xmodule/ops.cu")
X_HOST="main.o ops.o @DLINK@"
link nvcc xmodule "$X_HOST" nvcc -dlink "${GEN[@]}" main.o ops.o
link ptx xmodule "$X_HOST" "$P" -arch sm_$ARCH --emit host-object main.o ops.o
link sass xmodule "$X_HOST" "$P" -arch sm_$ARCH --sass --emit host-object main.o ops.o
link sass-whole xmodule "$X_HOST" "$P" -arch sm_$ARCH --sass --whole-program --emit host-object main.o ops.o
