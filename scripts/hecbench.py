#!/usr/bin/env python3
"""Whole HeCBench programs through kfuse, as a user would take them.

  prepare  (where kfuse is; no GPU): for each CUDA program of HeCBench whose
           name begins with a letter in --letters, copy it twice under --out
           (the source tree is never touched), run `kfuse suggest` on its .cu
           files, and for the fusions suggest says kfuse fuses (disjoint ones,
           best first) run `kfuse fuse --rewrite-launches -i` on the copy: the
           program's own files now call the fused launchers. A fusion whose
           launches cannot be rewritten is dropped, with kfuse's reason. When
           the kernels read a __device__/__constant__ variable the host writes,
           the config gets `replace:` (kfuse names that mode) and the fused file
           is compiled in the program file's place.
  gpu      (the GPU machine): build both copies with the program's own Makefile
           (the rewritten one with `obj=` naming the fused object as well), run
           the first command of each Makefile's `run` target in both, and
           compare: the program's own PASS/FAIL, else its output with timing
           lines left out; the first time the program prints, fused / original.
  tune     (the GPU machine, with kfuse packaged there): for each rewritten
           program whose config has no FILL left once --fills gives the sizes
           of the Makefile's run (the one config edit), a third copy `tuned/`
           takes that config: `kfuse tune --run`, then `kfuse fuse --tuning
           --rewrite-launches -i` (fusions the measurements keep native keep
           their launches), its own Makefile, and the runs of `gpu`, against
           the original; tune.json.
  report   the table of docs/hecbench.md from prepare.json and gpu.json.

HeCBench is fetched by the user (github zjin-lcf/HeCBench) and never committed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

TIMING = re.compile(r"(time|elapsed|throughput|bandwidth|gflops|gb/s|ms\b|sec\b|\bus\b|speed|per ns|\bFOM\b)",
                    re.I)


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"


def makefile_flags(program_dir):
    """-I, -D and -std of the Makefile's compile flags: what kfuse parses with."""
    try:
        text = open(os.path.join(program_dir, "Makefile"), errors="replace").read()
    except OSError:
        return []
    flags = []
    for token in re.findall(r"(-I\S+|-D\S+|-std=\S+)", text):
        if "$" in token or token in flags:
            continue
        flags.append(token)
    return flags


def makefile_sources(program_dir):
    """The .cu files the Makefile's `source =` compiles (others are included)."""
    try:
        text = open(os.path.join(program_dir, "Makefile"), errors="replace").read()
    except OSError:
        return []
    m = re.search(r"^source\s*:?=\s*(.*(?:\\\n.*)*)", text, re.M)
    if not m:
        return []
    files = m.group(1).replace("\\\n", " ").split()
    return [f for f in files if f.endswith(".cu") and os.path.isfile(os.path.join(program_dir, f))]


def load_yaml(path):
    import yaml  # python3-yaml, from Debian
    with open(path) as f:
        return yaml.safe_load(f)


def disjoint_fusions(config):
    """The config's fusions, best first, that share no launch."""
    taken, chosen = set(), []
    for f in config.get("fusions", []):
        kernels = set(f["kernels"])
        if kernels & taken:
            continue
        taken |= kernels
        chosen.append(f["name"])
    return chosen


