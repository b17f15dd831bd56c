#!/usr/bin/env bash
# GPU check of examples/cmake-project (run on a machine with a GPU; the
# example is built where kfuse is, e.g. into build/example-project, since the
# GPU machine need not have kfuse). Usage:
#   test/gpu/run_cmake_example.sh BLEND_STATS_BINARY [LOGDIR]
# Runs the example, which checks the fused launcher against the original
# kernels, then runs it on 64K elements under compute-sanitizer's racecheck,
# synccheck and memcheck, which must report nothing.
set -euo pipefail
binary=$(realpath "$1")
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
status=0
timeout 120 "$binary" 2>&1 | tee "$logs/example.log" || status=1
for tool in racecheck synccheck memcheck; do
  rc=0
  timeout 300 "${COMPUTE_SANITIZER:-compute-sanitizer}" --tool "$tool" --error-exitcode 3 \
    "$binary" 65536 > "$logs/example.$tool.log" 2>&1 || rc=$?
  grep -E "SUMMARY|kfuse example" "$logs/example.$tool.log" || true
  if [ $rc -ne 0 ] || ! grep -qE "SUMMARY: 0 (errors|hazards displayed \(0 errors, 0 warnings\))" \
    "$logs/example.$tool.log"; then
    echo "example under $tool: not clean (exit $rc)"
    status=1
  fi
done
echo "cmake example gpu check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
