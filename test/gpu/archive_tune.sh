#!/usr/bin/env bash
# `kfuse tune --run` end to end on a GPU machine that has no LLVM, from the
# archive of scripts/package.sh: unpacks it outside the checkout, then for
# each config bundles, builds, measures and chooses in one command, and
# compiles the winning variants. Writes each run's reports and log under OUT.
#   test/gpu/archive_tune.sh ARCHIVE OUT [CONFIG...] [-- TUNE_ARGS]
# CONFIGs default to configs/tune.yaml; TUNE_ARGS (such as --gpus all) go to
# every kfuse tune. Prints a table of wall times and verdicts last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
archive=$(realpath "$1")
out=$2
shift 2
configs=()
while (($#)) && [ "$1" != -- ]; do configs+=("$(realpath "$1")"); shift; done
[ "${1:-}" = -- ] && shift
((${#configs[@]})) || configs=("$root/configs/tune.yaml")
mkdir -p "$out"
out=$(cd "$out" && pwd)
nvcc=${NVCC:-nvcc}

work=$(mktemp -d)
tar -C "$work" -xJf "$archive"
kfuse=$(echo "$work"/kfuse-*/bin/kfuse)
{
  "$kfuse" --version
  ldd "$kfuse"
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
} | tee "$out/machine.txt"

rows=()
for config in "${configs[@]}"; do
  name=$(basename "$config" .yaml)
  dir=$out/$name
  mkdir -p "$dir"
  start=$(date +%s)
  status=0
  (cd "$work" && "$kfuse" tune "$config" --run "$@" --bundle "$work/$name.tune" \
     -o "$dir/tuned.cu" --report "$dir") > "$dir/tune.log" 2>&1 || status=$?
  seconds=$(($(date +%s) - start))
  cp "$work/$name.tune/results.json" "$dir/" 2> /dev/null || true
  if [ "$status" -ne 0 ]; then
    tail -30 "$dir/tune.log"
    rows+=("$(printf '%-22s %8d s  FAILED (exit %d), see %s' "$name" "$seconds" "$status" "$dir/tune.log")")
    continue
  fi
  compiled="no winners"
  if [ -f "$dir/tuned.cu" ]; then
    "$nvcc" -std=c++17 -arch=native -c "$dir/tuned.cu" -o "$work/$name.tuned.o" \
      -I"$(dirname "$config")" > "$dir/compile.log" 2>&1 && compiled="compiles" || compiled="DOES NOT COMPILE"
  fi
  fused=$(grep -c ": fuse (" "$dir/tune.log" || true)
  kept=$(grep -c ": keep the original launches (" "$dir/tune.log" || true)
  rows+=("$(printf '%-22s %8d s  %2d fuse, %2d keep; tuned file %s' "$name" "$seconds" "$fused" "$kept" "$compiled")")
done
echo
printf '%-22s %10s  %s\n' config "wall" "verdicts"
printf '%s\n' "${rows[@]}"