def prepare_one(args, name):
    src = os.path.join(args.hecbench, "src", name)
    record = {"program": name}
    work = os.path.join(args.out, "programs")
    orig, fused = os.path.join(work, "orig", name), os.path.join(work, "fused", name)
    for d in (orig, fused):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(src, d, symlinks=True)
    sources = makefile_sources(fused) or sorted(f for f in os.listdir(fused) if f.endswith(".cu"))
    record["sources"] = sources
    if not sources:
        record["status"] = "no .cu file"
        return record
    flags = makefile_flags(fused) + ["-I../include", "-w"]
    code, out, err = run([args.kfuse, "suggest", *sources, "-o", "kfuse.yaml", "--quiet", "--",
                          *flags], fused, 600)
    record["suggest"] = (out + err)[-4000:]
    if code != 0:
        record["status"] = "suggest failed"
        return record
    if not os.path.exists(os.path.join(fused, "kfuse.yaml")):
        record["status"] = "no candidate kfuse fuses"
        return record
    fusions = disjoint_fusions(load_yaml(os.path.join(fused, "kfuse.yaml")))
    record["dropped"] = {}
    record["edits"] = []  # fusions given distinct_buffers: true
    replace = "replace:" in open(os.path.join(fused, "kfuse.yaml")).read()
    while fusions:
        os.makedirs(os.path.join(fused, "kfuse"), exist_ok=True)
        cmd = [args.kfuse, "fuse", "kfuse.yaml", "--fusion", ",".join(fusions), "-o",
               "kfuse/fused.cu", "--header", "kfuse/fused.h", "--rewrite-launches", "-i",
               "--", *flags]
        code, out, err = run(cmd, fused, 600)
        if code == 0:
            record["status"] = "rewritten"
            record["fusions"] = fusions
            record["replace"] = replace
            record["rewritten"] = [s for s in sources
                                   if os.path.exists(os.path.join(fused, s + ".orig"))]
            return record
        if "kfuse-device-variable" in err and not replace:
            # kfuse names the mode that works: compile the fused file in place.
            with open(os.path.join(fused, "kfuse.yaml"), "a") as f:
                f.write("replace: [%s]\n" % ", ".join(sources))
            replace = True
            continue
        promise = re.search(r"add 'distinct_buffers: true' to fusion '([^']+)'", err)
        if promise and promise.group(1) not in record["edits"]:
            # The one config edit a user makes: promise that the pointers the
            # launching function receives are distinct. The program's own
            # check then tells whether the promise holds.
            path = os.path.join(fused, "kfuse.yaml")
            text = open(path).read()
            text = re.sub(r"(- \{name: %s, kernels: \[[^\]]*\])" % re.escape(promise.group(1)),
                          r"\1, distinct_buffers: true", text)
            open(path, "w").write(text)
            record["edits"].append(promise.group(1))
            continue
        culprit = next((f for f in fusions if re.search(r"fusion '%s'" % re.escape(f), err)), None)
        if culprit is None:
            # Refusals at a launch name its kernel: drop the fusion holding it.
            culprit = fusions[0]
        record["dropped"][culprit] = [l for l in err.splitlines() if "error:" in l][:3]
        fusions.remove(culprit)
    record["status"] = "no fusion rewritable"
    return record


def prepare(args):
    src = os.path.join(args.hecbench, "src")
    names = sorted(n for n in os.listdir(src)
                   if n.endswith("-cuda") and n[0].lower() in args.letters)
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    os.makedirs(args.out, exist_ok=True)
    # Programs include ../include: beside each copy as beside the original.
    shared = os.path.abspath(os.path.join(src, "include"))
    for side in ("orig", "fused"):
        os.makedirs(os.path.join(args.out, "programs", side), exist_ok=True)
        link = os.path.join(args.out, "programs", side, "include")
        if os.path.isdir(shared) and not os.path.lexists(link):
            os.symlink(shared, link)
    records = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, r in enumerate(pool.map(lambda n: prepare_one(args, n), names)):
            records.append(r)
            print("[%d/%d] %s: %s %s" % (i + 1, len(names), r["program"], r["status"],
                                         ",".join(r.get("fusions", []))), flush=True)
    with open(os.path.join(args.out, "prepare.json"), "w") as f:
        json.dump(records, f, indent=1)


def verdict(text):
    if re.search(r"\bFAIL", text):
        return "FAIL"
    if re.search(r"\bPASS", text):
        return "PASS"
    return ""


def first_time(text):
    """The program's first timing line and its last number ("... 1.006 (s)")."""
    for line in text.splitlines():
        if re.search(r"time", line, re.I):
            numbers = re.findall(r"(\d+\.?\d*(?:[eE][-+]?\d+)?)", line)
            if numbers:
                return float(numbers[-1]), line.strip()
    return None, ""


def make_args(args, record, side):
    make = ["make", "-s", "ARCH=" + args.arch, "CC=nvcc"]
    if side != "orig":
        # The program's own Makefile, told to link the fused object too (a
        # replaced file is compiled only through the fused file) and how to
        # build it: command-line variables and --eval, no edit.
        d = os.path.join(args.out, "programs", side, record["program"])
        code, out, _ = run(make + ["--no-print-directory", "--eval=kfuse-print-obj: ; @echo $(obj)",
                                   "kfuse-print-obj"], d, 60)
        objs = out.split() if code == 0 else [s[:-3] + ".o" for s in record["sources"]]
        rewritten = [s for s in record["sources"] if os.path.exists(os.path.join(d, s + ".orig"))]
        replaced = {s[:-3] + ".o" for s in rewritten} if record["replace"] else set()
        objs = [o for o in objs if o not in replaced] + ["kfuse/fused.o"]
        make += ["obj=" + " ".join(objs),
                 "--eval=kfuse/fused.o: kfuse/fused.cu ; $(CC) $(CFLAGS) -c $< -o $@"]
    return make


