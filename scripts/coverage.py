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
      bundle (OUT/bundle, or OUT/NAME for a pair's `bundle: NAME`) whose
      harness compares every fused variant with the original kernels on
      the GPU. Writes OUT/pairs.json and OUT/gpu/fusions.json.
      --only NAME runs that pair again and keeps the others' results.

  scripts/coverage.py gpu --out OUT [--part K/N] [--only NAME]   (on the GPU machine, CUDA only)
      Runs the bundles' harnesses, one fusion per process: OUT/gpu/NAME.json,
      OUT/gpu.log. --part runs the K-th of N shares (one command each);
      --only NAME runs that fusion again and keeps the others' results.

  scripts/coverage.py sweep --suite ... --out OUT [--jobs N] [--limit N]
      Every kernel `kfuse list` reads, fused beside a trivial partner (with
      `replace:` where kfuse names it), and the fused file compiled by nvcc
      for the host pass and sm_75, sm_80, sm_90 and sm_90a in one -gencode
      command. Writes OUT/sweep.json: per kernel whether it fuses (or the
      refusal's id) and whether its output compiles. The kernels of a file
      share one output; one that fails is split to name its kernel.
      --defer-compile stops before nvcc, for a machine with more cores:

  scripts/coverage.py sweep-compile --out OUT [--results FILE]
      nvcc on every output of a deferred sweep. Paths under this
      repository are kept relative to it, so a copy of the repository
      holding the suites and OUT compiles them elsewhere.

  scripts/coverage.py sweep-finish --out OUT --compiled FILE
      Merges sweep-compile's results and prints the table.

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
    if (path.parent.parent / "inc").is_dir():  # FDTD3d keeps its headers beside src/.
        flags.append("-I" + str(path.parent.parent / "inc"))
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


def hecbench_flags(root, path):
    """HeCBench: each program's Makefile (src/NAME-cuda/Makefile), whose
    CFLAGS give the standard, -I, -D and the language options
    (--expt-relaxed-constexpr, --extended-lambda, -rdc=true); the directory and src/include are
    on the include path as its Makefiles put them."""
    flags = ["-std=c++17", "-I" + str(path.parent), "-I" + str(root / "src" / "include")]
    make = path.parent / "Makefile"
    text = make.read_text(errors="replace") if make.exists() else ""
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        # The main assignment: what `+=` adds sits in DEBUG or OPTIMIZE branches.
        if not re.match(r"\s*CFLAGS\s*:?=", line):
            continue
        for token in line.split():
            if token.startswith("-std="):
                flags[0] = token
            elif token.startswith("-I") and len(token) > 2 and "$" not in token:
                flags.append("-I" + str((path.parent / token[2:]).resolve()))
            elif token.startswith("-D") and "$" not in token:
                flags.append(token)
            elif token in ("--expt-relaxed-constexpr", "--extended-lambda", "-rdc=true"):
                flags.append(token)
    return flags


SUITES = {
    "samples": ("Samples", samples_flags),
    "rodinia": ("cuda", rodinia_flags),
    # Programs whose names begin with a-l only: the rest are kept for an
    # independent check.
    "hecbench": ("src", hecbench_flags),
}


def in_suite(name, root, path):
    if name != "hecbench":
        return True
    program = path.relative_to(root / "src").parts[0]
    return program.endswith("-cuda") and "a" <= program[0].lower() <= "l"


INCLUDED_CU = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+\.cu)"', re.M)


def included_sources(paths):
    """The .cu files another of \p paths #includes (`#include "kernels.cu"`):
    fragments of their includer's translation unit, whose kernels kfuse
    lists there, and which nvcc never compiles alone."""
    known = {p.resolve() for p in paths}
    found = set()
    for path in paths:
        text = path.read_text(errors="replace")
        for name in INCLUDED_CU.findall(text):
            target = (path.parent / name).resolve()
            if target in known and target != path.resolve():
                found.add(target)
    return found


def suite_files(name, root):
    sub, flags = SUITES[name]
    paths = [p for p in sorted((root / sub).rglob("*.cu")) if in_suite(name, root, p)]
    fragments = included_sources(paths)
    for path in paths:
        if path.resolve() not in fragments:
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
    except OSError as e:
        return 127, f"cannot run {cmd[0]}: {e}", time.time() - start


def cache_key(path, flags):
    h = hashlib.sha256(path.read_bytes())
    h.update("\0".join(flags).encode())
    return h.hexdigest()


def first_error(text):
    """The first error line, and the kfuse id of the last one (remarks and
    warnings carry ids too, and are not why a run failed)."""
    lines = [l for l in text.splitlines() if "error:" in l or "error " in l]
    ids = re.findall(r"\[(kfuse-[a-z0-9-]+)\]", "\n".join(l for l in lines if "error:" in l))
    return (lines[0].strip() if lines else text.strip()[-300:]), (ids[-1] if ids else "")


def write_database(out, entries):
    """compile_commands.json with each file's nvcc command, as CMake writes it."""
    db = [{"directory": str(path.parent), "file": str(path),
           "command": shlex.join(nvcc_command("nvcc", path, flags, "x.o"))}
          for path, flags in entries]
    out.mkdir(parents=True, exist_ok=True)
    (out / "compile_commands.json").write_text(json.dumps(db, indent=1))


def suites_with_database(args, out):
    """The suites the command line names, and one compile_commands.json
    (OUT/db/all) holding every file of them."""
    suites = parse_suites(args.suite)
    every = []
    for name, root in suites.items():
        every += list(suite_files(name, root))
    write_database(out / "db" / "all", every)
    return suites


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


# ---------------------------------------------------------------------------
# Sweep: every kernel beside a trivial partner, compiled for every pass.

GENCODE = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in ("75", "80", "90", "90a")]
TRIVIAL = "__global__ void kfuse_sweep_partner(float *p) { p[threadIdx.x] = 0.0f; }\n"


