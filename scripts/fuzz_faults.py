#!/usr/bin/env python3
"""The surface fuzzer's fault injector (issue 57): every command that writes
into a user's tree, run with one of its file-system calls failing, with a
signal at one of them, with an input saved while it runs, and two at once;
after each, the tree is checked:

  - every file is its original or its complete new version (the version a
    clean run writes), none half-written, none of another run;
  - a run that failed (an error, SIGINT, SIGTERM, SIGHUP) changed nothing,
    and one that exited 0 wrote everything;
  - no staged file (".kfuse-tmp-...") is left, but by SIGKILL, which no
    handler sees; then a rerun works and leaves none;
  - an input saved while kfuse ran keeps the save.

The faults come from test/faults/faults.c (built with the tests, LD_PRELOAD):
  KFUSE_FAULT=CALL:N:WHAT   the Nth call (open to write, write, fsync,
                            rename, link, unlink, mkdir, rmdir, chmod; or
                            any) fails with errno WHAT, or gets signal WHAT
  KFUSE_FAULT_EDIT=PATH:N   a line appended to PATH the Nth time kfuse
                            closes it after reading it

  scripts/fuzz_faults.py --faults build/lib/libkfuse-faults.so --seconds 300
prints a table per surface; exits 1 on any finding (kept under --keep).
"""
import argparse
import collections
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_kfuse import split_file  # noqa: E402  (the split-file sections of a lit test)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGED = ".kfuse-tmp-"
CALLS = ["open", "write", "fsync", "rename", "link", "unlink", "mkdir", "chmod"]
ERRNOS = {"open": ["EACCES", "ENOSPC", "EROFS"], "write": ["ENOSPC", "EIO", "EDQUOT"],
          "fsync": ["EIO"], "rename": ["EIO", "EXDEV", "EACCES"], "link": ["EPERM", "EMLINK"],
          "unlink": ["EIO"], "mkdir": ["EACCES", "ENOSPC"], "chmod": ["EPERM"]}
SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"]

APP = """#include <cuda_runtime.h>
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}
__global__ void shift(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += 1.0f;
}
int main() {
  int n = 1 << 20;
  float *x, *y, *z, *w;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  scale<<<n / 256, 256>>>(x, n);
  shift<<<n / 256, 256>>>(y, n);
  cudaDeviceSynchronize();
  scale<<<n / 256, 256>>>(z, n);
  shift<<<n / 256, 256>>>(w, n);
  cudaDeviceSynchronize();
  return 0;
}
"""
APP_YAML = """kernels:
  - {name: scale, file: app.cu, kernel: scale, block: [256], site: app.cu:19}
  - {name: shift, file: app.cu, kernel: shift, block: [256], site: app.cu:20}
  - {name: scale_2, file: app.cu, kernel: scale, block: [256], site: app.cu:22}
  - {name: shift_2, file: app.cu, kernel: shift, block: [256], site: app.cu:23}
fusions:
  - {name: first, kernels: [scale, shift]}
  - {name: second, kernels: [scale_2, shift_2]}
"""

# Each surface: a command, in a project that holds the files of the template
# (and, for tune, the fixture of test/Driver/tune.test).
SURFACES = {
    "fuse -i": ["fuse", "app.yaml", "--fusion", "first", "-o", "out.cu", "--header", "out.h",
                "--rewrite-launches", "-i"],
    "--rewrite-dir": ["fuse", "app.yaml", "--fusion", "first", "-o", "build/out.cu", "--header",
                      "build/out.h", "--rewrite-launches", "--rewrite-dir", "build/rw"],
    "-o/--header/--depfile": ["fuse", "app.yaml", "-o", "build/fused.cu", "--header",
                              "build/inc/fused.h", "--depfile", "build/fused.d"],
    "suggest -o/--markdown": ["suggest", "app.cu", "-o", "sug/app.yaml", "--markdown",
                              "sug/app.md"],
    "tune --bundle": ["tune", "config.yaml", "--bundle", "tb"],
    "tune --report": ["tune", "config.yaml", "--results", "results.json", "-o", "tuned/t.cu",
                      "--report", "rep"],
}


