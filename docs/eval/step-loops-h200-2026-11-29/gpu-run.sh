#!/bin/bash
# Grid-stride chains with their temporaries in registers (loops in step):
# a time step of three grid-stride kernels through suggest -> tune --run ->
# fuse --tuning --rewrite-launches -> nvcc -> run, against the original and
# the untuned rewrite; then the whole-program fuzzer's chain family (seeds 92
# and 93, half their cases grid-stride kernels). Final build of the session.
# Expects beside it the packaged kfuse archive (scripts/package.sh) and the fuzzer bundles chain92 and
# chain93 (scripts/fuzz_programs.py --bundle); writes its logs to $OUT_DIR.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${OUT_DIR:-/tmp/kfuse-gpu-run}; mkdir -p "$out"  # logs and results
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
nvcc --version | tail -2 >> "$out/gpu.txt"
rm -rf "$here/kfuse-0.1.0-linux-x86_64"; (cd "$here" && tar -xJf kfuse-0.1.0-linux-x86_64.tar.xz)
kf=$here/kfuse-0.1.0-linux-x86_64/bin/kfuse
$kf --version | tee -a "$out/gpu.txt"
w=/tmp/steps; rm -rf "$w"; mkdir -p "$w"; cp "$root/docs/eval/step-loops-h200-2026-11-29/step_loops.cu" "$w/"
cd "$w"
start=$SECONDS
$kf suggest step_loops.cu -o step.yaml > suggest.log 2>&1; echo "suggest rc=$?"
# The one edit: the grid the program computes at run time (8 blocks per SM of 132).
sed -i 's/grid: \[FILL\]/grid: [1056]/' step.yaml
# The chain through memory too, for comparison: an alternative tune measures.
cat >> step.yaml <<'YAML'
  - name: scale_shift_clamp_stored  # the same chain, its intermediates stored
    mode: vertical
    alternative: true
    kernels: [scale, shift, clamp]
    flows:
      - {from: scale.y, to: shift.in}
      - {from: shift.out, to: clamp.in}
    same:
      - [scale.n, shift.n]
      - [scale.n, clamp.n]
YAML
$kf tune step.yaml --run > tune.log 2>&1; echo "tune rc=$? $((SECONDS - start)) s"
$kf fuse step.yaml --tuning step.tune/results.json -o tuned/step.fused.cu --header tuned/step.fused.h --rewrite-launches > fuse-tuned.log 2>&1; echo "fuse tuned rc=$?"
$kf fuse step.yaml -o untuned/step.fused.cu --header untuned/step.fused.h --rewrite-launches > fuse-untuned.log 2>&1; echo "fuse untuned rc=$?"
nvcc -O3 -arch=sm_90 step_loops.cu -o original
nvcc -O3 -arch=sm_90 tuned/rewritten/step_loops.cu tuned/step.fused.cu -o tuned.bin
nvcc -O3 -arch=sm_90 untuned/rewritten/step_loops.cu untuned/step.fused.cu -o untuned.bin
for r in 1 2 3; do
  for b in original tuned.bin untuned.bin; do
    echo "$b run $r: $(./$b | tr '\n' ' ')"
  done
done | tee "$out/steps-runs.txt"
mkdir -p "$out/steps"
cp step.yaml suggest.log tune.log fuse-tuned.log step.tune/results.json "$out/steps/" 2>/dev/null
cp kfuse-report/evaluation.md "$out/steps/" 2>/dev/null
grep "kfuse: [a-z_]*: \(fuse\|keep\)" tune.log
grep "^- \*\*" kfuse-report/evaluation.md | cut -c1-400
grep -c "_launch(" tuned/rewritten/step_loops.cu
for seed in 92 93; do
  start=$SECONDS
  (cd "$here/chain$seed" && make -j16 > "$out/chain$seed-build.log" 2>&1 && python3 run.py -o "$out/chain$seed.jsonl" > "$out/chain$seed-run.log" 2>&1)
  echo "chain$seed rc=$? $((SECONDS - start)) s lines=$(wc -l < "$out/chain$seed.jsonl")"
done
