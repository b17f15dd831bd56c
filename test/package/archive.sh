#!/usr/bin/env bash
# Builds the self-contained archive (scripts/package.sh), unpacks it outside
# the build tree, moves it once (it must not depend on where it was
# unpacked), and checks that it needs no LLVM, Clang, yaml-cpp or C++ runtime
# library, that it parses with its own resource headers, that it lists and
# fuses the bundled example exactly as BUILD_DIR's kfuse does (the fused
# file compiles), and that its CMake package builds examples/cmake-project.
#   test/package/archive.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${KFUSE_NVCC:-/usr/local/cuda/bin/nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$root/scripts/package.sh" "$build" > "$work/package.log" || { cat "$work/package.log"; fail "package.sh failed"; }
archive=$(sed -n 's/^kfuse: wrote \(.*\.tar\.xz\) (.*)$/\1/p' "$work/package.log")
[ -f "$archive" ] || fail "package.sh named no archive"
mkdir "$work/unpacked"
tar -C "$work/unpacked" -xJf "$archive"
name=$(basename "$archive" .tar.xz)
[ -x "$work/unpacked/$name/bin/kfuse" ] || fail "no bin/kfuse in $name"
mv "$work/unpacked/$name" "$work/moved"
prefix=$work/moved
kfuse=$prefix/bin/kfuse

ldd "$kfuse" | tee "$work/ldd.txt"
if grep -Ei 'llvm|clang|yaml|stdc\+\+|libgcc_s|libz|libzstd' "$work/ldd.txt"; then
  fail "the packaged kfuse needs the libraries above"
fi
if readelf -d "$kfuse" | grep -E 'RPATH|RUNPATH'; then
  fail "the packaged kfuse records a library path of the build machine"
fi

# glibc keeps old symbol versions: a newer one runs it, an older one may not.
needs=$(objdump -T "$kfuse" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
echo "the packaged kfuse needs $needs; this machine has $(ldd --version | head -1)"

"$kfuse" --version | tee "$work/version.txt"
grep -qx "clang 19.[0-9.]* (LibTooling), resource directory $prefix/lib/clang/19" \
  "$work/version.txt" || fail "kfuse does not use the resource headers it was unpacked with"
"$kfuse" list "$root/examples/pair.cu" --print-command > "$work/command.txt"
grep -q -- "-resource-dir=$prefix/lib/clang/19" "$work/command.txt" \
  || fail "kfuse list does not parse with the packaged resource headers"

"$kfuse" list "$root/examples/pair.cu" > "$work/list.txt" || fail "kfuse list failed"
grep -q "^kernel row_sum_squares" "$work/list.txt" || fail "kfuse list shows no row_sum_squares"
"$kfuse" fuse "$root/configs/pair.yaml" -o "$work/packaged.fused.cu" 2> "$work/fuse.log" \
  || { cat "$work/fuse.log"; fail "kfuse fuse failed"; }
"$build/bin/kfuse" fuse "$root/configs/pair.yaml" -o "$work/built.fused.cu" > /dev/null 2>&1
cmp "$work/packaged.fused.cu" "$work/built.fused.cu" \
  || fail "the packaged kfuse fuses otherwise than $build/bin/kfuse"
"$nvcc" -arch=sm_90 -c "$work/packaged.fused.cu" -o "$work/packaged.fused.o" \
  || fail "the packaged kfuse's fused file does not compile"

KFUSE_PREFIX=$prefix bash "$here/run.sh" "$build" Ninja || fail "the packaged CMake package"

# The archive has no libraries: asking for them says so and why.
mkdir "$work/wants-library"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(w NONE)\nfind_package(kfuse REQUIRED COMPONENTS library)\n' \
  > "$work/wants-library/CMakeLists.txt"
if cmake -S "$work/wants-library" -B "$work/wants-library/build" -DCMAKE_PREFIX_PATH="$prefix" \
     > "$work/wants-library.log" 2>&1; then
  fail "find_package(kfuse COMPONENTS library) succeeded on the archive"
fi
# CMake wraps the message at its own width.
tr -s ' \n' '  ' < "$work/wants-library.log" | grep -q "has no component 'library'" \
  || { cat "$work/wants-library.log"; fail "find_package(kfuse COMPONENTS library) gives no reason"; }
echo "PASS: $(basename "$archive") ($(du -h "$archive" | cut -f1)) runs from $prefix"
