#!/usr/bin/env python3
"""exit_status.py N CMD ARGS...: runs CMD and succeeds only when it exits
with status N (lit's `not` accepts any failure)."""
import subprocess
import sys

status = subprocess.call(sys.argv[2:])
if status != int(sys.argv[1]):
    print(f"expected exit status {sys.argv[1]}, got {status}", file=sys.stderr)
    sys.exit(1)
