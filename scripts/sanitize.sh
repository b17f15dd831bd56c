#!/usr/bin/env bash
# kfuse under AddressSanitizer and UndefinedBehaviorSanitizer (docs/reference.md:
# "Sanitizers and fuzzing"): configures build-sanitize-ninja/ (or
# build-sanitize-make/) with KFUSE_SANITIZE=ON, builds kfuse and its unit tests
# there, and runs against that binary the unit tests, the lit suite and the
# mutation driver. Any sanitizer report fails its stage: both sanitizers abort
# on the first, and in lit, where `not %kfuse` would pass an abort, every run of
# kfuse that ends by a signal is noted and fails the lit stage. Every stage runs
# even when one before it failed; the script exits 1 when any failed and names
# them. The full run takes a while on 2 cores; --quick is sized for CI.
#
#   scripts/sanitize.sh [--generator Ninja|make] [--quick] [--mutants N]
#                       [--seconds N] [--jobs N] [--build-dir DIR]
#
#   --generator  CMake generator: Ninja (default) or "Unix Makefiles" (also: make);
#                each has its own build directory, build-sanitize-ninja or -make
#   --quick      unit tests, one lit test in 6 (every sixth in name order, so every
#                directory is sampled) and 10 mutants unless --mutants says otherwise
#   --mutants    mutants for scripts/fuzz_kfuse.py (default 100)
#   --seconds    time limit of the mutation driver (default 3600; 600 with --quick)
#   --jobs       build and lit parallelism (default CMAKE_BUILD_PARALLEL_LEVEL, else nproc)
#   --build-dir  build directory instead of build-sanitize-<generator>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  sed -n 's/^#   //p;s/^#  //p' "$0" | sed -n '/^scripts\/sanitize.sh/,$p' >&2
  exit 2
}
generator=Ninja quick=0 mutants='' seconds='' jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} build=''
while [ $# -gt 0 ]; do
  case $1 in
    --generator) [ $# -ge 2 ] || usage; generator=$2; shift 2 ;;
    --generator=*) generator=${1#*=}; shift ;;
    --quick) quick=1; shift ;;
    --mutants) [ $# -ge 2 ] || usage; mutants=$2; shift 2 ;;
    --seconds) [ $# -ge 2 ] || usage; seconds=$2; shift 2 ;;
    --jobs | -j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "sanitize.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case $(echo "$generator" | tr '[:upper:]' '[:lower:]') in
  ninja) generator=Ninja tag=ninja ;;
  make | "unix makefiles" | makefiles) generator="Unix Makefiles" tag=make ;;
  *) echo "sanitize.sh: generator '$generator' is neither Ninja nor Unix Makefiles" >&2; exit 2 ;;
esac
if [ $quick = 1 ]; then
  mutants=${mutants:-10} seconds=${seconds:-600}
else
  mutants=${mutants:-100} seconds=${seconds:-3600}
fi
build=${build:-$root/build-sanitize-$tag}
mkdir -p "$build"
build=$(cd "$build" && pwd)
start=$SECONDS

echo "== sanitize: $generator build in $build (jobs $jobs, $([ $quick = 1 ] && echo quick || echo full))"
cmake -S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFUSE_SANITIZE=ON
# The default target: kfuse's libraries, bin/kfuse and test/kfuse-unittests
# (and nothing else, not the statically linked kfuse-dist).
cmake --build "$build" -j "$jobs"
echo "== sanitize: built in $((SECONDS - start)) s"

kfuse=$build/bin/kfuse unittests=$build/test/kfuse-unittests
for f in "$kfuse" "$unittests"; do
  [ -x "$f" ] || { echo "sanitize.sh: the build did not produce $f" >&2; exit 1; }
  # grep -c reads all of nm's output: grep -q would stop early and, under
  # pipefail, nm's SIGPIPE would fail the check.
  nm "$f" 2>/dev/null | grep -c __asan_init > /dev/null ||
    { echo "sanitize.sh: $f is not built with AddressSanitizer" >&2; exit 1; }
done

# LLVM keeps some allocations until exit on purpose; a leak is not a finding here.
# UBSan aborts too (by default it exits 1, which a refusal's exit looks like).
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && [ -x /usr/lib/llvm-19/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-19/bin/llvm-symbolizer
fi

failed=()
stage() { # NAME COMMAND...: runs it, records a failure, never stops the script
  local name=$1 t0=$SECONDS rc=0
  shift
  echo "== sanitize: $name"
  "$@" || rc=$?
  echo "== sanitize: $name: exit $rc in $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || failed+=("$name (exit $rc)")
}

stage "unit tests" "$unittests"

# lit's internal shell runs `not CMD` as "CMD exits non-zero", so a sanitizer's
# abort (or any crash) in one of the many `not %kfuse` lines would pass, its
# report piped into FileCheck and read by nobody. So lit runs kfuse through a
# wrapper that runs $kfuse itself and notes every run of it that ends by a
# signal; any such run fails the lit stage, whatever the tests said. -Dkfuse
# names the wrapper outright (test/lit.cfg.py substitutes it for %kfuse), so
# lit cannot fall back on another build's kfuse.
wrapper=$build/sanitize-kfuse crashes=$build/sanitize-crashes.txt
cat > "$wrapper" << EOF
#!/bin/sh
# Written by scripts/sanitize.sh: runs the sanitized kfuse for lit and notes in
# $crashes every run that ends by a signal.
"$kfuse" "\$@"
rc=\$?
[ \$rc -le 128 ] || printf '%s\n' "exit \$rc (signal \$((rc - 128))) in \$PWD: kfuse \$*" >> "$crashes"
exit \$rc
EOF
chmod +x "$wrapper"
lit=${KFUSE_LIT:-/usr/lib/llvm-19/build/utils/lit/lit.py}
lit_args=(-sv -j "$jobs" --time-tests -Dkfuse="$wrapper")
# --quick: every sixth test in name order. Lexical, not lit's default order
# (slowest first, from the times of earlier runs), so the sample does not change
# from run to run.
[ $quick = 1 ] && lit_args+=(--order=lexical --num-shards 6 --run-shard 1)
lit_stage() {
  local rc=0
  rm -f "$crashes"
  python3 "$lit" "${lit_args[@]}" "$build/test" || rc=$?
  if [ -s "$crashes" ]; then
    echo "sanitize.sh: kfuse ended by a signal $(wc -l < "$crashes") time(s) in lit" \
      "(sanitizer reports abort; rerun a command to see its report):" >&2
    cat "$crashes" >&2
    [ $rc -ne 0 ] || rc=1
  fi
  return $rc
}
stage "lit" lit_stage

rm -rf "$build/fuzz-findings"
stage "mutation driver" python3 "$root/scripts/fuzz_kfuse.py" --kfuse "$kfuse" \
  --mutants "$mutants" --seconds "$seconds" --keep "$build/fuzz-findings"

echo "== sanitize: $generator, $((SECONDS - start)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
  printf '== sanitize: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "== sanitize: passed"
