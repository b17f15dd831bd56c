#!/usr/bin/env python3
"""Writes configs/eval.yaml, eval-sweep.yaml, eval-data-sized.yaml and
eval-registers.yaml, the configs of the evaluation (docs/benchmarks.md),
from the input sizes below: one place to
change a size, and the sweep's scaled kernels derived from the same
functions. Run from anywhere; the configs are checked in."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = 512
# Every kernel strides over its data with 528 blocks (4 per multiprocessor of
# an H100 or H200, a full wave at 512 threads): equal grids, so that every
# fused block runs every kernel (with data-sized grids of different lengths
# the shorter kernel's threads idle in the extra blocks; docs/benchmarks.md).
GRID = 528


def buf(t, n, fill=None):
    return "{buffer: %s, count: %d%s}" % (t, n, ", fill: %s" % fill if fill else "")


def val(v):
    return "{value: %s}" % v


RANDOM_WORDS = "{uniform: [0, 4294967295]}"


# Each returns (file, kernel, grid, args, comment). Batch norm has one block
# per channel: GRID channels.
def bn(batch, spatial, channels=GRID):
    return ("batchnorm_stats.cu", "batch_norm_collect_statistics", channels,
            [buf("float", batch * channels * spatial, "{uniform: [0, 2]}"),
             buf("float", channels, "zero"), buf("float", channels, "zero"),
             val(batch), val(channels), val(spatial)],
            f"{batch} x {channels} channels x {spatial} pixels")


def hist(n):
    return ("histogram.cu", "histogram1d", GRID,
            [buf("float", n, "{uniform: [0, 1]}"), buf("uint32", 100, "zero"), val(n), val(100),
             val(0.0), val(1.0)],
            f"{n} floats into 100 bins")


def maxpool(planes, h):
    o = h // 2
    total = planes * o * o
    return ("maxpool.cu", "max_pool2d_forward", GRID,
            [buf("float", planes * h * h), buf("float", total, "zero"),
             buf("int32", total, "zero"), val(planes), val(h), val(h), val(o), val(o)],
            f"{planes} planes of {h}x{h} to {o}x{o}")


def upsample(planes, h):
    o = 2 * h
    total = planes * o * o
    return ("upsample.cu", "upsample_bilinear2d", GRID,
            [buf("float", planes * h * h), buf("float", total, "zero"), val(planes), val(h),
             val(h), val(o), val(o), val(0.5), val(0.5)],
            f"{planes} planes of {h}x{h} to {o}x{o}")


def im2col(channels, h):
    total = channels * h * h
    return ("im2col.cu", "im2col_kernel", GRID,
            [buf("float", total), buf("float", channels * 9 * h * h, "zero"), val(channels),
             val(h), val(h), val(3), val(3), val(1), val(1), val(h), val(h)],
            f"{channels} channels of {h}x{h}, 3x3 windows")


def ethash(count, pages=2097152):
    return ("ethash_like.cu", "ethash_like_search", GRID,
            [buf("uint32", pages * 32, RANDOM_WORDS), val(pages),
             buf("uint32", 8, RANDOM_WORDS), val(0), val(count),
             buf("uint32", count * 8, "zero")],
            f"{count} nonces over a {pages * 128 >> 20} MiB table")


def nonces(file, kernel, out):
    def make(count):
        return (file, kernel, GRID,
                [buf("uint32", 20, RANDOM_WORDS), val(0), val(count), buf(out, count * 8, "zero")],
                f"{count} nonces")
    return make


# The registers evaluation's own pairs: a kernel with few registers that
# waits on memory beside one that needs many (docs/benchmarks.md, issue 19).
def triad(n):
    return ("stream_triad.cu", "stream_triad", GRID,
            [buf("float", n, "zero"), buf("float", n, "{uniform: [0, 1]}"),
             buf("float", n, "{uniform: [0, 1]}"), val(3.0), val(n)],
            f"{n} floats")


def gather(n, table=67108864):
    return ("gather.cu", "gather_scale", GRID,
            [buf("float", table, "{uniform: [0, 1]}"),
             buf("uint32", n, "{uniform: [0, %d]}" % (table - 1)), buf("float", n, "zero"),
             val(0.5), val(n)],
            f"{n} loads from a {table * 4 >> 20} MiB table")


def poly(n, rounds=20):
    return ("poly_bank.cu", "poly_bank", GRID,
            [buf("float", n, "{uniform: [0, 1]}"), buf("float", n, "zero"), val(n), val(rounds)],
            f"{n} points, {rounds} rounds")


def mix64(n, rounds=10):
    return ("mix64.cu", "mix64_hash", GRID,
            [buf("uint32", n, RANDOM_WORDS), buf("uint64", n, "zero"), val(n), val(rounds)],
            f"{n} seeds, {rounds} rounds")


sha256 = nonces("sha256d.cu", "sha256d_hash", "uint32")
blake256 = nonces("blake256.cu", "blake256_hash", "uint32")
blake2b = nonces("blake2b.cu", "blake2b_hash", "uint64")

# Sizes that make each kernel run for about 0.2 ms alone on an H200
# (calibrated from a first run; docs/benchmarks.md has the times measured).
SIZES = {
    "bn": lambda s: bn(32, int(3844 * s)),
    "hist": lambda s: hist(int(100663296 * s)),
    "maxpool": lambda s: maxpool(int(5280 * s), 112),
    "upsample": lambda s: upsample(int(1780 * s), 56),
    "im2col": lambda s: im2col(int(3880 * s), 56),
    "ethash": lambda s: ethash(int(109312 * s)),
    "sha256": lambda s: sha256(int(835584 * s)),
    "blake256": lambda s: blake256(int(1278976 * s)),
    "blake2b": lambda s: blake2b(int(1434624 * s)),
}
SCALE = {name: 1.0 for name in SIZES}
OWN_SIZES = {
    "triad": lambda: triad(50331648),
    "poly": lambda: poly(1048576),
    "gather": lambda: gather(16777216),
    "mix64": lambda: mix64(1048576),
}
# Where registers decide: the hash groups whose fused kernel took more
# registers than one of its kernels (docs/benchmarks.md), and the own pairs.
REGISTER_GROUPS = [["ethash", "blake2b"], ["ethash", "sha256"], ["ethash", "blake256"],
                   ["sha256", "blake256"], ["ethash", "sha256", "blake256"],
                   ["triad", "poly"], ["gather", "mix64"]]

DL = ["bn", "hist", "maxpool", "upsample", "im2col"]
CRYPTO = ["ethash", "sha256", "blake256", "blake2b"]
# The two best pairs of a first run share ethash: the trio is all three.
TRIO = ["ethash", "sha256", "blake256"]
# Figure 7: the second kernel of these pairs at these multiples of its size.
SWEEP = [("hist", "maxpool"), ("bn", "maxpool"), ("ethash", "sha256"), ("blake256", "blake2b")]
SWEEP_SCALES = [0.25, 0.5, 1, 2, 4]


def data_sized(spec, threads):
    """The spec launched the legacy way: one thread per output (or nonce)."""
    file, fn, _, args, what = spec
    return (file, fn, -(-threads // BLOCK), args, what + f", {threads} threads")


# Threads a data-sized launch starts per kernel: one per output or nonce
# (batch norm keeps one block per channel; ethash works on a nonce with 8
# lanes, one per word of its output, as Ethash miners launch it).
DATA_THREADS = {
    "bn": lambda s: GRID * BLOCK,
    "hist": lambda s: int(100663296 * s),
    "maxpool": lambda s: int(5280 * s) * 56 * 56,
    "upsample": lambda s: int(1780 * s) * 112 * 112,
    "im2col": lambda s: int(3880 * s) * 56 * 56,
    "ethash": lambda s: int(109312 * s) * 8,
    "sha256": lambda s: int(835584 * s),
    "blake256": lambda s: int(1278976 * s),
    "blake2b": lambda s: int(1434624 * s),
}


# Batch norm's block b works on channel b; every other kernel covers its data
# with grid-stride loops, so it works with any 1-D grid (a persistent grid
# runs it once instead of looping over its blocks).
NEEDS_ITS_GRID = {"batchnorm_stats.cu"}


def kernel(name, spec):
    file, fn, g, args, what = spec
    lines = [f"  - name: {name}  # {what}", f"    file: ../examples/eval/{file}",
             f"    kernel: {fn}", f"    block: [{BLOCK}]", "    any_block_size: true"]
    if file not in NEEDS_ITS_GRID:
        lines.append("    any_grid: true")
    lines += ["    launch:", f"      grid: [{g}]", "      args:"]
    return "\n".join(lines + [f"        - {a}" for a in args])


# 528 blocks fill the GPU: the main run and the sweep keep the grids as
# launched (configs/eval-data-sized.yaml measures the persistent grids).
AS_LAUNCHED = "tune: {grids: [as-launched]}"


def pairs(names):
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


HOWTO = """#   scripts/eval.sh bundle          # where kfuse is: the tuning bundles
#   scripts/eval.sh gpu OUT main    # on the GPU machine (and: gpu OUT sweep)
#   scripts/eval.sh report OUT      # where kfuse is: evaluation.md and charts
# Generated by scripts/eval-configs.py; edit the sizes there.
"""


def main():
    text = ["# The HFuse paper's evaluation rebuilt for kfuse: 9 kernels written for this\n"
            "# project (examples/eval/), the 10 pairs of the deep-learning kernels, the 6\n"
            "# pairs of the hash kernels and a three-kernel fusion, with inputs sized so\n"
            "# that every kernel runs for a similar time.\n" + HOWTO + "kernels:"]
    text += [kernel(n, SIZES[n](SCALE[n])) for n in DL + CRYPTO]
    text.append("fusions:")
    text += [f"  - {{name: {a}_{b}, kernels: [{a}, {b}], {AS_LAUNCHED}}}"
             for a, b in pairs(DL) + pairs(CRYPTO)]
    text.append(f"  - {{name: {'_'.join(TRIO)}, kernels: [{', '.join(TRIO)}], {AS_LAUNCHED}}}")
    with open(os.path.join(ROOT, "configs", "eval.yaml"), "w") as f:
        f.write("\n".join(text) + "\n")

    text = ["# The evaluation's fusions with data-sized grids (one thread per output or\n"
            "# nonce, as legacy code launches them), tuned in every grid mode, beside the\n"
            "# same fusions with the 528-block grids of configs/eval.yaml, in one run.\n"
            "# Fused blocks are split in steps of 256 in both.\n" + HOWTO + "kernels:"]
    text += [kernel(n, data_sized(SIZES[n](SCALE[n]), DATA_THREADS[n](SCALE[n])))
             for n in DL + CRYPTO]
    text += [kernel(n + "_528", SIZES[n](SCALE[n])) for n in DL + CRYPTO]
    text.append("fusions:")
    groups = [[a, b] for a, b in pairs(DL) + pairs(CRYPTO)] + [TRIO]
    text += [f"  - {{name: {'_'.join(g)}, kernels: [{', '.join(g)}], tune: {{step: 256}}}}"
             for g in groups]
    text += [f"  - {{name: {'_'.join(g)}_528, kernels: [{', '.join(k + '_528' for k in g)}], "
             "tune: {step: 256, grids: [as-launched]}}" for g in groups]
    with open(os.path.join(ROOT, "configs", "eval-data-sized.yaml"), "w") as f:
        f.write("\n".join(text) + "\n")

    text = ["# The time-ratio sweep of the evaluation (the HFuse paper's Figure 7): four\n"
            "# pairs of configs/eval.yaml with the second kernel's input at 1/4, 1/2, 1, 2\n"
            "# and 4 times its size there.\n" + HOWTO + "kernels:"]
    fusions, seen = [], set()
    for a, b in SWEEP:
        if a not in seen:
            seen.add(a)
            text.append(kernel(a, SIZES[a](SCALE[a])))
        for s in SWEEP_SCALES:
            tag = f"{b}_x{s:g}".replace(".", "")
            if tag not in seen:
                seen.add(tag)
                text.append(kernel(tag, SIZES[b](SCALE[b] * s)))
            fusions.append(f"  - {{name: {a}_{tag}, kernels: [{a}, {tag}], {AS_LAUNCHED}}}")
    text.append("fusions:")
    text += fusions
    with open(os.path.join(ROOT, "configs", "eval-sweep.yaml"), "w") as f:
        f.write("\n".join(text) + "\n")


    text = ["# Registers per warpgroup (setmaxnreg, Hopper): the groups of\n"
            "# configs/eval.yaml where registers decide, and two pairs of kernels written\n"
            "# for it, each tuned on the grid as launched and on a persistent grid, in\n"
            "# steps of 256 (ethash + blake2b, the goal, and the smaller blocks of the\n"
            "# -wr variants in steps of 128).\n"
            + HOWTO + "kernels:"]
    text += [kernel(n, SIZES[n](SCALE[n])) for n in CRYPTO]
    text += [kernel(n, make()) for n, make in OWN_SIZES.items()]
    text.append("fusions:")
    # The goal pair also in steps of 128, where its best split so far is.
    text += [f"  - {{name: {'_'.join(g)}, kernels: [{', '.join(g)}], "
             f"tune: {{step: {128 if i == 0 else 256}, grids: [as-launched, persistent]}}}}"
             for i, g in enumerate(REGISTER_GROUPS)]
    with open(os.path.join(ROOT, "configs", "eval-registers.yaml"), "w") as f:
        f.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
