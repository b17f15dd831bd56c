#!/usr/bin/env bash
# The vertical layouts of scripts/vertical_layouts.py, checked and timed in
# one run on a machine with a GPU and nvcc:
#   test/gpu/run_vertical_layouts.sh DIR [LOGDIR]
# DIR holds vertical-<layout>.cu for each layout. Every file is checked
# against the original launches as test/gpu/run_vertical.sh checks one (bit
# for bit with -fmad=false, to 1e-6 with contraction), the new layouts also
# under racecheck and synccheck; then each is timed against its own original
# launches, twice, and a table is printed last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(realpath "$1")
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
nvcc=${NVCC:-nvcc}
source "$here/sanitize.sh"
bin=$(mktemp -d)
layouts=$(cd "$dir" && ls vertical-*.cu | sed 's/^vertical-//; s/\.cu$//')
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
build() {
  local layout=$1 kind=$2 flags=()
  [ "$kind" = exact ] && flags=(-fmad=false -DKFUSE_EXACT)
  "$nvcc" -O3 -arch=sm_90 -lineinfo "${flags[@]}" -DKFUSE_VERTICAL_FILE="\"$dir/vertical-$layout.cu\"" \
    "$here/check_vertical.cu" "$here/vertical_originals.cu" "$here/vertical_fused.cu" \
    -o "$bin/$layout.$kind" > "$logs/build-$layout-$kind.log" 2>&1 || echo "build of $layout ($kind) failed"
}
export -f build
export here dir logs bin nvcc
for layout in $layouts; do printf '%s exact\n%s default\n' "$layout" "$layout"; done |
  xargs -P "$(nproc)" -n 2 bash -c 'build "$0" "$1"'
status=0
for layout in $layouts; do
  for kind in exact default; do
    if ! timeout 120 "$bin/$layout.$kind" > "$logs/$layout-$kind.log" 2>&1; then
      echo "$layout ($kind): CHECK FAILED"
      status=1
    fi
  done
  if [ "$layout" != base ]; then
    sanitize "$layout" "$bin/$layout.exact" "$logs" > "$logs/$layout-sanitize.log" 2>&1 ||
      { echo "$layout: sanitizers not clean"; status=1; }
  fi
done
for round in 1 2; do
  for layout in $layouts; do
    timeout 200 "$bin/$layout.default" --bench --seed 5 > "$logs/$layout-bench$round.log" 2>&1 || status=1
  done
done
grep -h "device:" "$logs/base-bench1.log"
echo "layout   fusion       original ms  fused ms  speedup (bytes bound 3.00x)  fused GB/s  [round]"
for round in 1 2; do
  for layout in $layouts; do
    awk -v l="$layout" -v r="$round" '/^(chain|map_reduce) / {
      printf "%-8s %-12s %11s %9s %8s %30s  [%s]\n", l, $1, $2, $3, $4, $7, r }' "$logs/$layout-bench$round.log"
  done
done
echo "vertical layouts gpu check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
