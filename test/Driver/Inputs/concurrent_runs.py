"""Starts pairs of kfuse fuse runs that write the same two outputs and
checks that each time both outputs come from one run: the header names the
fusion its fused file defines. Usage: concurrent_runs.py ROUNDS KFUSE DIR."""
import pathlib
import subprocess
import sys

rounds, kfuse, work = int(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
mixed = 0
for r in range(rounds):
    runs = [subprocess.Popen([kfuse, "fuse", str(work / name), "-o", str(work / "out.cu"),
                              "--header", str(work / "out.h")])
            for name in ("first.yaml", "second.yaml")]
    if any(run.wait() != 0 for run in runs):
        sys.exit("a run failed")
    source = (work / "out.cu").read_text()
    header = (work / "out.h").read_text()
    fusion = "first" if "first_fits(" in header else "second"
    if f"{fusion}_fits(" not in source or ("second" if fusion == "first" else "first") + "_fits(" in source:
        mixed += 1
print(f"{mixed} of {rounds} rounds left outputs of two runs")