def template():
    """The project every case starts from: path -> bytes."""
    tune = split_file(os.path.join(ROOT, "test", "Driver", "tune.test"))
    files = {"app.cu": APP, "app.yaml": APP_YAML, "k.cu": tune["k.cu"],
             "config.yaml": tune["config.yaml"], "results.json": tune["results.json"]}
    return {p: t.encode() for p, t in files.items()}


def write_tree(root, files):
    for p, data in files.items():
        full = os.path.join(root, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


def read_tree(root):
    """Every file under root (symlinks as their target's text): path -> bytes,
    with the root's own path (which a depfile names) written as <ROOT>, so
    that trees in two directories compare."""
    out = {}
    roots = sorted({root, os.path.realpath(root)}, key=len, reverse=True)
    for dirpath, dirs, files in os.walk(root):
        for f in files:
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            try:
                with open(full, "rb") as h:
                    data = h.read()
                for r in roots:
                    data = data.replace(r.encode(), b"<ROOT>")
                out[rel] = data
            except OSError:
                out[rel] = None
    return out


def run(kfuse, args, cwd, env_extra, timeout=120):
    env = dict(os.environ)
    env.update(env_extra)
    t = time.time()
    try:
        p = subprocess.run([kfuse] + args, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout + p.stderr, time.time() - t
    except subprocess.TimeoutExpired:
        return "timeout", "", time.time() - t


class Surface:
    """A command with what a clean run writes and how many calls it makes."""

    def __init__(self, name, args, kfuse, faults, base):
        self.name, self.args = name, args
        work = tempfile.mkdtemp(prefix="clean-", dir=base)
        write_tree(work, template())
        log = os.path.join(base, os.path.basename(work) + ".log")
        # An edit at a close that never comes: the shim then logs each close
        # of app.cu after reading it, where the saves below edit it.
        rc, text, _ = run(kfuse, args, work, {"LD_PRELOAD": faults, "KFUSE_FAULT_LOG": log,
                                              "KFUSE_FAULT_EDIT": f"{work}/app.cu:1000000"})
        if rc != 0:
            raise SystemExit(f"the clean run of '{name}' failed ({rc}):\n{text}")
        self.after = read_tree(work)
        self.counts = collections.Counter()
        self.reads = collections.Counter()
        for line in open(log):
            kind, path = line.split(" ", 1)
            if kind == "read":
                self.reads[path.strip()] += 1
            else:
                self.counts[kind] += 1
        shutil.rmtree(work)
        os.remove(log)


SAVED_LINE = b"// saved while kfuse ran\n"


def judge(surface, before, after, rc, killed, rerun_rc, rerun_after, saved):
    """The findings of one case: strings, empty when the tree is sound."""
    findings = []
    new = surface.after
    for p, data in after.items():
        if os.path.basename(p).startswith(STAGED):
            if not killed:
                findings.append(f"staged file left: {p}")
            continue
        if data is None:
            findings.append(f"unreadable file: {p}")
        elif p == "app.cu" and saved is not None:
            continue  # Judged by the save below.
        elif (p == "app.cu.orig" and saved is not None
              and data == before.get("app.cu", b"") + SAVED_LINE):
            continue  # A save after the last check: in the original's file (warned).
        elif data != before.get(p) and data != new.get(p):
            findings.append(f"{p} is neither its original nor its new version")
    if saved is not None:
        texts = [after.get("app.cu") or b"", after.get("app.cu.orig") or b""]
        if not any(b"saved while kfuse ran" in t for t in texts):
            findings.append("the save made while kfuse ran is lost")
    elif not killed:
        changed = {p for p in set(after) | set(before)
                   if not os.path.basename(p).startswith(STAGED) and after.get(p) != before.get(p)}
        wrote_all = all(after.get(p) == new.get(p) for p in new)
        if rc == 0 and not wrote_all:
            findings.append("exited 0 without every output: " + ", ".join(
                sorted(p for p in new if after.get(p) != new.get(p))))
        if rc != 0 and changed and not wrote_all:
            findings.append("failed, and changed " + ", ".join(sorted(changed)))
    if rerun_rc is not None:
        if rerun_rc != 0:
            findings.append(f"the rerun failed ({rerun_rc})")
        left = [p for p in rerun_after if os.path.basename(p).startswith(STAGED)]
        if left:
            findings.append("the rerun left staged files: " + ", ".join(left))
    return findings


def fault_cases(surfaces, rnd):
    """Every (surface, fault) to try: each counted call of each kind with an
    errno and each signal, and saves of app.cu; shuffled within a surface
    and taken from the surfaces in turn, so that any prefix covers them all."""
    per_surface = []
    for s in surfaces:
        cases = []
        for kind, n in s.counts.items():
            for i in range(1, n + 1):
                for what in ERRNOS.get(kind, ["EIO"]) + SIGNALS:
                    cases.append((s, {"KFUSE_FAULT": f"{kind}:{i}:{what}"}))
        total = sum(s.counts.values())
        for i in range(1, total + 1):
            cases.append((s, {"KFUSE_FAULT": f"any:{i}:{rnd.choice(SIGNALS)}"}))
        for path, n in s.reads.items():
            if path.endswith("/app.cu"):
                for i in range(1, n + 1):
                    cases.append((s, {"KFUSE_FAULT_EDIT": f"@WORK@/app.cu:{i}"}))
        rnd.shuffle(cases)
        per_surface.append(cases)
    interleaved = []
    for i in range(max(len(c) for c in per_surface)):
        interleaved += [c[i] for c in per_surface if i < len(c)]
    return interleaved


def run_case(kfuse, faults, base, surface, env):
    work = tempfile.mkdtemp(prefix="case-", dir=base)
    files = template()
    write_tree(work, files)
    before = read_tree(work)
    env = {k: v.replace("@WORK@", work) for k, v in env.items()}
    env["LD_PRELOAD"] = faults
    rc, text, _ = run(kfuse, surface.args, work, env)
    fault = env.get("KFUSE_FAULT", "")
    killed = fault.endswith("SIGKILL") and rc != 0
    after = read_tree(work)
    rerun_rc = rerun_after = None
    all_new = all(after.get(p) == surface.after.get(p) for p in surface.after)
    if not all_new and "KFUSE_FAULT_EDIT" not in env:
        rerun_rc, _, _ = run(kfuse, surface.args, work, {})
        rerun_after = read_tree(work)
    saved = True if "KFUSE_FAULT_EDIT" in env else None
    findings = judge(surface, before, after, rc, killed, rerun_rc, rerun_after or {}, saved)
    return work, rc, text, findings


def concurrent_case(kfuse, faults, base, rnd):
    """Two runs at once: two fuse -i of different fusions of app.cu, or
    two runs of one surface; one may be held in its commit (SLEEP)."""
    work = tempfile.mkdtemp(prefix="pair-", dir=base)
    write_tree(work, template())
    before = read_tree(work)
    kind = rnd.choice(["inplace", "same"])
    if kind == "inplace":
        args = [SURFACES["fuse -i"], [a if a != "first" else "second" for a in SURFACES["fuse -i"]]]
        args[1] = [a.replace("out.", "out2.") for a in args[1]]
    else:
        name = rnd.choice([n for n in SURFACES if n != "fuse -i"])
        args = [SURFACES[name], SURFACES[name]]
    procs = []
    for i, a in enumerate(args):
        env = dict(os.environ, LD_PRELOAD=faults)
        if rnd.random() < 0.5:
            env["KFUSE_FAULT"] = f"{rnd.choice(['rename', 'open', 'any'])}:1:SLEEP"
        procs.append(subprocess.Popen([kfuse] + a, cwd=work, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
        time.sleep(rnd.random() * 0.5)
    outs = [p.communicate()[0] for p in procs]
    rcs = [p.returncode for p in procs]
    after = read_tree(work)
    findings = [f"staged file left: {p}" for p in after if os.path.basename(p).startswith(STAGED)]
    if kind == "inplace":
        if rcs == [0, 0]:
            findings.append("both rewrote app.cu in place: one rewrite is lost")
        text = after.get("app.cu", b"")
        if 0 in rcs and b"_launch(" not in text:
            findings.append("a run exited 0 but app.cu is not rewritten")
        if after.get("app.cu.orig") not in (None, before["app.cu"]):
            findings.append("app.cu.orig is not the original")
    return work, rcs, "\n".join(outs), findings, kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kfuse", default=os.path.join(ROOT, "build", "bin", "kfuse"))
    ap.add_argument("--faults", default=os.path.join(ROOT, "build", "lib", "libkfuse-faults.so"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=0, help="at most this many faults (0: all)")
    ap.add_argument("--pairs", type=int, default=20, help="concurrent pairs")
    ap.add_argument("--seconds", type=float, default=0, help="stop after this long (0: no limit)")
    ap.add_argument("--surfaces", default=",".join(SURFACES))
    ap.add_argument("--keep", default=None, help="keep each finding's tree here")
    args = ap.parse_args()
    kfuse, faults = os.path.abspath(args.kfuse), os.path.abspath(args.faults)
    if not os.path.isfile(faults):
        raise SystemExit(f"no fault injector at {faults}: build the tests (make kfuse-faults)")
    rnd = random.Random(args.seed)
    base = tempfile.mkdtemp(prefix="kfuse-faults-")
    start = time.time()
    surfaces = [Surface(n, SURFACES[n], kfuse, faults, base) for n in args.surfaces.split(",")]
    cases = fault_cases(surfaces, rnd)
    if args.cases:
        cases = cases[:args.cases]
    table = collections.defaultdict(collections.Counter)
    findings = []
    for surface, env in cases:
        if args.seconds and time.time() - start > args.seconds:
            break
        work, rc, text, found = run_case(kfuse, faults, base, surface, env)
        what = next(iter(env.values()))
        t = table[surface.name]
        t["faults"] += 1
        t["signals" if any(s in what for s in SIGNALS) else "saves" if "EDIT" in "".join(env)
          else "errors"] += 1
        t["exit 0"] += rc == 0
        if found:
            t["findings"] += 1
            findings.append((surface.name, what, found, work, text))
            if args.keep:
                shutil.copytree(work, os.path.join(args.keep, f"finding{len(findings)}"))
        shutil.rmtree(work, ignore_errors=True)
    pairs = collections.Counter()
    for _ in range(args.pairs):
        if args.seconds and time.time() - start > args.seconds:
            break
        work, rcs, text, found, kind = concurrent_case(kfuse, faults, base, rnd)
        pairs[kind] += 1
        pairs["both exit 0"] += rcs == [0, 0]
        if found:
            pairs["findings"] += 1
            findings.append(("concurrent " + kind, str(rcs), found, work, text))
            if args.keep:
                shutil.copytree(work, os.path.join(args.keep, f"finding{len(findings)}"))
        shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(base, ignore_errors=True)
    cols = ["faults", "errors", "signals", "saves", "exit 0", "findings"]
    print(f"kfuse fault injector: seed {args.seed}, {time.time() - start:.0f} s")
    print(f"{'surface':24} " + " ".join(f"{c:>8}" for c in cols))
    total = collections.Counter()
    for s in surfaces:
        t = table[s.name]
        total.update(t)
        print(f"{s.name:24} " + " ".join(f"{t[c]:>8}" for c in cols))
    print(f"{'total':24} " + " ".join(f"{total[c]:>8}" for c in cols))
    print(f"concurrent pairs: {pairs['inplace'] + pairs['same']} ({pairs['inplace']} fuse -i of "
          f"two fusions, {pairs['same']} of one surface), both exit 0: {pairs['both exit 0']}, "
          f"findings: {pairs['findings']}")
    for name, what, found, _, text in findings[:30]:
        print(f"finding: {name} with {what}: {'; '.join(found)}")
        print("   " + text.strip().replace("\n", "\n   ")[:600])
    print(f"findings: {len(findings)}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