def listed_kernels(text):
    """Kernels `kfuse list` printed: the name a config uses (a template's
    first instantiation) and the most threads its launch bounds allow."""
    kernels = []
    for block in re.split(r"^(?=kernel )", text, flags=re.M):
        m = re.match(r"kernel (\S+) \(line (\d+)\)", block)
        if not m:
            continue
        name = m.group(1)
        inst = re.search(r"^  instantiations: (.+)$", block, re.M)
        # A template no line of its file instantiates keeps its own name:
        # kfuse says why it cannot be fused.
        if inst and not inst.group(1).startswith("none"):
            # The first, up to a comma outside its template arguments.
            depth, first = 0, ""
            for c in inst.group(1):
                depth += (c == "<") - (c == ">")
                if c == "," and depth == 0:
                    break
                first += c
            name = first.strip()
        bounds = re.search(r"__launch_bounds__ at most (\d+) threads", block)
        kernels.append({"kernel": name, "line": int(m.group(2)),
                        "block": min(128, int(bounds.group(1))) if bounds else 128})
    return kernels


def sweep_config(path, kernels, directory, replace):
    specs = [{"name": "partner", "file": str(directory / "partner.cu"),
              "kernel": "kfuse_sweep_partner", "block": [128]}]
    fusions = []
    for i, k in enumerate(kernels):
        specs.append({"name": f"k{i}", "file": str(path), "kernel": k["kernel"],
                      "block": [k["block"]]})
        fusions.append({"name": f"sweep_{i}", "kernels": [f"k{i}", "partner"],
                        "grid": "as-launched"})
    config = {"kernels": specs, "fusions": fusions}
    if replace:
        config["replace"] = [str(path)]
    out = directory / ("config-replace.yaml" if replace else "config.yaml")
    # JSON is YAML too, for a machine without PyYAML (the GPU machine may lack it).
    out.write_text(json.dumps(config, indent=1))
    return out


def sweep_file(args, out, suite, root, path, flags):
    """One source file's kernels: listed and fused. Returns the kernels'
    rows and the compile jobs: one output holding every kernel that fuses
    in a mode, so a file costs one nvcc run unless it fails."""
    rel = str(path.relative_to(root))
    key = hashlib.sha256(rel.encode()).hexdigest()[:12]
    d = out / "sweep" / suite / key
    done = d / "kfuse.json"
    if args.resume and done.exists() and done.stat().st_mtime > Path(args.kfuse).stat().st_mtime:
        saved = json.loads(done.read_text())
        return saved["results"], saved["jobs"]
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    (d / "partner.cu").write_text(TRIVIAL)
    db = ["-p", str(out / "db" / "all")]
    rc, text, _ = run([args.kfuse, "list"] + db + [str(path)])
    if rc != 0:
        return [], []
    kernels = resolve_overloads(args, d, path, listed_kernels(text), db)
    results = [{"suite": suite, "file": rel, **k, "fused": False, "compiled": False,
                "replace": False, "id": "", "error": ""} for k in kernels]
    pending = list(range(len(kernels)))
    for replace in (False, True):
        if not pending:
            break
        config = sweep_config(path, [kernels[i] for i in pending], d, replace)
        rc, text, _ = run([args.kfuse, "check", str(config)] + db)
        fuses = set(re.findall(r"^kfuse: fusion 'sweep_(\d+)' can be fused", text, re.M))
        left = []
        for j, i in enumerate(pending):
            if str(j) in fuses:
                results[i]["fused"], results[i]["replace"] = True, replace
                results[i]["config"], results[i]["fusion"] = str(config), f"sweep_{j}"
                continue
            rc1, one, _ = run([args.kfuse, "check", str(config), "--fusion", f"sweep_{j}"] + db)
            error, ident = first_error(one)
            results[i]["id"], results[i]["error"] = ident, error[:300]
            # Only the mode kfuse names moves a kernel to `replace:`.
            if ident == "kfuse-device-variable" and not replace:
                left.append(i)
        pending = left
    jobs = []
    for replace in (False, True):
        group = [i for i, r in enumerate(results) if r["fused"] and r["replace"] == replace]
        if group:
            jobs += fuse_job(args, d, suite, rel, path, flags, results, group,
                             "all" + ("-replace" if replace else ""))
    done.write_text(json.dumps({"results": results, "jobs": jobs}))
    return results, jobs


