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
sanitizer=${COMPUTE_SANITIZER:-compute-sanitizer}
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
  for tool in racecheck synccheck; do
    log="$logs/$name.$tool.log"
    rc=0
    timeout 300 "$sanitizer" --tool "$tool" --error-exitcode 3 "$b" --small > "$log" 2>&1 || rc=$?
    grep -E "SUMMARY|GPU CHECK|device:" "$log" || true
    # Clean means a zero exit and a summary of zero findings.
    if [ $rc -ne 0 ] || ! grep -qE "SUMMARY: 0 (errors|hazards displayed \(0 errors, 0 warnings\))" "$log"; then
      echo "$name under $tool: not clean (exit $rc)"
      status=1
    fi
  done
done
echo "gpu check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
