#!/usr/bin/env bash
# Fuzzing as routine, bounded in time (docs/reference.md: "Sanitizers and fuzzing").
#   1. The config reader under libFuzzer, built with AddressSanitizer and
#      UndefinedBehaviorSanitizer, seeded with every config of the tests and
#      configs/; fuzz/ConfigFuzzer.cpp aborts on any broken promise.
#   2. `kfuse fuse` on mutated kernels and configs (scripts/fuzz_kfuse.py),
#      with the kfuse binary given (build/bin/kfuse, or a sanitizer build's).
# Findings are kept under build/fuzz/findings. Exits 1 on any finding.
#
#   scripts/fuzz.sh [--seconds N] [--mutants N] [--kfuse PATH] [--seed N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60 mutants=100 seed=1 kfuse=$root/build/bin/kfuse
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --mutants) mutants=$2; shift 2 ;;
    --kfuse) kfuse=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--mutants N] [--kfuse PATH] [--seed N]" >&2; exit 2 ;;
  esac
done
out=$root/build/fuzz
rm -rf "$out" && mkdir -p "$out/seeds" "$out/corpus" "$out/findings"

# Seeds: each YAML section of a lit test, and each config of configs/.
python3 "$root/scripts/fuzz_kfuse.py" --config-seeds "$out/seeds"

clang=$(command -v clang++-19 || command -v clang++)
"$clang" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/fuzz/ConfigFuzzer.cpp" "$root/lib/Config/Config.cpp" \
  -lyaml-cpp -o "$out/config-fuzzer"

config_rc=0
(cd "$out/findings" && "$out/config-fuzzer" -max_total_time="$seconds" -seed="$seed" \
   -dict="$root/fuzz/config.dict" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
   "$out/corpus" "$out/seeds") > "$out/config-fuzzer.log" 2>&1 || config_rc=$?
grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::new_units_added|broken promise|ERROR:" \
  "$out/config-fuzzer.log" || true
echo "config fuzzer: exit $config_rc (log: $out/config-fuzzer.log)"

driver_rc=0
python3 "$root/scripts/fuzz_kfuse.py" --kfuse "$kfuse" --mutants "$mutants" \
  --seconds "$((seconds * 10))" --seed "$seed" --keep "$out/findings" || driver_rc=$?
[ $config_rc -eq 0 ] && [ $driver_rc -eq 0 ]