def resolve_overloads(args, d, path, kernels, db):
    """Overloaded kernels named as kfuse spells them: a config naming the bare
    name is refused (kfuse-kernel-ambiguous) with a note per overload, at its
    line, giving the name with parameter types that picks it."""
    names = [k["kernel"] for k in kernels]
    shared = sorted({n for n in names if names.count(n) > 1})
    if not shared:
        return kernels
    config = sweep_config(path, [{"kernel": n, "block": 128} for n in shared], d, False)
    _, text, _ = run([args.kfuse, "check", str(config)] + db)
    spelled = {int(m.group(1)): m.group(2) for m in re.finditer(
        r"^.*:(\d+):\d+: note: '(.+)' is a kernel in this file$", text, re.M)}
    return [{**k, "kernel": spelled.get(k["line"], k["kernel"])} if k["kernel"] in shared else k
            for k in kernels]


def fuse_job(args, d, suite, rel, path, flags, results, group, stem):
    """`kfuse fuse` for these kernels into one output, and the nvcc command
    that compiles it; a kernel whose fuse fails is marked refused."""
    db = ["-p", str(d.parent.parent.parent / "db" / "all")]
    fused = d / f"{stem}.fused.cu"
    names = ",".join(results[i]["fusion"] for i in group)
    rc, text, _ = run([args.kfuse, "fuse", results[group[0]]["config"], "--fusion", names,
                       "-o", str(fused)] + db)
    if rc != 0:
        if len(group) == 1:
            r = results[group[0]]
            r["fused"], r["id"], r["error"] = False, first_error(text)[1], first_error(text)[0][:300]
            return []
        return [job for i in group
                for job in fuse_job(args, d, suite, rel, path, flags, results, [i],
                                    f"{stem}-{results[i]['fusion']}")]
    cmd = ["nvcc", "-c", "-std=c++17"] + GENCODE + [f for f in flags if not f.startswith("-std")] + \
          [str(fused), "-o", "/dev/null"]
    job = {"key": f"{suite}/{d.name}/{stem}", "suite": suite, "file": rel,
           "kernels": [results[i]["kernel"] for i in group],
           "cwd": portable(str(path.parent)), "cmd": [portable(c) for c in cmd]}
    for i in group:
        results[i]["job"] = job["key"]
    return [job]


def portable(text):
    """A path under the repository, written so another checkout of it (the
    GPU machine's) can compile the same outputs."""
    return text.replace(str(ROOT), "@ROOT@")


def local(text):
    return text.replace("@ROOT@", str(ROOT))


def compile_jobs(args, jobs):
    """nvcc on each job's output, in parallel: {key: [rc, first error,
    rc of the original file]}. Where the output fails, the original file is
    compiled with the same command, so that a file nvcc rejects alone (a
    fragment another file includes, a missing SDK) is told from kfuse's
    failures."""
    def one(job):
        cmd = [args.nvcc if c == "nvcc" else local(c) for c in job["cmd"]]
        rc, text, _ = run(cmd, cwd=local(job["cwd"]), timeout=900)
        if rc == 0:
            return job["key"], [0, "", 0]
        original = str(Path(local(job["cwd"])) / Path(job["file"]).name)
        orc, _, _ = run(cmd[:-3] + [original] + cmd[-2:], cwd=local(job["cwd"]), timeout=900)
        return job["key"], [rc, first_error(text)[0][:400], orc]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        return dict(pool.map(one, jobs))


