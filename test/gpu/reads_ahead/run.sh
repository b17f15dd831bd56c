#!/usr/bin/env bash
# The GPU check of loads issued ahead: test/gpu/reads_ahead/run.sh FUSED [LOGDIR]
# FUSED is `kfuse fuse test/gpu/reads_ahead/config.yaml -o FUSED`. Builds the
# check bit-exact (-fmad=false), runs it, then runs it under memcheck (the
# loads ahead stay inside each buffer) and initcheck.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fused=$(realpath "$1")
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
nvcc=${NVCC:-nvcc}
bin=$(mktemp -d)
"$nvcc" -O3 -arch=sm_90 -fmad=false -lineinfo -DKFUSE_FILE="\"$fused\"" -I"$here" \
  "$here/check.cu" "$here/originals.cu" "$here/fused.cu" -o "$bin/check" > "$logs/build.log" 2>&1 ||
  { cat "$logs/build.log"; echo "reads-ahead gpu check: BUILD FAILED"; exit 1; }
status=0
"$bin/check" | tee "$logs/check.log" || status=1
for tool in memcheck initcheck; do
  compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/check" --small > "$logs/$tool.log" 2>&1 ||
    { echo "$tool: errors (see $logs/$tool.log)"; status=1; }
  tail -1 "$logs/$tool.log"
done
echo "reads-ahead gpu check with sanitizers: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
