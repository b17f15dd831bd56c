#!/usr/bin/env bash
# GPU check and benchmark of kfuse's vertical fusions (run on a machine with
# a GPU and nvcc). Usage: test/gpu/run_vertical.sh VERTICAL.cu [LOGDIR]
# VERTICAL.cu is `kfuse fuse configs/vertical.yaml -o VERTICAL.cu`. Checks
# every fusion against the original launches on fresh random inputs, bit
# for bit with -fmad=false and to 1e-6 with nvcc's default contraction, runs
# racecheck and synccheck on small inputs, then times the originals against
# the fused kernels.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fused=$(realpath "$1")
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
nvcc=${NVCC:-nvcc}
source "$here/sanitize.sh"
bin=$(mktemp -d)
sources=("$here/check_vertical.cu" "$here/vertical_originals.cu" "$here/vertical_fused.cu")
"$nvcc" -O3 -arch=sm_90 -lineinfo -fmad=false -DKFUSE_EXACT -DKFUSE_VERTICAL_FILE="\"$fused\"" \
  "${sources[@]}" -o "$bin/exact" 2>&1 | tee "$logs/vertical-build.log"
"$nvcc" -O3 -arch=sm_90 -lineinfo -DKFUSE_VERTICAL_FILE="\"$fused\"" \
  "${sources[@]}" -o "$bin/default" 2>&1 | tee -a "$logs/vertical-build.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"

status=0
timeout 120 "$bin/exact" 2>&1 | tee "$logs/vertical-exact.log" || status=1
timeout 120 "$bin/default" 2>&1 | tee "$logs/vertical-default.log" || status=1
sanitize vertical "$bin/exact" "$logs" || status=1
timeout 300 "$bin/default" --bench 2>&1 | tee "$logs/vertical-bench.log" || status=1
echo "vertical gpu check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
