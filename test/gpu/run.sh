#!/usr/bin/env bash
# GPU check of kfuse's output (run on a machine with a GPU and nvcc; kfuse
# itself is not needed there). Usage: test/gpu/run.sh PAIR.cu LEGACY.cu [LOGDIR]
# PAIR.cu is `kfuse fuse configs/pair.yaml -o PAIR.cu`, LEGACY.cu the same for
# configs/legacy.yaml. Builds each harness with the original and the fused
# kernels, compares their outputs on fresh random inputs (under a timeout, so
# a hang fails), then runs racecheck and synccheck on smaller inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fused=$(realpath "$1")
legacy=$(realpath "$2")
logs=${3:-$(mktemp -d)}
mkdir -p "$logs"
nvcc=${NVCC:-nvcc}
source "$here/sanitize.sh"
bin="$(mktemp -d)/check_pair"
legacy_bin="$(dirname "$bin")/check_legacy"

"$nvcc" -O3 -arch=sm_90 -lineinfo -DKFUSE_FUSED_FILE="\"$fused\"" \
  "$here/check_pair.cu" "$here/originals.cu" "$here/fused.cu" -o "$bin" 2>&1 | tee "$logs/build.log"
"$nvcc" -O3 -arch=sm_90 -lineinfo -DKFUSE_LEGACY_FILE="\"$legacy\"" \
  "$here/check_legacy.cu" "$here/legacy_originals.cu" "$here/legacy_image_originals.cu" \
  "$here/legacy_fused.cu" -o "$legacy_bin" 2>&1 \
  | tee -a "$logs/build.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"

status=0
for b in "$bin" "$legacy_bin"; do
  name=$(basename "$b")
  timeout 120 "$b" 2>&1 | tee "$logs/$name.log" || status=1
  sanitize "$name" "$b" "$logs" || status=1
done
echo "gpu check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