def build_one(args, record, sides=("orig", "fused")):
    work = os.path.join(args.out, "programs")
    built = {}
    for side in sides:
        code, out, err = run(make_args(args, record, side), os.path.join(work, side, record["program"]),
                             600)
        built[side] = {"build": "ok" if code == 0 else "failed", "log": (out + err)[-3000:]}
    return built


def run_one(args, record, built, sides=("orig", "fused")):
    """`make run` (the program's default arguments) in both copies, one at a
    time so that neither shares the GPU, --runs times each, alternating."""
    work = os.path.join(args.out, "programs")
    result = {"program": record["program"]}
    outputs = {}
    for side in sides:
        result[side] = dict(built[side])
        result[side]["times"] = []
    for _ in range(args.runs):
        for side in sides:
            if built[side]["build"] != "ok" or result[side].get("exit") not in (None, 0):
                continue
            start = time.time()
            code, out, err = run(make_args(args, record, side) + ["run"],
                                 os.path.join(work, side, record["program"]), args.timeout)
            t, line = first_time(out)
            if side not in outputs:
                result[side].update({"exit": code, "wall_s": time.time() - start,
                                     "verdict": verdict(out), "time": t, "time_line": line,
                                     "output": out[-3000:], "stderr": err[-2000:]})
                outputs[side] = out if code == 0 else None
            if code == 0 and t is not None:
                result[side]["times"].append(t)
    if outputs.get(sides[0]) is not None and outputs.get(sides[1]) is not None:
        keep = lambda o: [l for l in o.splitlines() if not TIMING.search(l)]
        result["same_output"] = keep(outputs[sides[0]]) == keep(outputs[sides[1]])
    return result


def filled(text, sizes):
    """The config with each FILL given from `sizes`: a scalar by the name its
    comment gives it (`{value: FILL}  # n = ...`), a buffer's count as
    sizes["count"], a grid as the count over the entry's block."""
    lines, block = [], None
    for line in text.splitlines():
        m = re.match(r"\s*block: \[(\d+)", line)
        if m:
            block = int(m.group(1))
        code, _, comment = line.partition("#")
        if "FILL" in code:
            if "grid:" in code and block and "count" in sizes:
                line = line.replace("[FILL]", "[%d]" % ((sizes["count"] + block - 1) // block), 1)
            elif "count: FILL" in code and "count" in sizes:
                line = line.replace("count: FILL", "count: %d" % sizes["count"], 1)
            elif "value: FILL" in code:
                name = comment.split("=")[0].strip()
                if name in sizes:
                    line = line.replace("value: FILL", "value: %s" % sizes[name], 1)
        lines.append(line)
    return "\n".join(lines) + "\n"


def tune_one(args, record, sizes):
    """The program's config, filled, tuned on this GPU and rewritten as the
    measurements say, in a third copy."""
    name = record["program"]
    work = os.path.join(args.out, "programs")
    d = os.path.join(work, "tuned", name)
    link = os.path.join(work, "tuned", "include")
    if os.path.lexists(os.path.join(work, "orig", "include")) and not os.path.lexists(link):
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.readlink(os.path.join(work, "orig", "include")), link)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(work, "orig", name), d, symlinks=True)
    text = filled(open(os.path.join(work, "fused", name, "kfuse.yaml")).read(), sizes)
    out = {"program": name}
    if any("FILL" in l.partition("#")[0] for l in text.splitlines()):
        out["status"] = "FILL left"
        return out
    open(os.path.join(d, "kfuse.yaml"), "w").write(text)
    flags = makefile_flags(d) + ["-I../include", "-w"]
    fusions = ",".join(record["fusions"])
    code, o, e = run([args.kfuse, "tune", "kfuse.yaml", "--fusion", fusions, "--run", "--",
                      *flags], d, 1800)
    out["tune"] = [l for l in (o + e).splitlines() if l.startswith("kfuse: ") or "error" in l][-12:]
    if code != 0:
        out["status"] = "tune failed"
        return out
    os.makedirs(os.path.join(d, "kfuse"), exist_ok=True)
    code, o, e = run([args.kfuse, "fuse", "kfuse.yaml", "--fusion", fusions, "--tuning",
                      "kfuse.tune/results.json", "-o", "kfuse/fused.cu", "--header",
                      "kfuse/fused.h", "--rewrite-launches", "-i", "--", *flags], d, 600)
    out["fuse"] = (o + e)[-2000:]
    out["status"] = "tuned" if code == 0 else "fuse failed"
    return out


