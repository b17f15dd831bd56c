#!/usr/bin/env python3
"""Mutation driver for `kfuse fuse`: runs kfuse on mutated kernels and configs
seeded from the repository's own tests and examples, and checks the promises
kfuse makes to a user whatever the input:

  - it never crashes, hangs or trips a sanitizer;
  - exit 1 comes with at least one "error: ... [kfuse-ID]" and leaves no output;
  - exit 0 leaves an output that nvcc compiles, for its host pass and for
    sm_75, sm_80, sm_90 and sm_90a in one -gencode command (as the coverage
    sweep compiles public code), whenever nvcc compiles the mutated input.

Any other outcome is a finding; each is kept under --keep with the files that
caused it, so it can become a regression test. Prints one table of counts and
exits 1 when there are findings.

  scripts/fuzz_kfuse.py --kfuse build/bin/kfuse --mutants 200 --seconds 600
"""
import argparse
import collections
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIAG = re.compile(r"error: .*\[(kfuse-[a-z0-9-]+)\]$", re.M)
SANITIZER = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer")

# Lines a legacy kernel might hold, each a construct kfuse must either handle
# or refuse by name.
SNIPPETS = [
    "__syncthreads();", "return;", "if (threadIdx.x < 7) return;", "#if 0", "#endif",
    "#ifdef KFUSE_FUZZ", "goto done; done:;", 'asm volatile("bar.sync 1, 64;");',
    "__shared__ float fuzz_s[64];", "extern __shared__ int fuzz_dyn[];",
    "while (*(volatile int *)0) {}", "#define FUZZ_T threadIdx.x", "{", "}", ";",
    "int x = blockIdx.y * gridDim.x + threadIdx.z;", "__syncwarp();",
    "if (__syncthreads_or(threadIdx.x & 1)) return;", "__constant__ float fuzz_c[4];",
    "static __device__ int fuzz_d;", "template <int N> __device__ int fuzz_t() { return N; }",
    "__launch_bounds__(64)", "auto l = [] __device__ (int v) { return v + 1; };",
]
EDGE_VALUES = ["0", "-1", "1", "31", "33", "1024", "1025", "65535", "65536", "4294967296",
               "''", "x", "[]", "{}", "[32, 32, 2]", "[0]", "true", "null", "1.5",
               "[1, 2, 3, 4]", "'a b'", "horizontal", "vertical", "persistent"]
CONFIG_KEYS = ["name", "file", "kernel", "block", "any_block_size", "any_grid", "launch",
               "mode", "kernels", "partition", "threads", "grid", "tune", "flows", "same",
               "replace", "colour"]


def split_file(path):
    """The sections of a lit test written for split-file: {name: text}."""
    sections, name, lines = {}, None, []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^#--- (\S+)\s*$", line)
        if m:
            if name:
                sections[name] = "".join(lines)
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
    if name:
        sections[name] = "".join(lines)
    return sections


def seeds():
    """Workspaces ({relative path: text}) with the config to run in each."""
    found = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "test")):
        for f in sorted(files):
            if not f.endswith(".test"):
                continue
            sections = split_file(os.path.join(dirpath, f))
            if not any(n.endswith(".cu") for n in sections):
                continue
            for name in sections:
                if name.endswith(".yaml") and "fusions" in sections[name]:
                    found.append((dict(sections), name))
    examples = {}
    for d in ("examples", "configs"):
        for f in os.listdir(os.path.join(ROOT, d)):
            p = os.path.join(ROOT, d, f)
            if os.path.isfile(p) and f.endswith((".cu", ".cuh", ".h", ".yaml")):
                examples[d + "/" + f] = open(p, encoding="utf-8").read()
    for cfg in ("configs/pair.yaml", "configs/legacy.yaml", "configs/vertical.yaml",
                "configs/persistent.yaml"):
        if cfg in examples:
            found.append((dict(examples), cfg))
    return found


