#!/usr/bin/env bash
# Stands for nvcc where no GPU is: records the arguments it was given, one
# per line, in $FAKE_NVCC_LOG, and fails as nvcc -arch=native would.
printf '%s\n' "$@" > "$FAKE_NVCC_LOG"
exit 1
