#!/usr/bin/env bash
# Installs kfuse from BUILD_DIR into a temporary prefix, builds
# examples/cmake-project from that package with GENERATOR ("Unix Makefiles"
# or Ninja), or with examples/make-recipe's Makefile (make), and checks that
# the fusion step runs again exactly when one of its inputs changes. With
# "library", builds a tool against the installed libraries instead. With
# KFUSE_PREFIX set, uses the kfuse installed there (an unpacked archive of
# scripts/package.sh) instead of installing BUILD_DIR's.
# With "build-tree", builds examples/cmake-project with BUILD_DIR itself as
# the CMake prefix.
#   test/package/run.sh BUILD_DIR "Unix Makefiles"|Ninja|make|library|build-tree
set -euo pipefail
build=$(cd "$1" && pwd)
generator=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${KFUSE_NVCC:-/usr/local/cuda/bin/nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "$generator" = build-tree ]; then
  # The build tree as the prefix (issue 59: it found a config that lacked
  # kfuse_add_fusion), with CMake's default generator.
  ln -s "$build" "$work/prefix"
  generator="Unix Makefiles"
elif [ -n "${KFUSE_PREFIX:-}" ]; then
  ln -s "$KFUSE_PREFIX" "$work/prefix"
else
  cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
fi
"$work/prefix/bin/kfuse" --version | grep -q "^kfuse " || fail "the installed kfuse does not run"

if [ "$generator" = library ]; then
  if [ -z "${KFUSE_PREFIX:-}" ]; then
    # Installed: the public headers only, which include no other.
    (cd "$work/prefix/include" && find kfuse -name '*.h' -o -name '*.def' | sort) \
      > "$work/installed.txt"
    python3 "$root/scripts/public_headers.py" "$root" > "$work/public.txt"
    diff "$work/public.txt" "$work/installed.txt" \
      || fail "the installed headers are not scripts/public_headers.py's"
    [ ! -e "$work/prefix/include/kfuse/Transforms/EditSet.h" ] \
      || fail "an internal header is installed"
  fi
  cmake -S "$here/library-consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
    > "$work/configure.log"
  cmake --build "$work/consumer" > "$work/build.log"
  "$work/consumer/consumer" | tee "$work/versions.txt"
  grep -q "^kfuse $(sed -n 's/^project(kfuse VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")$" \
    "$work/versions.txt" || fail "the library reports another version"
  # The public pipeline returns the model kfuse fuse prints: the same file.
  "$work/consumer/consumer" "$root/configs/pair.yaml" "$work/library.fused.cu" \
    | tee "$work/model.txt" || fail "the public pipeline did not fuse configs/pair.yaml"
  grep -q "^fusion sumsq_hash: sumsq_hash_fused, [0-9]* threads, row_sum_squares on \[0, " \
    "$work/model.txt" || fail "the model lacks fusion sumsq_hash"
  "$work/prefix/bin/kfuse" fuse "$root/configs/pair.yaml" -o "$work/tool.fused.cu" 2> /dev/null \
    || fail "kfuse fuse failed on configs/pair.yaml"
  cmp "$work/library.fused.cu" "$work/tool.fused.cu" \
    || fail "the library's fused file differs from kfuse fuse's"
  "$nvcc" -arch=sm_90 -c "$work/library.fused.cu" -o "$work/library.fused.o" \
    || fail "the library's fused file does not compile"
  # One fusion through the pipeline stage, with a typed layout: 256 + 768 threads.
  "$work/consumer/consumer" "$root/configs/pair.yaml" "$work/one.fused.cu" sumsq_hash 256,768 \
    | tee "$work/one.txt" || fail "the pipeline stage did not fuse sumsq_hash"
  grep -q "^fusion sumsq_hash: sumsq_hash_fused, 1024 threads, row_sum_squares on \[0, 256), hash_rounds on \[256, 1024)$" \
    "$work/one.txt" || fail "the pipeline stage did not lay sumsq_hash out as asked"
  "$nvcc" -arch=sm_90 -c "$work/one.fused.cu" -o "$work/one.fused.o" \
    || fail "the pipeline stage's fused file does not compile"
  echo "PASS: a tool links kfuse's installed libraries and fuses through the public pipeline"
  exit 0
fi

# A copy, so that touching its files leaves the checkout alone.
cp -r "$root/examples/cmake-project" "$work/src"
if [ "$generator" = make ]; then
  cp -r "$root/examples/make-recipe" "$work/make"
  build_cmd=(make -C "$work/make" SRC="$work/src" BUILD="$work/build" KFUSE="$work/prefix/bin/kfuse"
             NVCC="$nvcc")
  fused=$work/build/blend_stats.fused.cu
  outputs=$work/build
else
  cmake -G "$generator" -S "$work/src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CUDA_COMPILER="$nvcc" > "$work/configure.log"
  build_cmd=(cmake --build "$work/build")
  fused=$work/build/kfuse/blend_stats/blend_stats.fused.cu
  outputs=$work/build/kfuse/blend_stats
fi

# Builds and says whether the fusion step ran; its output must then be newer.
build_runs_kfuse() {
  sleep 1 # File times must tell this build's outputs from the last.
  touch "$work/before"
  "${build_cmd[@]}" > "$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build failed"; }
  if grep -q "kfuse: wrote fusion" "$work/build.log"; then
    [ "$fused" -nt "$work/before" ] || fail "kfuse ran but $fused is older than the build"
    return 0
  fi
  [ "$fused" -nt "$work/before" ] && fail "$fused changed although kfuse did not run"
  return 1
}
expect() { # expect run|skip WHAT
  if build_runs_kfuse; then ran=run; else ran=skip; fi
  [ "$ran" = "$1" ] || fail "after $2, the fusion step should $1 but did $ran"
  echo "ok: after $2, the fusion step did $ran"
}

expect run "the first build"
for f in blend_stats.fused.cu blend_stats.fused.h blend_stats.fused.d; do
  [ -s "$outputs/$f" ] || fail "no $f"
done
[ -x "$work/build/blend_stats" ] || fail "no blend_stats executable"
grep -q "blend_stats_launch" "$outputs/blend_stats.fused.h" || fail "no launcher declared"
expect skip "a build with nothing changed"
touch "$work/src/main.cu";              expect skip "touching main.cu, which the fusion does not read"
touch "$work/src/kernels.cu";           expect run  "touching the kernels' source"
touch "$work/src/include/tuning.h";     expect run  "touching a header the kernels include"
touch "$work/src/blend_stats.yaml";     expect run  "touching the config"
expect skip "a build with nothing changed"
echo "PASS: examples/cmake-project builds with the installed kfuse ($generator${KFUSE_PREFIX:+, from $KFUSE_PREFIX})"
