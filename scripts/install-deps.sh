#!/usr/bin/env bash
# Installs the Debian 12 packages ptxlink needs to build and test it, and only those that are missing.
#
# Why: the two set-up commands in README.md (scripts/demo.sh, scripts/test.sh) must work on a fresh
# Debian 12 machine with nothing pre-built, yet must not hit the network (apt-get update) when the machine
# already has everything. NVIDIA's CUDA tools are NOT installed here: they are optional, and the tests
# that need nvcc/ptxas/nvlink skip cleanly without them.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ python3
  llvm-19 llvm-19-dev llvm-19-tools   # libLLVM, llc/llvm-ar/llvm-readelf, FileCheck and lit
  libxxhash-dev libgtest-dev googletest libzstd-dev liblz4-dev
  libssl-dev openssl                  # TLS of an https:// remote cache; openssl makes the TLS test's certificates
  time                                # /usr/bin/time -v for the benchmark's peak-memory figures
  graphviz                            # dot: the tests render --callgraph-dot / ptxlink-dump --format dot
  clang-14 libclang-rt-14-dev         # the fuzz pass of scripts/test.sh: libFuzzer + ASan/UBSan (scripts/fuzz.sh ci)
  nginx-light                         # WebDAV (dav_methods PUT): the HTTP server of the remote-cache test
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing packages (${missing[*]}) and no apt-get: install them by hand" >&2
  exit 1
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: missing packages (${missing[*]}); run as root or install sudo" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
