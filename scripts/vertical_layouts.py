#!/usr/bin/env python3
"""configs/vertical.yaml fused with each vertical layout of the issue-38 table.

usage: vertical_layouts.py OUTDIR [--kfuse PATH]

Writes OUTDIR/vertical-<layout>.yaml (configs/vertical.yaml with the chain
and map_reduce given the layout's keys) and fuses each into
OUTDIR/vertical-<layout>.cu. test/gpu/run_vertical_layouts.sh OUTDIR LOGDIR
then checks every file against the original launches and times them all in
one run on the GPU machine.
"""
import argparse
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Layout name -> fusion -> the keys it adds to that fusion.
LAYOUTS = {
    "base": {},
    "ow": {"map_reduce": {"reductions": "one-warp"}},
    "k2": {"map_reduce": {"blocks_per_iteration": 2}, "chain": {"blocks_per_iteration": 2}},
    "k4": {"map_reduce": {"blocks_per_iteration": 4}, "chain": {"blocks_per_iteration": 4}},
    "k2ow": {"map_reduce": {"reductions": "one-warp", "blocks_per_iteration": 2}},
    "k4ow": {"map_reduce": {"reductions": "one-warp", "blocks_per_iteration": 4}},
    "k8ow": {"map_reduce": {"reductions": "one-warp", "blocks_per_iteration": 8}},
    "pk4ow": {
        "map_reduce": {"reductions": "one-warp", "blocks_per_iteration": 4, "grid": "persistent"},
        "chain": {"blocks_per_iteration": 4, "grid": "persistent"},
    },
}

# The line each fusion's keys follow in configs/vertical.yaml.
ANCHORS = {
    "map_reduce": "      - [square.n, reduce.n]\n",
    "chain": "      - [scale.n, bias.n, act.n]   # one element count for the whole chain\n",
}


def config_for(base, keys):
    text = base
    for fusion, values in keys.items():
        anchor = ANCHORS[fusion]
        if anchor not in text:
            sys.exit(f"configs/vertical.yaml no longer has the line {anchor!r}")
        added = "".join(f"    {k}: {v}\n" for k, v in values.items())
        text = text.replace(anchor, anchor + added)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=pathlib.Path)
    parser.add_argument("--kfuse", default=str(ROOT / "build/bin/kfuse"))
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    examples = ROOT / "examples"
    base = (ROOT / "configs/vertical.yaml").read_text().replace("../examples/", f"{examples}/")
    for name, keys in LAYOUTS.items():
        config = args.outdir / f"vertical-{name}.yaml"
        config.write_text(config_for(base, keys))
        fused = args.outdir / f"vertical-{name}.cu"
        result = subprocess.run([args.kfuse, "fuse", str(config), "-o", str(fused)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"kfuse fuse {config} failed:\n{result.stderr}")
    print(f"wrote {len(LAYOUTS)} fused files to {args.outdir}; on the GPU machine run "
          f"test/gpu/run_vertical_layouts.sh {args.outdir} LOGDIR")


if __name__ == "__main__":
    main()
