#!/usr/bin/env bash
# Installs kfuse from BUILD_DIR into a temporary prefix and builds
# examples/rewrite-launches with kfuse_add_fusion(... REWRITE_LAUNCHES) under
# GENERATOR ("Unix Makefiles" or Ninja), or with its Makefile (make). The
# program's own app.cu, which holds the kernels and launches them, is what
# kfuse parses: the build must not deadlock on the header kfuse writes, must
# compile the rewritten copy (which calls the launcher) instead of app.cu,
# leave app.cu as it was, and run kfuse again exactly when its inputs change.
#   test/package/rewrite.sh BUILD_DIR "Unix Makefiles"|Ninja|make
set -euo pipefail
build=$(cd "$1" && pwd)
generator=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${KFUSE_NVCC:-/usr/local/cuda/bin/nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cp -r "$root/examples/rewrite-launches" "$work/src"
cp "$work/src/app.cu" "$work/app.before"
if [ "$generator" = make ]; then
  build_cmd=(make -C "$work/src" BUILD="$work/build" KFUSE="$work/prefix/bin/kfuse" NVCC="$nvcc")
  outputs=$work/build
  copy=$work/build/rewritten/app.cu
else
  cmake -G "$generator" -S "$work/src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CUDA_COMPILER="$nvcc" > "$work/configure.log"
  build_cmd=(cmake --build "$work/build")
  outputs=$work/build/kfuse/app
  copy=$outputs/rewritten/app.cu
fi

build_runs_kfuse() {
  sleep 1 # File times must tell this build's outputs from the last.
  "${build_cmd[@]}" > "$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build failed"; }
  grep -q "kfuse: wrote fusion" "$work/build.log"
}
expect() { # expect run|skip WHAT
  if build_runs_kfuse; then ran=run; else ran=skip; fi
  [ "$ran" = "$1" ] || fail "after $2, the fusion step should $1 but did $ran"
  echo "ok: after $2, the fusion step did $ran"
}

expect run "the first build"
[ -x "$work/build/app" ] || fail "no app executable"
[ -s "$copy" ] || fail "no rewritten copy at $copy"
grep -q "saxpy_mix_keys_launch(" "$copy" || fail "the copy does not call the launcher"
grep -q '#include ".*app.fused.h"' "$copy" || fail "the copy does not include the header"
cmp -s "$work/src/app.cu" "$work/app.before" || fail "the build changed app.cu"
# The program is linked from the copy, which calls the launcher.
nm -C "$work/build/app" > "$work/symbols.txt"
grep -q "saxpy_mix_keys_launch" "$work/symbols.txt" || fail "app does not hold the launcher"
expect skip "a build with nothing changed"
touch "$work/src/app.cu";  expect run "touching app.cu, which kfuse reads and rewrites"
touch "$work/src/app.yaml"; expect run "touching the config"
expect skip "a build with nothing changed"
echo "PASS: examples/rewrite-launches builds its rewritten launches with the installed kfuse ($generator)"
