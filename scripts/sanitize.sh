#!/usr/bin/env bash
# kfuse under AddressSanitizer and UndefinedBehaviorSanitizer (docs/reference.md:
# "Sanitizers and fuzzing"): builds build-sanitize/ with KFUSE_SANITIZE=ON,
# runs the unit tests and the whole lit suite against that binary, then the
# mutation driver on it. Any sanitizer report fails the test that printed it
# (UBSan does not recover; ASan aborts). Takes a while on 2 cores.
#
#   scripts/sanitize.sh [--mutants N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mutants=100
[ "${1:-}" = "--mutants" ] && mutants=$2
build=$root/build-sanitize
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFUSE_SANITIZE=ON
cmake --build "$build" --target kfuse kfuse-unittests
# LLVM keeps some allocations until exit on purpose; a leak is not a finding here.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$build/test/kfuse-unittests"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build/test"
python3 "$root/scripts/fuzz_kfuse.py" --kfuse "$build/bin/kfuse" --mutants "$mutants" \
  --seconds 3600 --keep "$build/fuzz-findings"