def config_seeds(dest):
    """Writes every config of the tests and configs/ into dest, one file each,
    as the config fuzzer's seed corpus; returns how many."""
    texts = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "test")):
        for f in sorted(files):
            if f.endswith(".test"):
                sections = split_file(os.path.join(dirpath, f))
                texts += [t for n, t in sections.items() if n.endswith(".yaml")]
    for f in sorted(os.listdir(os.path.join(ROOT, "configs"))):
        texts.append(open(os.path.join(ROOT, "configs", f), encoding="utf-8").read())
    os.makedirs(dest, exist_ok=True)
    for i, text in enumerate(texts):
        with open(os.path.join(dest, "seed-%03d.yaml" % i), "w", encoding="utf-8") as f:
            f.write(text)
    return len(texts)


def mutate_source(text, rnd):
    lines = text.split("\n")
    what = rnd.choice(["delete", "duplicate", "swap", "snippet", "snippet", "identifier",
                       "number", "truncate", "byte"])
    i = rnd.randrange(len(lines))
    if what == "delete":
        del lines[i]
    elif what == "duplicate":
        lines.insert(i, lines[i])
    elif what == "swap" and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif what == "snippet":
        lines.insert(i, rnd.choice(SNIPPETS))
    elif what == "identifier":
        words = sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text)))
        if words:
            a, b = rnd.choice(words), rnd.choice(words)
            lines[i] = re.sub(r"\b%s\b" % re.escape(a), b, lines[i])
    elif what == "number":
        lines[i] = re.sub(r"\b\d+\b", lambda m: rnd.choice(["0", "1", "33", "1024", "65536"]),
                          lines[i], count=1)
    elif what == "truncate":
        return text[: rnd.randrange(len(text) + 1)], what
    elif what == "byte" and text:
        j = rnd.randrange(len(text))
        return text[:j] + chr(rnd.choice([0x7b, 0x7d, 0x3b, 0x23, 0x28, 0x29, 0x2a])) + text[j + 1:], what
    return "\n".join(lines), what


def mutate_config(text, rnd):
    lines = text.split("\n")
    what = rnd.choice(["value", "value", "value", "delete", "duplicate", "key", "indent"])
    i = rnd.randrange(len(lines))
    if what == "value":
        spots = [m for m in re.finditer(r"(?<=: )[^,\]\}\n#]+|(?<=\[)\s*\d+", lines[i])]
        if spots:
            m = rnd.choice(spots)
            lines[i] = lines[i][: m.start()] + rnd.choice(EDGE_VALUES) + lines[i][m.end():]
    elif what == "delete":
        del lines[i]
    elif what == "duplicate":
        lines.insert(i, lines[i])
    elif what == "key":
        lines[i] = re.sub(r"\b(%s)(?=:)" % "|".join(CONFIG_KEYS), rnd.choice(CONFIG_KEYS),
                          lines[i], count=1)
    elif what == "indent":
        lines[i] = " " + lines[i]
    return "\n".join(lines), what


def write(files, root):
    for name, text in files.items():
        p = os.path.join(root, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, text=True, errors="replace")
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return None, ""


# The promise kfuse makes (and scripts/coverage.py sweep checks on public
# code): an output compiles for nvcc's host pass and for every architecture,
# or, where a kernel branches on the architecture or a macro and a build takes
# a branch kfuse did not parse, stops that build with kfuse's own #error.
GENCODE = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in ("75", "80", "90", "90a")]


# The architecture kfuse reads kernels for.
READ_FOR = ["-gencode=arch=compute_90,code=sm_90"]
# kfuse's guard in a preprocessor branch it did not parse (docs/reference.md, "What
# is emitted"): a build that takes the branch stops with this #error.
GUARD = re.compile(r'error: #error "kfuse: .* was fused from the preprocessor branches '
                   r'taken for .*; run kfuse again for this build"')


def nvcc_compiles(nvcc, source, cwd):
    rc, _ = run([nvcc, "-std=c++17", "-c"] + GENCODE + [source, "-o", os.devnull], cwd, 600)
    return rc == 0


def only_guards_fire(nvcc, source, cwd):
    """Whether every error nvcc reports for the output, on any architecture, is one
    of kfuse's guards of a branch it did not parse, and the output compiles for the
    architecture kfuse read the kernels for: the documented outcome, not a finding."""
    rc, text = run([nvcc, "-std=c++17", "-c"] + GENCODE + [source, "-o", os.devnull], cwd, 600)
    errors = [line for line in text.splitlines() if "error:" in line]
    if rc == 0 or not errors or not all(GUARD.search(line) for line in errors):
        return False
    rc, _ = run([nvcc, "-std=c++17", "-c"] + READ_FOR + [source, "-o", os.devnull], cwd, 600)
    return rc == 0