def finish_sweep(args, out, state, compiled):
    """Merges nvcc's results; an output of several kernels that fails is
    fused and compiled again one kernel at a time, so the table names the
    kernel that fails."""
    results, jobs = state["results"], state["jobs"]
    by_key = {j["key"]: j for j in jobs}
    retry = []
    for key, (rc, error, *original) in compiled.items():
        job = by_key[key]
        rows = [r for r in results if r.get("job") == key]
        if rc == 0 or len(rows) == 1 or getattr(args, "no_split", False):
            for r in rows:
                r["compiled"], r["nvcc_error"] = rc == 0, error
                r["original_fails"] = bool(original and original[0] != 0)
            continue
        d = out / "sweep" / job["suite"] / key.split("/")[1]
        path = Path(local(job["cwd"])) / Path(job["file"]).name
        flags = [local(c) for c in job["cmd"][3 + len(GENCODE):-3]]
        for r in rows:
            i = results.index(r)
            stem = f"one-{r['fusion']}" + ("-replace" if r["replace"] else "")
            retry += fuse_job(args, d, job["suite"], job["file"], path, flags, results, [i], stem)
    if retry:
        state["jobs"] += retry
        for key, (rc, error, original) in compile_jobs(args, retry).items():
            for r in results:
                if r.get("job") == key:
                    r["compiled"], r["nvcc_error"] = rc == 0, error
                    r["original_fails"] = original != 0
    results.sort(key=lambda r: (r["suite"], r["file"], r["line"]))
    (out / "sweep.json").write_text(json.dumps(state, indent=1))
    for r in results:
        if r["fused"] and not r["compiled"]:
            mark = "FAIL-NVCC-ORIGINAL-TOO" if r.get("original_fails") else "FAIL-NVCC"
            print(f"{mark} {r['suite']}/{r['file']}:{r['kernel']}: {r.get('nvcc_error', '')}")
    print(sweep_table(results))


def cmd_sweep(args):
    out = Path(args.out).resolve()
    suites = suites_with_database(args, out)
    todo = []
    for name, root in suites.items():
        for path, flags in suite_files(name, root):
            if not args.only or any(o in str(path) for o in args.only):
                todo.append((name, root, path, flags))
    if args.limit:
        todo = todo[:args.limit]
    results, jobs = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(sweep_file, args, out, *t): t for t in todo}
        for f in concurrent.futures.as_completed(futures):
            rows, more = f.result()
            results += rows
            jobs += more
            for r in rows:
                mark = "fused" if r["fused"] else f"refused {r['id']}"
                print(f"{mark} {r['suite']}/{r['file']}:{r['kernel']}", flush=True)
    state = {"results": results, "jobs": jobs}
    if args.only and (out / "sweep.json").exists():
        # The other files' results stay, as `pairs --only` keeps other pairs.
        again = {(r["suite"], r["file"]) for r in results} | \
                {(t[0], str(t[2].relative_to(t[1]))) for t in todo}
        old = json.loads((out / "sweep.json").read_text())
        state["results"] += [r for r in old["results"] if (r["suite"], r["file"]) not in again]
        state["jobs"] += [j for j in old["jobs"] if (j["suite"], j["file"]) not in again]
    (out / "sweep.json").write_text(json.dumps(state, indent=1))
    if args.defer_compile:
        print(f"sweep: {len(jobs)} outputs to compile: coverage.py sweep-compile --out {out}")
        return
    finish_sweep(args, out, state, compile_jobs(args, jobs))


def cmd_sweep_compile(args):
    """Compiles a deferred sweep's outputs (on a machine with more cores)."""
    out = Path(args.out).resolve()
    state = json.loads((out / "sweep.json").read_text())
    target = Path(args.results) if args.results else out / "compiled.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    compiled = json.loads(target.read_text()) if target.exists() else {}
    todo = [j for j in state["jobs"] if j["key"] not in compiled]
    # Written after every output, so a machine whose time runs out keeps
    # what it compiled; a second run goes on from there.
    for i in range(0, len(todo), args.jobs):
        compiled.update(compile_jobs(args, todo[i:i + args.jobs]))
        target.write_text(json.dumps(compiled, indent=1))
    print(f"{sum(1 for rc, *_ in compiled.values() if rc == 0)} of {len(compiled)} outputs compile")


def cmd_sweep_finish(args):
    out = Path(args.out).resolve()
    state = json.loads((out / "sweep.json").read_text())
    finish_sweep(args, out, state, json.loads(Path(args.compiled).read_text()))


