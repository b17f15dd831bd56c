#!/bin/bash
# HeCBench programs with vertical chains (issue 58): untuned rewrite vs
# original (gpu), then the FILL sizes of the Makefile's run given
# (fills.json), kfuse tune --run, fuse --tuning --rewrite-launches -i, build,
# three runs each against the original (tune).
# Expects beside it the packaged kfuse archive (scripts/package.sh), hb/ written by
# scripts/hecbench.py prepare, and HeCBench's include/ (its programs include ../include); writes its logs to $OUT_DIR.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${OUT_DIR:-/tmp/kfuse-gpu-run}; mkdir -p "$out"  # logs and results
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
rm -rf "$here/kfuse-0.1.0-linux-x86_64"; (cd "$here" && tar -xJf kfuse-0.1.0-linux-x86_64.tar.xz)
kf=$here/kfuse-0.1.0-linux-x86_64/bin/kfuse
start=$SECONDS
python3 "$root/scripts/hecbench.py" tune --out "$here/hb" --kfuse "$kf" --runs 3 --only "$1" \
  --fills "$root/docs/eval/hecbench-tune-h200-2026-11-29/fills.json" > "$out/tune-${1%%,*}.log" 2>&1
echo "tune rc=$? $((SECONDS - start)) s"; cat "$out/tune-${1%%,*}.log" | cut -c1-400
cp "$here/hb/tune.json" "$out/tune-${1%%,*}.json" 2>/dev/null