def one(kfuse, nvcc, files, config, rnd, work):
    """Outcome (a short class name), what was mutated, and kfuse's output."""
    files = dict(files)
    sources = [n for n in files if n.endswith(".cu")]
    if rnd.random() < 0.6 and sources:
        target = rnd.choice(sources)
    else:
        target = config
    mutate = mutate_config if target.endswith(".yaml") else mutate_source
    files[target], how = mutate(files[target], rnd)
    write(files, work)
    out = os.path.join(work, "kfuse-out", "fused.cu")
    os.makedirs(os.path.dirname(out))
    rc, text = run([kfuse, "fuse", config, "-o", out], work, 120)
    if rc is None:
        return "hang", target, how, text
    if rc < 0 or SANITIZER.search(text):
        return "crash", target, how, text
    if rc == 1:
        if not DIAG.search(text):
            return "silent failure (exit 1, no [kfuse-...] error)", target, how, text
        if os.path.exists(out):
            return "output written by a failed run", target, how, text
        return "refused: " + DIAG.search(text).group(1), target, how, text
    if rc != 0:
        return "unexpected exit %d" % rc, target, how, text
    if not os.path.exists(out):
        return "silent failure (exit 0, no output)", target, how, text
    if nvcc is None:
        return "accepted", target, how, text
    if nvcc_compiles(nvcc, out, work):
        return "accepted, output compiles", target, how, text
    if only_guards_fire(nvcc, out, work):
        return "accepted, compiles for sm_90, #error guards other builds", target, how, text
    if not target.endswith(".cu") or nvcc_compiles(nvcc, target, work):
        return "accepted, output does not compile", target, how, text
    return "accepted, output and input do not compile", target, how, text


FINDINGS = ("hang", "crash", "silent", "output written", "unexpected",
            "accepted, output does not compile")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kfuse", default=os.path.join(ROOT, "build", "bin", "kfuse"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc",
                    help="compiles accepted outputs; 'none' skips that check")
    ap.add_argument("--mutants", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=600, help="stop after this long")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", default=None, help="directory for the inputs of each finding")
    ap.add_argument("--config-seeds", metavar="DIR",
                    help="only write the config fuzzer's seeds into DIR")
    a = ap.parse_args()
    if a.config_seeds:
        print("config fuzzer: %d seed configs" % config_seeds(a.config_seeds))
        return 0
    nvcc = None if a.nvcc == "none" else a.nvcc
    rnd = random.Random(a.seed)
    pool = seeds()
    counts = collections.Counter()
    findings = 0
    start = time.time()
    tried = 0
    for n in range(a.mutants):
        if time.time() - start > a.seconds:
            break
        files, config = rnd.choice(pool)
        with tempfile.TemporaryDirectory(prefix="kfuse-fuzz-") as work:
            outcome, target, how, text = one(a.kfuse, nvcc, files, config, rnd, work)
            tried += 1
            counts[outcome] += 1
            if outcome.startswith(FINDINGS):
                findings += 1
                print("finding %d: %s (%s mutated by %s)" % (n, outcome, target, how))
                print("\n".join(text.splitlines()[-15:]))
                if a.keep:
                    dest = os.path.join(a.keep, "finding-%d" % n)
                    shutil.copytree(work, dest, dirs_exist_ok=True)
                    with open(os.path.join(dest, "RUN"), "w") as f:
                        f.write("kfuse fuse %s -o kfuse-out/fused.cu\n%s\n" % (config, text))
    print("\nkfuse fuzz: seed %d, %d seeds, %d mutants in %.0f s" %
          (a.seed, len(pool), tried, time.time() - start))
    print("%-60s %6s" % ("outcome", "count"))
    for outcome, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print("%-60s %6d" % (outcome, c))
    print("findings (crashes, hangs, silent failures, outputs that do not compile): %d" % findings)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
