#!/bin/sh
# ptxlink-device-link.sh PTXLINK [ptxlink arguments...] --nvcc-flags [FLAGS...] --end-nvcc-flags
#                        [objects, libraries, -o TARGET...]
# The device-link rule that ptxlink's CMake package (ptxlinkConfig.cmake, ptxlink_cuda_device_link)
# installs for CUDA_SEPARABLE_COMPILATION targets.
#
# Two problems with handing CMake's rule line to ptxlink as it is:
# - CMake gives the rule the target's nvcc flags (<LANGUAGE_COMPILE_FLAGS> <LINK_FLAGS>: CMAKE_CUDA_FLAGS,
#   -lineinfo, -Xcompiler ..., and the architectures of the target's CUDA_ARCHITECTURES as
#   --generate-code=arch=compute_80,code=[compute_80,sm_80]), written for nvcc -dlink. The architectures are
#   what the link needs, per target and known only here (a project may set CMAKE_CUDA_ARCHITECTURES after
#   find_package(ptxlink), or per target), so they become ptxlink's -arch list: compute_XX (PTX) and
#   sm_XX (SASS) of arch XX both give sm_XX, and any sm_XX adds --sass, as nvcc -dlink would compile SASS.
#   Link-time optimisation (-dlto in the flags, as CMake's INTERPROCEDURAL_OPTIMIZATION adds it, or
#   lto_XX codes) becomes ptxlink -dlto for those architectures, with SASS from nvJitLink (no --sass).
#   nvcc's -arch=all|all-major|native are ptxlink's too; with no architecture at all (nvcc's default),
#   ptxlink -dlink takes the objects' own. A static library or object among the flags is an input; every
#   other nvcc flag is dropped. Architectures passed to ptxlink_cuda_device_link(ARCHITECTURES)
#   (an explicit -arch before --nvcc-flags) win over the target's.
# - <LINK_LIBRARIES> mixes device libraries (paths: libdev.a) with the host link's -l flags (-lcudadevrt
#   -lcudart_static -lrt -lpthread -ldl), which hold no PTX ptxlink could link (the device runtime is
#   SASS-only, and ptxlink finds it itself when a module needs it), so -l flags are dropped.
me="ptxlink-device-link"
ptxlink=$1
shift

fail() {
  echo "$me: error: $*" >&2
  exit 1
}

# One nvcc architecture specification, as CMake writes it:
# arch=compute_80,code=[compute_80,sm_80] | arch=compute_80,code=sm_80 | sm_80 | compute_80.
take_gencode() {
  spec=$1
  case $spec in
    arch=*)
      codes=${spec#*code=}
      [ "$codes" = "$spec" ] && codes=${spec#arch=}
      ;;
    *) codes=$spec ;;
  esac
  codes=$(printf '%s' "$codes" | tr -d '[]' | tr ',' ' ')
  for code in $codes; do
    case $code in
      compute_*) ptx="$ptx ${code#compute_} " ;;
      sm_*) cubins="$cubins ${code#sm_} " ;;
      lto_*) lto="$lto ${code#lto_} " ;;
      native | all | all-major) special="${special:+$special,}$code" ;; # ptxlink -arch=native|all|all-major
      *) fail "'$1': unknown architecture '$code'" ;;
    esac
  done
}

# nvcc's -arch=sm_80 alone means PTX for compute_80 and SASS for sm_80; -arch=compute_80 PTX only.
take_arch() {
  case $1 in
    sm_*) take_gencode "[compute_${1#sm_},$1]" ;;
    *) take_gencode "$1" ;;
  esac
}

ptx=
cubins=
lto=
dlto=
explicit_arch=
explicit_sass=
state=ptxlink
pending=
n=$#
while [ "$n" -gt 0 ]; do
  arg=$1
  shift
  n=$((n - 1))
  case $state in
    ptxlink)
      case $arg in
        --nvcc-flags) state=nvcc ;;
        -l*) ;;
        -arch | --arch | -arch=* | --arch=*) explicit_arch=1; set -- "$@" "$arg" ;;
        --sass) explicit_sass=1; set -- "$@" "$arg" ;;
        *) set -- "$@" "$arg" ;;
      esac
      ;;
    nvcc)
      if [ -n "$pending" ]; then
        $pending "$arg"
        pending=
        continue
      fi
      case $arg in
        --end-nvcc-flags) state=rest ;;
        -dlto | --dlto) dlto=-dlto ;;
        --generate-code=* | -gencode=*) take_gencode "${arg#*=}" ;;
        --generate-code | -gencode) pending=take_gencode ;;
        -arch | --gpu-architecture) pending=take_arch ;;
        -arch=* | --gpu-architecture=*) take_arch "${arg#*=}" ;;
        # A library or object among the flags (CudaRdcUtils.cmake of Celeritas/VecGeom puts the static
        # library its *_final target device-links into the link flags): an input, as nvcc takes it.
        -*) ;; # compile flags for nvcc (-lineinfo, -G, -Xcompiler=..., -std=...): nothing for ptxlink
        *.a | *.o) set -- "$@" "$arg" ;;
        *) ;;
      esac
      ;;
    rest)
      case $arg in
        -l*) ;;
        *) set -- "$@" "$arg" ;;
      esac
      ;;
  esac
done
# A rule line without the markers (a build folder configured with an older package): as then.
if [ -n "$explicit_arch" ] || [ "$state" = ptxlink ]; then
  exec "$ptxlink" "$@"
fi
# The -arch list: every architecture with PTX in the objects, in the flags' order, then those with SASS
# only (a -real entry: the objects' cubins stand in for their modules, as nvlink links them); SASS
# (--sass, for every listed architecture) when any was asked for.
[ -n "$lto" ] && dlto=-dlto
# With -dlto, SASS architectures count too: nvJitLink makes their SASS from the objects' LTO-IR.
[ -n "$dlto" ] && lto="$lto $cubins"
archs=$special
for a in $ptx $lto $cubins; do
  case ",$archs," in
    *",sm_$a,"*) ;;
    *) archs=${archs:+$archs,}sm_$a ;;
  esac
done
sass=
for sm in $cubins; do
  [ -n "$dlto" ] && break # nvJitLink makes the SASS of every architecture
  [ -n "$explicit_sass" ] || sass=--sass
done
# No architecture in the flags (CMake 3.25 with CUDA 13 sets none: nvcc's default applies): ptxlink -dlink
# then links for the architectures the objects were compiled for, with SASS, as nvcc -dlink does.
if [ -z "$archs" ]; then
  exec "$ptxlink" $dlto "$@"
fi
exec "$ptxlink" -arch "$archs" $sass $dlto "$@"
