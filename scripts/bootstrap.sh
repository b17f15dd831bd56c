#!/usr/bin/env bash
# Installs kfuse's build dependencies from Debian packages (when missing), then configures and builds
# it in ./build. Safe to run again: apt and cmake both skip work that is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

# libomp-19-dev: Clang's own omp.h, for kernels in files that include it.
# libclang-rt-19-dev: libFuzzer and the sanitizer runtimes, for scripts/fuzz.sh.
# clang-format-19: scripts/check_format.sh, a test.
# libzstd-dev, zlib1g-dev, xz-utils: scripts/package.sh links zstd and zlib statically and packs with xz.
packages=(clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev llvm-19-tools libomp-19-dev libyaml-cpp-dev
          libclang-rt-19-dev clang-format-19 libzstd-dev zlib1g-dev xz-utils
          libgtest-dev cmake g++ python3 make ninja-build)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "kfuse: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
