#!/usr/bin/env bash
# Checks that kfuse's C++ and CUDA sources are formatted as .clang-format
# says, with clang-format 19 (which scripts/bootstrap.sh installs). Lists
# each file that is not and exits 1; `--fix` formats them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format-19}
command -v "$format" >/dev/null || { echo "kfuse: $format not found" >&2; exit 1; }
mapfile -t files < <(git ls-files 'lib/*.cpp' 'lib/*.h' 'lib/*.cu' 'include/*.h' 'tools/*.cpp' \
                                  'fuzz/*.cpp' 'test/unit/*.cpp' 'harness/*.cu' 'harness/*.h')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$format" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "kfuse: $f is not formatted (scripts/check_format.sh --fix)"
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "kfuse: ${#files[@]} files formatted as .clang-format says"
exit "$bad"
