#!/usr/bin/env python3
"""How much public CUDA code kfuse reads and fuses (docs/coverage.md).

Public suites are fetched outside this repository and never committed; this
script only points at them.

  scripts/coverage.py files --suite samples=DIR --suite rodinia=DIR --out OUT
      Per .cu file: does nvcc accept it (compiled for sm_90 with the suite's
      own flags), and does `kfuse list` read it, given the same command
      through a compile_commands.json. Writes OUT/files.json.

  scripts/coverage.py pairs --suite ... --out OUT [--pairs scripts/coverage-pairs.yaml]
      Per pair of real kernels: a config, `kfuse fuse`, nvcc on the output,
      and a link of the output beside the original objects (or in place of
      the files it replaces). Pairs with launch specs also get a tuning
      bundle (OUT/bundle) whose harness compares every fused variant with
      the original kernels on the GPU. Writes OUT/pairs.json.

  scripts/coverage.py gpu --out OUT           (on the GPU machine, CUDA only)
      Runs the bundle's harness: OUT/gpu.json, OUT/gpu.log.

  scripts/coverage.py report --out OUT        Markdown for docs/coverage.md.

nvcc results are cached in OUT/nvcc-cache.json by file content and flags.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCH = "sm_90"


# ---------------------------------------------------------------------------
# Suites: which files, and the flags their own build gives each one.

def samples_flags(root, path):
    """cuda-samples: every sample's CMakeLists adds Common/; some turn on
    separable compilation or extended lambdas."""
    flags = ["-std=c++17", "-I" + str(root / "Common"), "-I" + str(path.parent)]
    cmake = path.parent / "CMakeLists.txt"
    text = cmake.read_text(errors="replace") if cmake.exists() else ""
    if "CUDA_SEPARABLE_COMPILATION ON" in text:
        flags.append("-rdc=true")
    if "--extended-lambda" in text:
        flags.append("--extended-lambda")
    return flags


def rodinia_flags(root, path):
    """Rodinia's Makefiles compile each benchmark in its directory, some with
    ../util on the include path."""
    return ["-std=c++17", "-I" + str(path.parent), "-I" + str(root / "cuda" / "util")]


SUITES = {
    "samples": ("Samples", samples_flags),
    "rodinia": ("cuda", rodinia_flags),
}


def suite_files(name, root):
    sub, flags = SUITES[name]
    for path in sorted((root / sub).rglob("*.cu")):
        yield path, flags(root, path)


def parse_suites(specs):
    suites = {}
    for spec in specs:
        name, _, directory = spec.partition("=")
        if name not in SUITES or not directory:
            sys.exit(f"coverage: --suite takes NAME=DIR with NAME one of {', '.join(SUITES)}")
        suites[name] = Path(directory).resolve()
    return suites


# ---------------------------------------------------------------------------
# Files: nvcc against kfuse list.

def nvcc_command(nvcc, path, flags, output="/dev/null"):
    return [nvcc, "-c", f"-arch={ARCH}"] + flags + [str(path), "-o", output]


def run(cmd, cwd=None, timeout=600):
    start = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return p.returncode, p.stdout + p.stderr, time.time() - start
    except subprocess.TimeoutExpired:
        return 124, "timed out", time.time() - start


def cache_key(path, flags):
    h = hashlib.sha256(path.read_bytes())
    h.update("\0".join(flags).encode())
    return h.hexdigest()


def first_error(text):
    """The first error line, and the kfuse id of the last one."""
    lines = [l for l in text.splitlines() if "error:" in l or "error " in l]
    ids = re.findall(r"\[(kfuse-[a-z0-9-]+)\]", text)
    return (lines[0].strip() if lines else text.strip()[-300:]), (ids[-1] if ids else "")


def write_database(out, entries):
    """compile_commands.json with each file's nvcc command, as CMake writes it."""
    db = [{"directory": str(path.parent), "file": str(path),
           "command": shlex.join(nvcc_command("nvcc", path, flags, "x.o"))}
          for path, flags in entries]
    out.mkdir(parents=True, exist_ok=True)
    (out / "compile_commands.json").write_text(json.dumps(db, indent=1))


def cmd_files(args):
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    suites = parse_suites(args.suite)
    cache_path = out / "nvcc-cache.json"
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    entries = []
    for name, root in suites.items():
        files = list(suite_files(name, root))
        write_database(out / "db" / name, files)
        entries += [(name, root, p, f) for p, f in files]

    def check(entry):
        name, root, path, flags = entry
        key = cache_key(path, flags)
        if key not in cache:
            rc, text, _ = run(nvcc_command(args.nvcc, path, flags))
            cache[key] = {"rc": rc, "error": "" if rc == 0 else first_error(text)[0]}
        nv = cache[key]
        rc, text, secs = run([args.kfuse, "list", str(path), "-p", str(out / "db" / name)])
        err, ident = first_error(text) if rc else ("", "")
        return {"suite": name, "file": str(path.relative_to(root)), "nvcc": nv["rc"] == 0,
                "nvcc_error": nv["error"], "kfuse": rc == 0, "kfuse_error": err,
                "kfuse_id": ident, "kfuse_seconds": round(secs, 2)}

    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(check, entries):
            results.append(r)
            mark = "ok " if r["kfuse"] else ("-- " if not r["nvcc"] else "ERR")
            print(f"{mark} {r['suite']}/{r['file']}" + (
                f": {r['kfuse_error'][:160]}" if r["nvcc"] and not r["kfuse"] else ""),
                flush=True)
            cache_path.write_text(json.dumps(cache))
    (out / "files.json").write_text(json.dumps(results, indent=1))
    print(files_table(results))


def files_table(results):
    rows = ["| suite | .cu files | nvcc accepts | kfuse lists (of those) | share |",
            "|---|---|---|---|---|"]
    for suite in sorted({r["suite"] for r in results}):
        rs = [r for r in results if r["suite"] == suite]
        ok = [r for r in rs if r["nvcc"]]
        listed = [r for r in ok if r["kfuse"]]
        share = 100.0 * len(listed) / len(ok) if ok else 0
        rows.append(f"| {suite} | {len(rs)} | {len(ok)} | {len(listed)} | {share:.1f}% |")
    ok = [r for r in results if r["nvcc"]]
    listed = [r for r in ok if r["kfuse"]]
    rows.append(f"| all | {len(results)} | {len(ok)} | {len(listed)} | "
                f"{100.0 * len(listed) / max(1, len(ok)):.1f}% |")
    return "\n".join(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="step", required=True)
    f = sub.add_parser("files")
    f.add_argument("--suite", action="append", default=[])
    f.add_argument("--out", required=True)
    f.add_argument("--jobs", type=int, default=os.cpu_count())
    f.add_argument("--kfuse", default=str(ROOT / "build" / "bin" / "kfuse"))
    f.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    f.set_defaults(fn=cmd_files)
    args = p.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
