#!/usr/bin/env python3
"""Follows README.md's Quick start literally on a copy of a program.

Reads the shell blocks of README's "Quick start" section, copies the
example program (examples/quick-start: a helper that launches the step's
kernels, an error-check macro, a timed loop, its own Makefile) to --work,
and runs each command there in order, `kfuse` and `nvcc` replaced by the
ones given. A command whose comment says "on a GPU" runs only with --gpu;
without it the flow stops there, as it would on a machine with no GPU, and
says what is left (the GPU step and the commands after it). Fails at the first command that fails, and where the
config suggest wrote needs an edit (a FILL, a promise to uncomment).

With --gpu it first builds the original with the program's Makefile (as
app.orig), and at the end runs both binaries --runs times each,
alternating, and compares their outputs (the lines with "time" left out)
and the time per step they print.

usage: quick_start.py --readme README.md --example DIR --kfuse KFUSE
                      [--nvcc NVCC] --work DIR [--gpu] [--runs N]
"""
import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys


def quick_start_commands(readme):
    """The command lines of the Quick start's ```sh blocks, continuations
    joined, each with the comment that ends it."""
    text = open(readme).read()
    m = re.search(r"^## Quick start.*?$(.*?)^## ", text, re.M | re.S)
    if not m:
        sys.exit(f"{readme}: no '## Quick start' section")
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", m.group(1), re.M | re.S):
        line = ""
        for raw in block.splitlines():
            line += raw.strip()
            if line.endswith("\\"):
                line = line[:-1] + " "
                continue
            if line:
                commands.append(line)
            line = ""
    return commands


def split(command):
    """(argument vector, comment) of a README line."""
    m = re.match(r"(.*?)\s+#\s*(.*)$", command)
    code, comment = (m.group(1), m.group(2)) if m else (command, "")
    return shlex.split(code), comment


def run(argv, cwd):
    print("$ " + " ".join(shlex.quote(a) for a in argv), flush=True)
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    out = (p.stdout + p.stderr).rstrip()
    if out:
        print("\n".join("  " + l for l in out.splitlines()[-12:]))
    print(f"  exit {p.returncode}", flush=True)
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", required=True)
    ap.add_argument("--example", required=True)
    ap.add_argument("--kfuse", required=True)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--work", required=True)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    shutil.copytree(args.example, args.work)
    tools = {"kfuse": os.path.abspath(args.kfuse), "nvcc": args.nvcc}
    # The original, built by the program's own Makefile before kfuse runs.
    if args.gpu:
        if run(["make", "-B", "-s", "NVCC=" + args.nvcc, "app"], args.work).returncode != 0:
            return 1
        os.replace(os.path.join(args.work, "app"), os.path.join(args.work, "app.orig"))
    skipped = []
    for command in quick_start_commands(args.readme):
        argv, comment = split(command)
        # The GPU step, and what follows it, which reads its measurements.
        if skipped or ("on a GPU" in comment and not args.gpu):
            skipped.append(command)
            continue
        argv = [tools.get(argv[0], argv[0])] + argv[1:]
        if run(argv, args.work).returncode != 0:
            print(f"quick start: FAILED at: {command}")
            return 1
        if argv[1:2] == ["suggest"]:
            config = open(os.path.join(args.work, "app.yaml")).read()
            edits = [l.strip() for l in config.splitlines()
                     if "FILL" in l.split("#")[0] or "# distinct_buffers" in l]
            if edits:
                print("quick start: FAILED: suggest's config needs an edit: " + edits[0])
                return 1
            print("  the config needs no edit")
    if skipped:
        print("quick start: stopped at the GPU step; on a GPU machine it runs:")
        for command in skipped:
            print("  " + command)
        print("quick start: PASS up to the GPU step")
        return 0
    return compare(args)


def compare(args):
    """The original (its Makefile's build, made first) against the program
    the Quick start's last command built."""
    times = {"app.orig": [], "app": []}
    outputs = {}
    for _ in range(args.runs):
        for binary in times:
            p = run(["./" + binary], args.work)
            if p.returncode != 0:
                return 1
            t = re.search(r"time per step ([0-9.]+) ms", p.stdout)
            times[binary].append(float(t.group(1)))
            outputs.setdefault(binary, [l for l in p.stdout.splitlines() if "time" not in l])
    same = outputs["app.orig"] == outputs["app"]
    o, f = statistics.median(times["app.orig"]), statistics.median(times["app"])
    print(f"original ms/step {times['app.orig']} median {o:.4f}")
    print(f"tuned    ms/step {times['app']} median {f:.4f}")
    print(f"quick start: outputs {'identical' if same else 'DIFFERENT'}, "
          f"original / tuned {o / f:.3f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
