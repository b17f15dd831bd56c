#!/usr/bin/env bash
# The evaluation of docs/benchmarks.md in three steps, because kfuse (which
# needs LLVM) and the GPU live on different machines:
#
#   scripts/eval.sh bundle             # where kfuse is: writes build/eval/{main,sweep,registers}
#   scripts/eval.sh gpu OUT [main|sweep|registers|all]
#                                      # on the GPU machine, CUDA toolkit only: checks the
#                                      # nine kernels against their CPU references, then
#                                      # measures every variant and baseline into OUT/*.json
#   scripts/eval.sh report OUT         # where kfuse is: verdicts, evaluation.md, charts
#                                      # in OUT/report/{main,sweep,registers}
#
# `gpu OUT main` and `gpu OUT sweep` each fit in ten minutes (289 s and 374 s on an H200);
# `registers` (configs/eval-registers.yaml) measures registers per warpgroup and needs
# Hopper.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kfuse=${KFUSE:-$root/build/bin/kfuse}
nvcc=${NVCC:-nvcc}
step=${1:-}
parts=(main sweep registers)

config_of() {
  case "$1" in
  main) echo "$root/configs/eval.yaml" ;;
  *) echo "$root/configs/eval-$1.yaml" ;;
  esac
}

case "$step" in
bundle)
  for part in "${parts[@]}"; do
    "$kfuse" tune "$(config_of "$part")" --bundle "$root/build/eval/$part"
  done
  ;;
gpu)
  out=${2:?usage: scripts/eval.sh gpu OUT [main|sweep|registers|all]}
  which=${3:-all}
  mkdir -p "$out/logs"
  out=$(cd "$out" && pwd)
  [ "$which" = all ] && selected=("${parts[@]}") || selected=("$which")
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/logs/gpu.txt"
  "$nvcc" --version | tail -2 | tee -a "$out/logs/gpu.txt"
  "$nvcc" -std=c++17 -O3 -arch=native -I "$root/examples/eval" \
    "$root/test/gpu/eval/check_kernels.cu" -o "$out/logs/check_kernels"
  "$out/logs/check_kernels" | tee "$out/logs/check_kernels.txt"
  for part in "${selected[@]}"; do
    start=$(date +%s)
    "$root/build/eval/$part/run.sh" --out "$out/$part.json" --jobs "$(nproc)" \
      > "$out/logs/$part.txt" 2>&1 || { tail -30 "$out/logs/$part.txt"; exit 1; }
    # The harness's log has each fusion's table; kfuse decides the verdicts
    # (native best, the winner) in one place: scripts/eval.sh report.
    echo "$part: measured in $(( $(date +%s) - start )) s; log in $out/logs/$part.txt;" \
      "verdicts: scripts/eval.sh report $out"
  done
  ;;
report)
  out=${2:?usage: scripts/eval.sh report OUT}
  for part in "${parts[@]}"; do
    [ -f "$out/$part.json" ] || continue
    "$kfuse" tune "$(config_of "$part")" --results "$out/$part.json" \
      -o "$out/report/$part/eval.tuned.cu" --report "$out/report/$part"
  done
  ;;
*)
  sed -n '2,13p' "$0"
  exit 2
  ;;
esac