def sweep_table(results):
    rows = ["| suite | kernels listed | fuse beside a partner | share | outputs that compile for every pass "
            "| fail, the original file failing too | fail, the original compiling |",
            "|---|---|---|---|---|---|---|"]
    for suite in sorted({r["suite"] for r in results}) + ["all"]:
        rs = [r for r in results if suite in ("all", r["suite"])]
        fused = [r for r in rs if r["fused"]]
        ok = [r for r in fused if r["compiled"]]
        both = [r for r in fused if not r["compiled"] and r.get("original_fails")]
        rows.append(f"| {suite} | {len(rs)} | {len(fused)} | {100.0 * len(fused) / max(1, len(rs)):.1f}% | "
                    f"{len(ok)} of {len(fused)} | {len(both)} | {len(fused) - len(ok) - len(both)} |")
    ids = {}
    for r in results:
        if not r["fused"]:
            ids[r["id"] or "(no id)"] = ids.get(r["id"] or "(no id)", 0) + 1
    rows += ["", "| refusal | kernels | kind |", "|---|---|---|"]
    for ident, count in sorted(ids.items(), key=lambda kv: -kv[1]):
        kind = f"safety: {SAFETY[ident]}" if ident in SAFETY else "limitation"
        rows.append(f"| `{ident}` | {count} | {kind} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------
# Pairs: fuse, compile, link; a tuning bundle checks them on the GPU.

# Refusals whose reason is safety (the fusion would deadlock, race or compute
# something else), as against a limitation kfuse could lift.
SAFETY = {
    "kfuse-grid-sync": "the grid synchronizes",
    "kfuse-cooperative-groups": "cooperative groups a fused block cannot keep",
    "kfuse-call-unknown": "a call kfuse cannot see (function pointer)",
    "kfuse-unknown-memory-order": "memory kfuse cannot tie to an argument may be the partner's",
    "kfuse-small-block-count-barrier": "a count barrier would count padding threads",
    "kfuse-return-before-barrier": "a return before a counting barrier",
    "kfuse-shared-variable-alias": "two kernels share one __shared__ variable",
    "kfuse-device-variable": "the program writes a device variable no mode reaches",
    "kfuse-dynamic-shared-resizable": "dynamic shared memory sized by the block",
    "kfuse-block-too-large": "the two blocks hold more than 1024 threads",
}


def load_pairs(path):
    import yaml
    return yaml.safe_load(Path(path).read_text())["pairs"]


def flags_of(suites, suite, rel):
    root = suites[suite]
    return SUITES[suite][1](root, root / rel)


def merge_flags(lists):
    out = []
    for flags in lists:
        for f in flags:
            if f not in out:
                out.append(f)
    return out


def write_pair_config(pair, suites, directory):
    """A kfuse config for one pair, with absolute paths."""
    import yaml
    kernels, replace = [], []
    for k in pair["kernels"]:
        entry = {key: value for key, value in k.items() if key not in ("suite", "file")}
        entry["file"] = str(suites[k["suite"]] / k["file"])
        kernels.append(entry)
    for r in pair.get("replace", []):
        suite, _, rel = r.partition(":")
        replace.append(str(suites[suite] / rel))
    config = {"kernels": kernels,
              "fusions": [{"name": pair["name"], "kernels": [k["name"] for k in pair["kernels"]],
                           "tune": {"step": 1024, "samples": 20, "tolerance": 1e-4}}]}
    if replace:
        config["replace"] = replace
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path, config


def cmd_pairs(args):
    import yaml
    out = Path(args.out).resolve()
    suites = suites_with_database(args, out)
    previous = {}
    if args.only and (out / "pairs.json").exists():
        previous = {r["name"]: r for r in json.loads((out / "pairs.json").read_text())}
    results = []
    for pair in load_pairs(args.pairs):
        if args.only and pair["name"] not in args.only and pair["name"] in previous:
            results.append(previous[pair["name"]])
            continue
        d = out / "pairs" / pair["name"]
        if d.exists():
            shutil.rmtree(d)
        config, body = write_pair_config(pair, suites, d)
        r = {"name": pair["name"], "what": pair.get("what", ""),
             "kernels": [f"{k['suite']}/{k['file']}:{k['kernel']}" for k in pair["kernels"]],
             "fused": False, "compiled": False, "linked": False, "gpu": pair_has_launch(pair)}
        rc, text, _ = run([args.kfuse, "fuse", str(config), "-p", str(out / "db" / "all"),
                           "-o", str(d / "fused.cu")])
        (d / "kfuse.log").write_text(text)
        if rc != 0:
            r["error"], r["id"] = first_error(text)
            r["safety"] = SAFETY.get(r["id"], "")
            r["written"] = (d / "fused.cu").exists()
            results.append(r)
            print(f"refused {pair['name']}: {r['id']} {r['error'][:150]}", flush=True)
            continue
        r["fused"] = True
        files = []
        for k in pair["kernels"]:
            if (k["suite"], k["file"]) not in files:
                files.append((k["suite"], k["file"]))
        flags = merge_flags(flags_of(suites, s_, f) for s_, f in files)
        pic = ["-Xcompiler", "-fPIC"]
        rc, text, _ = run(nvcc_command(args.nvcc, d / "fused.cu", flags + pic, str(d / "fused.o")))
        r["compiled"] = rc == 0
        if rc != 0:
            r["compile_error"] = first_error(text)[0]
            (d / "nvcc.log").write_text(text)
            results.append(r)
            print(f"FUSED BUT DOES NOT COMPILE {pair['name']}: {r['compile_error'][:200]}", flush=True)
            continue
        # The fused object alone defines everything it refers to (a replaced
        # file's host code may need its program's other files); beside each
        # original object the program keeps, no symbol is defined twice (the
        # mains of two sample programs aside: no program holds both).
        replaced = {str(suites[x.partition(':')[0]] / x.partition(':')[2]) for x in pair.get("replace", [])}
        link_ok, link_errors = True, []
        rdc = ["-rdc=true"] if "-rdc=true" in flags else []
        if not replaced:
            rc, text, _ = run([args.nvcc, f"-arch={ARCH}", "-shared", "-Xlinker", "-z,defs", "-o",
                               str(d / "alone.so")] + rdc + [str(d / "fused.o")])
            if rc != 0:
                link_ok = False
                link_errors.append("alone: " + (first_error(text)[0] or text.strip()[-300:]))
        for s_, f in files:
            if str(suites[s_] / f) in replaced:
                continue
            obj = d / (Path(f).stem + ".o")
            rc, text, _ = run(nvcc_command(args.nvcc, suites[s_] / f, flags_of(suites, s_, f) + pic, str(obj)))
            if rc != 0:
                link_ok = False
                link_errors.append("original does not compile: " + first_error(text)[0])
                continue
            rc, text, _ = run([args.nvcc, f"-arch={ARCH}", "-shared", "-o", str(d / "linked.so")] + rdc +
                              [str(d / "fused.o"), str(obj)])
            twice = [l for l in text.splitlines()
                     if "ultiple definition" in l and "`main'" not in l and "'main'" not in l]
            if twice:
                link_ok = False
                link_errors.append(f"beside {Path(f).name}: " + twice[0].strip())
        r["linked"] = link_ok
        if link_errors:
            r["link_error"] = "; ".join(link_errors)
            print(f"FUSED BUT DOES NOT LINK {pair['name']}: {r['link_error'][:200]}", flush=True)
        else:
            print(f"ok {pair['name']}", flush=True)
        results.append(r)
    (out / "pairs.json").write_text(json.dumps(results, indent=1))
    # Bundles for the pairs the GPU checks: the harness compares each fused
    # variant with the original kernels on the same random inputs. A pair may
    # name its own bundle (`bundle:`) when its files cannot share one
    # translation unit with the others' (one include guard for two files).
    bundles = {}
    by_name = {p["name"]: p for p in load_pairs(args.pairs)}
    for r in results:
        if not (r["linked"] and r["gpu"]):
            continue
        tuned = bundles.setdefault(by_name[r["name"]].get("bundle", "bundle"),
                                   {"kernels": [], "fusions": [], "replace": []})
        body = yaml.safe_load((out / "pairs" / r["name"] / "config.yaml").read_text())
        # Kernel names are the config's and must be unique across pairs.
        renamed = {k["name"]: f"{r['name']}_{k['name']}" for k in body["kernels"]}
        tuned["kernels"] += [dict(k, name=renamed[k["name"]]) for k in body["kernels"]]
        tuned["fusions"] += [dict(f, kernels=[renamed[n] for n in f["kernels"]])
                             for f in body["fusions"]]
        tuned["replace"] += [x for x in body.get("replace", []) if x not in tuned["replace"]]
    (out / "gpu").mkdir(exist_ok=True)
    fusions = []
    for bundle, tuned in bundles.items():
        if not tuned["replace"]:
            del tuned["replace"]
        config = out / "gpu" / f"{bundle}.yaml"
        config.write_text(yaml.safe_dump(tuned, sort_keys=False))
        fusions += [{"fusion": f["name"], "bundle": bundle} for f in tuned["fusions"]]
        rc, text, _ = run([args.kfuse, "tune", str(config), "-p", str(out / "db" / "all"),
                           "--bundle", str(out / bundle)])
        (out / "gpu" / f"{bundle}.log").write_text(text)
        print(text.strip().splitlines()[-1] if text.strip() else "", flush=True)
        if rc != 0:
            sys.exit(f"coverage: kfuse tune could not write {bundle}; see {out / 'gpu' / bundle}.log")
    (out / "gpu" / "fusions.json").write_text(json.dumps(fusions, indent=1))
    print(pairs_table(results))


def pair_has_launch(pair):
    return all("launch" in k for k in pair["kernels"])


def cmd_gpu(args):
    """On the GPU machine: the bundle's harness, one process per fusion, so a
    kernel that faults on its inputs cannot end the others' checks."""
    out = Path(args.out).resolve()
    names = json.loads((out / "gpu" / "fusions.json").read_text())
    (out / "gpu").mkdir(exist_ok=True)
    k, _, n = args.part.partition("/")
    k, n = int(k), int(n)
    if args.only:
        unknown = set(args.only) - {e["fusion"] for e in names}
        if unknown:
            sys.exit(f"coverage: no fusion named {', '.join(sorted(unknown))} in {out / 'gpu' / 'fusions.json'}")
        names = [e for e in names if e["fusion"] in args.only]
    elif k == 1:  # A new measurement; later shares add to its log.
        (out / "gpu.log").write_text("")
    names = names[(k - 1) * len(names) // n:k * len(names) // n]
    for entry in names:
        name, bundle = entry["fusion"], out / entry["bundle"]
        result = out / "gpu" / f"{name}.json"
        if not (bundle / "harness").exists():  # run.sh builds it first.
            cmd = ["bash", str(bundle / "run.sh")]
        else:
            cmd = [str(bundle / "harness"), "--nvcc", args.nvcc]
        cmd += ["--fusion", name, "--out", str(result), "--jobs", str(args.jobs), "--seed", "7"]
        # A fused kernel that hangs must not take the machine's time.
        rc, text, secs = run(cmd, timeout=300 if cmd[0] == "bash" else 150)
        with open(out / "gpu.log", "a") as f:  # Kept if the machine's time runs out.
            f.write(f"=== {name}: exit {rc} in {secs:.0f} s\n{text}\n")
        print(f"{name}: exit {rc} in {secs:.0f} s", flush=True)



def gpu_verdicts(out):
    """Per fusion: whether every fused variant matched the original kernels
    (False also when the harness failed), and the machine."""
    verdicts, device = {}, {}
    entries = json.loads((out / "gpu" / "fusions.json").read_text()) if (out / "gpu" / "fusions.json").exists() else []
    for name in [e["fusion"] for e in entries]:
        path = out / "gpu" / f"{name}.json"
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            if (out / "gpu.log").exists():
                verdicts[name] = False
            continue
        device = {"device": data.get("device", ""), "driver": data.get("driver_api", ""),
                  "runtime": data.get("runtime", "")}
        for f in data["fusions"]:
            fused = [c for c in f["candidates"] if c["kind"] in ("horizontal", "vertical")]
            native = [c for c in f["candidates"] if c["kind"] in ("sequential", "streams", "graph")]
            verdicts[f["fusion"]] = bool(fused) and all(c["valid"] for c in fused)
            if not verdicts[f["fusion"]] and not all(c["valid"] for c in native):
                # The original launches disagree with one another on these
                # inputs: the kernels race on them, nothing to compare.
                verdicts[f["fusion"]] = "inconclusive"
    return verdicts, device


def pairs_table(results, verdicts=None):
    rows = ["| pair | kernels | result |", "|---|---|---|"]
    for r in results:
        if not r["fused"]:
            kind = f"safety: {r['safety']}" if r.get("safety") else "limitation"
            result = f"refused, `{r['id']}` ({kind})"
        elif not r["compiled"]:
            result = "**fused, does not compile**"
        elif not r["linked"]:
            result = "**fused and compiled, does not link**"
        elif verdicts is not None and r["gpu"]:
            v = verdicts.get(r["name"])
            result = ("fused, compiled, linked; inconclusive on the GPU: the original launches "
                      "differ from one another on these inputs" if v == "inconclusive" else
                      "fused, compiled, linked, **matches on the GPU**" if v else
                      "fused, compiled, linked, **differs on the GPU**" if v is False else
                      "fused, compiled, linked, not run on the GPU")
        else:
            result = "fused, compiled, linked"
        rows.append(f"| {r['name']} | {'<br>'.join(r['kernels'])} | {result} |")
    return "\n".join(rows)


def cmd_report(args):
    out = Path(args.out).resolve()
    files = json.loads((out / "files.json").read_text()) if (out / "files.json").exists() else []
    pairs = json.loads((out / "pairs.json").read_text()) if (out / "pairs.json").exists() else []
    verdicts, device = gpu_verdicts(out)
    print("## Files\n")
    print(files_table(files))
    failed = [r for r in files if r["nvcc"] and not r["kfuse"]]
    if failed:
        print("\nFiles nvcc accepts that kfuse list does not read:\n")
        for r in failed:
            print(f"- {r['suite']}/{r['file']}: `{r['kfuse_error']}`")
    print("\n## Pairs\n")
    if device:
        print(f"GPU: {device['device']}, driver API {device['driver']}, runtime {device['runtime']}.\n")
    print(pairs_table(pairs, verdicts if device else None))
    total = len(pairs)
    good = sum(1 for r in pairs if r["fused"] and r["compiled"] and r["linked"] and
               (verdicts.get(r["name"]) is True if r["gpu"] and device else not r["gpu"]))
    unsure = sum(1 for r in pairs if verdicts.get(r["name"]) == "inconclusive")
    broken = sum(1 for r in pairs if r["fused"] and not (r["compiled"] and r["linked"]))
    print(f"\n{good} of {total} pairs fuse, compile, link and match; {unsure} inconclusive; "
          f"{broken} fused but did not compile or link.")


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
    q = sub.add_parser("pairs")
    q.add_argument("--suite", action="append", default=[])
    q.add_argument("--out", required=True)
    q.add_argument("--pairs", default=str(ROOT / "scripts" / "coverage-pairs.yaml"))
    q.add_argument("--only", action="append", default=[],
                   help="run this pair again, keeping the others' results (repeatable)")
    q.add_argument("--kfuse", default=str(ROOT / "build" / "bin" / "kfuse"))
    q.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    q.set_defaults(fn=cmd_pairs)
    g = sub.add_parser("gpu")
    g.add_argument("--out", required=True)
    g.add_argument("--jobs", type=int, default=os.cpu_count())
    g.add_argument("--part", default="1/1", help="K/N: the K-th of N equal shares of the fusions")
    g.add_argument("--only", action="append", default=[],
                   help="run this fusion again, keeping the others' results (repeatable)")
    g.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    g.set_defaults(fn=cmd_gpu)
    w = sub.add_parser("sweep")
    w.add_argument("--suite", action="append", default=[])
    w.add_argument("--out", required=True)
    w.add_argument("--jobs", type=int, default=os.cpu_count())
    w.add_argument("--limit", type=int, default=0, help="the first N files only")
    w.add_argument("--only", action="append", default=[], help="files whose path holds this")
    w.add_argument("--kfuse", default=str(ROOT / "build" / "bin" / "kfuse"))
    w.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    w.add_argument("--resume", action="store_true",
                   help="keep the kfuse results of files done since the kfuse binary last changed")
    w.add_argument("--defer-compile", action="store_true",
                   help="write the outputs and their nvcc commands only (see sweep-compile)")
    w.set_defaults(fn=cmd_sweep)
    wc = sub.add_parser("sweep-compile")
    wc.add_argument("--out", required=True)
    wc.add_argument("--jobs", type=int, default=os.cpu_count())
    wc.add_argument("--results", help="where to write nvcc's results (default OUT/compiled.json)")
    wc.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    wc.set_defaults(fn=cmd_sweep_compile)
    wf = sub.add_parser("sweep-finish")
    wf.add_argument("--out", required=True)
    wf.add_argument("--compiled", required=True, help="sweep-compile's results")
    wf.add_argument("--no-split", action="store_true",
                    help="count every kernel of an output that fails, without compiling them one by one")
    wf.add_argument("--jobs", type=int, default=os.cpu_count())
    wf.add_argument("--kfuse", default=str(ROOT / "build" / "bin" / "kfuse"))
    wf.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    wf.set_defaults(fn=cmd_sweep_finish)
    rp = sub.add_parser("report")
    rp.add_argument("--out", required=True)
    rp.set_defaults(fn=cmd_report)
    args = p.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
