#!/usr/bin/env bash
# Writes kfuse as one self-contained archive,
#   BUILD_DIR/dist/kfuse-<version>-linux-x86_64.tar.xz
# holding bin/kfuse (linked statically against LLVM/Clang 19, yaml-cpp,
# zlib, zstd and the C++ runtime: it needs only glibc), Clang's resource
# headers at lib/clang/19 where kfuse finds them from its own path, the CMake
# package (find_package(kfuse), kfuse_add_fusion) at lib/cmake/kfuse, README
# and the licences of what is linked in. Unpacked anywhere, it runs from there.
#   scripts/package.sh [BUILD_DIR]     (default: build, as bootstrap.sh configures it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)

cmake --build "$build" --target kfuse-dist -j "$(nproc)"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --component dist --prefix "$stage/kfuse" > "$stage/install.log"
# Installed as a program (renamed from kfuse-dist), which --strip leaves.
strip "$stage/kfuse/bin/kfuse"
# The version the packaged binary itself reports: it must run to be named.
version=$("$stage/kfuse/bin/kfuse" --version | sed -n 's/^kfuse //p')
[ -n "$version" ] || { echo "package.sh: the packaged kfuse does not run" >&2; exit 1; }
name=kfuse-$version-linux-$(uname -m)
mv "$stage/kfuse" "$stage/$name"
mkdir -p "$build/dist"
archive=$build/dist/$name.tar.xz
tar -C "$stage" --owner=0 --group=0 --sort=name -cf - "$name" | xz -T0 -6 > "$archive.tmp"
mv "$archive.tmp" "$archive"
echo "kfuse: wrote $archive ($(du -h "$archive" | cut -f1))"
