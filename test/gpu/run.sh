#!/usr/bin/env bash
# GPU check of kfuse's output (run on a machine with a GPU and nvcc; kfuse
# itself is not needed there). Usage: test/gpu/run.sh FUSED.cu [LOGDIR]
# FUSED.cu is `kfuse fuse configs/pair.yaml -o FUSED.cu`. Builds the harness
# with the original and the fused kernels, compares their outputs on fresh
# random inputs, then runs racecheck and synccheck on smaller inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fused=$(realpath "$1")
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
nvcc=${NVCC:-nvcc}
sanitizer=${COMPUTE_SANITIZER:-compute-sanitizer}
bin="$(mktemp -d)/check_pair"

"$nvcc" -O3 -arch=sm_90 -lineinfo -DKFUSE_FUSED_FILE="\"$fused\"" \
  "$here/check_pair.cu" "$here/originals.cu" "$here/fused.cu" -o "$bin" 2>&1 | tee "$logs/build.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"

status=0
timeout 120 "$bin" 2>&1 | tee "$logs/check.log" || status=1
for tool in racecheck synccheck; do
  timeout 300 "$sanitizer" --tool "$tool" --error-exitcode 3 "$bin" --small 2>&1 \
    | tee "$logs/$tool.log" | grep -E "SUMMARY|GPU CHECK|device:" || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
echo "gpu check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