def tune(args):
    sizes = json.load(open(args.fills)) if args.fills else {}
    records = [r for r in json.load(open(os.path.join(args.out, "prepare.json")))
               if r["status"] == "rewritten"]
    if args.only:
        records = [r for r in records if r["program"] in args.only.split(",")]
    results = []
    for r in records:
        t = tune_one(args, r, sizes.get(r["program"], {}))
        print("%-26s %s %s" % (r["program"], t["status"], " | ".join(t.get("tune", []))), flush=True)
        if t["status"] == "tuned":
            built = build_one(args, r, ("orig", "tuned"))
            t.update(run_one(args, r, built, ("orig", "tuned")))
            o, f = t["orig"], t["tuned"]
            print("%-26s orig %s %s tuned %s %s same=%s t=%s/%s" % (
                r["program"], o["build"], o.get("verdict", ""), f["build"], f.get("verdict", ""),
                t.get("same_output"), f.get("times"), o.get("times")), flush=True)
        results.append(t)
    with open(os.path.join(args.out, "tune.json"), "w") as f:
        json.dump(results, f, indent=1)


def gpu(args):
    records = [r for r in json.load(open(os.path.join(args.out, "prepare.json")))
               if r["status"] == "rewritten"]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        builds = list(pool.map(lambda r: build_one(args, r), records))
    results = []
    for r, b in zip(records, builds):
        g = run_one(args, r, b)
        results.append(g)
        o, f = g["orig"], g["fused"]
        print("%-26s orig %-6s exit %-4s %-4s fused %-6s exit %-4s %-4s same=%s t=%s/%s" % (
            r["program"], o["build"], o.get("exit"), o.get("verdict", ""), f["build"],
            f.get("exit"), f.get("verdict", ""), g.get("same_output"), f.get("times"),
            o.get("times")), flush=True)
    with open(os.path.join(args.out, "gpu.json"), "w") as f:
        json.dump(results, f, indent=1)


def report(args):
    prepared = json.load(open(os.path.join(args.out, "prepare.json")))
    measured = {}
    path = os.path.join(args.out, "gpu.json")
    if os.path.exists(path):
        measured = {r["program"]: r for r in json.load(open(path))}
    counts = {}
    for r in prepared:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print("programs: %d; %s" % (len(prepared), ", ".join(
        "%s %d" % kv for kv in sorted(counts.items(), key=lambda kv: -kv[1]))))
    print()
    print("| program | fusions | build | verdict (orig / fused) | same output | "
          "program's own time, fused / orig |")
    print("|---|---|---|---|---|---|")
    for r in prepared:
        if r["status"] != "rewritten":
            continue
        g = measured.get(r["program"], {})
        o, f = g.get("orig", {}), g.get("fused", {})
        build = "not run" if not g else (
            "ok" if o.get("build") == f.get("build") == "ok" else
            "orig %s, fused %s" % (o.get("build"), f.get("build")))
        ratio = ""
        if o.get("times") and f.get("times"):
            t_o, t_f = statistics.median(o["times"]), statistics.median(f["times"])
            ratio = "%.3f (medians of %d runs)" % (t_f / t_o, min(len(o["times"]), len(f["times"])))
        if o.get("exit") not in (0, None) and o.get("exit") == f.get("exit"):
            ratio = "both exit %d: %s" % (o["exit"], "input data not in the checkout")
        notes = (["replace"] if r.get("replace") else []) + [
            "distinct_buffers: " + f for f in r.get("edits", [])]
        print("| %s | %s%s | %s | %s / %s | %s | %s |" % (
            r["program"], ", ".join(r["fusions"]), " (%s)" % "; ".join(notes) if notes else "",
            build, o.get("verdict") or "-", f.get("verdict") or "-",
            {True: "yes", False: "**no**", None: "-"}[g.get("same_output")], ratio))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stage", choices=["prepare", "gpu", "tune", "report"])
    p.add_argument("--hecbench", help="HeCBench's checkout (holds src/)")
    p.add_argument("--out", required=True)
    p.add_argument("--kfuse", default="build/bin/kfuse")
    p.add_argument("--letters", default="abcdefghijkl")
    p.add_argument("--only", help="comma-separated program names")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--runs", type=int, default=3, help="gpu: runs of each copy, alternating")
    p.add_argument("--fills", help="tune: JSON of each program's sizes for its config's FILLs")
    args = p.parse_args()
    if args.kfuse:
        args.kfuse = os.path.abspath(args.kfuse)
    {"prepare": prepare, "gpu": gpu, "tune": tune, "report": report}[args.stage](args)


if __name__ == "__main__":
    main()
