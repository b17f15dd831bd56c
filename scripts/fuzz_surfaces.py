#!/usr/bin/env python3
"""Fuzzing of the inputs scripts/fuzz_kfuse.py does not reach (issue 37):
generated host programs for `kfuse suggest`, mutated Nsight Compute profiles
for `kfuse suggest --profile`, and mutated tuning results for `kfuse tune
--results`, `kfuse fuse --tuning` and `kfuse check --tuning`. Every input is
generated here (kernels and programs written for this script); kfuse's
contract is checked on each:

  - no crash (a signal), no hang (60 s for programs of fewer than 2,000
    launches and for every profile and results file; 600 s otherwise) and no
    sanitizer report;
  - exit 1 only with at least one "error: ... [kfuse-ID]" line, exit 2 only
    with kfuse's own "kfuse: ..." line about the command line (the program
    as it was started: "kfuse-dev: ..."), and then no output file written or
    changed;
  - exit 0 with its outputs there and whole: suggest's -o config one that
    `kfuse check` reads and accepts (suggest writes only what kfuse fuses),
    its --markdown table; tune's and fuse's -o a .cu file;
  - inputs (sources, configs, profiles, results) never modified, no file
    it was not asked for, no ".tmp-" file left behind.

Any other outcome is a finding; the inputs of each are kept under --keep with
a RUN file (the command and what kfuse printed). Outcomes that keep the
contract but deserve a look (slow runs, errors without a line, values no GPU
measures that were accepted, nan/inf in a report) are listed as notes. The
table of outcomes per surface comes last; exits 1 when there are findings.
Deterministic for a given --seed (each case draws from its own generator).

  scripts/fuzz_surfaces.py --kfuse build/bin/kfuse --cases 300 --seconds 2400
"""
import argparse
import collections
import copy
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIAG = re.compile(r"error: .*\[(kfuse-[a-z0-9-]+)\]\s*$", re.M)
LOCATED = re.compile(r"^\S+:\d+:\d+: error: .*\[(kfuse-[a-z0-9-]+)\]\s*$", re.M)
SANITIZER = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|"
                       r"ERROR: UndefinedBehaviorSanitizer|SUMMARY: \w+Sanitizer")
LLVM_CRASH = re.compile(r"PLEASE submit a bug report|Stack dump:")
NONFINITE = re.compile(r"(?<![\w-])-?(nan|inf|infinity)(?![\w-])", re.I)
HANG_SECONDS = 60
SLOW_SECONDS = 15
COLUMNS = ["suggest", "profile", "tune --results", "fuse --tuning", "check --tuning"]
SURFACES = ["suggest", "profile", "results"]

# --------------------------------------------------------------------------
# Kernels, written for this script. Each kind gives a definition and what a
# launch passes; "ncu" is how Nsight Compute names the kernel.

NAMES = ["scale", "axpy", "blur", "norm", "tally", "mix", "gather", "squash", "clampv", "decay",
         "pack", "rotate", "smooth", "shift", "bump", "fold", "sift", "twirl", "spread", "grind"]


def kernel_kinds():
    return {
        "ew": (6, lambda n: (
            "__global__ void %s(float *x, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n)\n    x[i] = x[i] * 1.5f + 0.25f;\n}\n" % n,
            [[n, n, [("buf", "float"), ("int",)], "%s(float *, int)" % n]])),
        "copy": (5, lambda n: (
            "__global__ void %s(const float *in, float *out, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n)\n    out[i] = in[i] > 0.0f ? in[i] : -in[i];\n}\n" % n,
            [[n, n, [("buf", "float"), ("buf", "float"), ("int",)],
              "%s(const float *, float *, int)" % n]])),
        "hash": (5, lambda n: (
            "__global__ void %s(unsigned *v, int n) {\n"
            "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
            "       i += gridDim.x * blockDim.x) {\n"
            "    unsigned h = v[i];\n    h ^= h >> 13;\n    h *= 0x5bd1e995u;\n"
            "    v[i] = h ^ (h >> 15);\n  }\n}\n" % n,
            [[n, n, [("buf", "unsigned"), ("int",)], "%s(unsigned int *, int)" % n]])),
        "reduce": (3, lambda n: (
            "__global__ void %s(const float *in, float *out, int n) {\n"
            "  __shared__ float part[256];\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  part[threadIdx.x] = i < n ? in[i] : 0.0f;\n  __syncthreads();\n"
            "  for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
            "    if (threadIdx.x < s)\n      part[threadIdx.x] += part[threadIdx.x + s];\n"
            "    __syncthreads();\n  }\n"
            "  if (threadIdx.x == 0)\n    out[blockIdx.x] = part[0];\n}\n" % n,
            [[n, n, [("buf", "float"), ("buf", "float"), ("int",)],
              "%s(const float *, float *, int)" % n]])),
        "tmpl": (4, lambda n: (
            "namespace gen {\ntemplate <typename T> __global__ void %s(T *x, T a, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n)\n    x[i] = x[i] * a;\n}\n} // namespace gen\n" % n,
            [["gen::%s<%s>" % (n, t), n, [("buf", t), (t,), ("int",)],
              "void gen::%s<%s>(%s *, %s, int)" % (n, t, t, t)] for t in ("float", "double")])),
        "ovl": (2, lambda n: (
            "__global__ void %s(float *x, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n)\n    x[i] += 1.0f;\n}\n"
            "__global__ void %s(double *x, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n)\n    x[i] += 2.0;\n}\n"
            % (n, n),
            [[n, n, [("buf", "float"), ("int",)], "%s(float *, int)" % n],
             [n, n, [("buf", "double"), ("int",)], "%s(double *, int)" % n]])),
        "dflt": (2, lambda n: (
            "__global__ void %s(int *c, int n = 512) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n)\n    c[i] = i;\n}\n" % n,
            [[n, n, [("buf", "int"), ("int?",)], "%s(int *, int)" % n]])),
        "twod": (2, lambda n: (
            "__global__ void %s(float *m, int w, int h) {\n"
            "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "  if (x < w && y < h)\n    m[y * w + x] += 1.0f;\n}\n" % n,
            [[n, n, [("buf", "float"), ("int",), ("int",)], "%s(float *, int, int)" % n]])),
        "devvar": (2, lambda n: (
            "__device__ unsigned %s_hits;\n"
            "__global__ void %s(const float *x, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n && x[i] > 0.5f)\n    atomicAdd(&%s_hits, 1u);\n}\n" % (n, n, n),
            [[n, n, [("buf", "float"), ("int",)], "%s(const float *, int)" % n]])),
        "static": (2, lambda n: (
            "static __global__ void %s(double *d, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n)\n    d[i] = d[i] / 3.0;\n}\n"
            % n,
            [[n, n, [("buf", "double"), ("int",)], "%s(double *, int)" % n]])),
        "gridsync": (1, lambda n: (
            "__global__ void %s(float *x, int n) {\n"
            "  cooperative_groups::grid_group g = cooperative_groups::this_grid();\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n)\n    x[i] += 1.0f;\n  g.sync();\n}\n" % n,
            [[n, n, [("buf", "float"), ("int",)], "%s(float *, int)" % n]])),
    }


class Kernel:
    def __init__(self, spell, base, params, ncu, kind):
        self.spell, self.base, self.params, self.ncu, self.kind = spell, base, params, ncu, kind


def make_kernels(rnd, count, kinds=None):
    """(definitions text, [Kernel]) for about count kernels."""
    table = kernel_kinds()
    names = list(NAMES)
    rnd.shuffle(names)
    choices = sorted(kinds or table)
    weights = [table[k][0] for k in choices]
    texts, kernels = [], []
    for i in range(count):
        kind = rnd.choices(choices, weights)[0]
        name = names[i % len(names)] + ("" if i < len(names) else str(i))
        text, forms = table[kind][1](name)
        texts.append(text)
        kernels += [Kernel(s, b, p, c, kind) for s, b, p, c in forms]
    return "\n".join(texts), kernels


# --------------------------------------------------------------------------
# Host programs for kfuse suggest.

BUFFERS = {"float": ["fa0", "fa1", "fa2", "px"], "double": ["da0", "da1"],
           "unsigned": ["ua0", "ua1", "pu"], "int": ["ia0"]}
GRIDS = [("64", (64, 1, 1)), ("GRID", (64, 1, 1)), ("kGrid", (32, 1, 1)),
         ("(n + 255) / 256", (256, 1, 1)), ("dim3(32, 2)", (32, 2, 1)), ("1", (1, 1, 1)),
         ("blocks", (128, 1, 1)), ("0", (0, 1, 1)), ("2147483647", (2147483647, 1, 1)),
         ("dim3(1, 65536)", (1, 65536, 1)), ("65535", (65535, 1, 1)), ("N / 256", (256, 1, 1))]
GRID_W = [20, 8, 6, 6, 4, 4, 4, 1, 1, 1, 2, 3]
BLOCKS = [("128", (128, 1, 1)), ("256", (256, 1, 1)), ("BLOCK", (128, 1, 1)),
          ("dim3(16, 16)", (16, 16, 1)), ("1024", (1024, 1, 1)), ("32", (32, 1, 1)),
          ("2048", (2048, 1, 1)), ("dim3(32, 32, 2)", (32, 32, 2)), ("0", (0, 1, 1)),
          ("kBlock", (256, 1, 1)), ("threads", (256, 1, 1)), ("96", (96, 1, 1))]
BLOCK_W = [16, 16, 6, 3, 3, 4, 1, 1, 1, 4, 4, 2]
STREAMS = ["0", "s1", "s2", "stream", "cudaStreamPerThread", "nullptr"]
BETWEEN = [
    "CUDA_CHECK(cudaGetLastError());", "cudaDeviceSynchronize();",
    "if (cudaPeekAtLastError() != cudaSuccess)\n    return;", 'std::printf("step\\n");',
    "cudaMemcpy(host, fa0, 64 * sizeof(float), cudaMemcpyDeviceToHost);",
    "std::swap(fa1, fa2);", "n += 1;", "cudaEventRecord(ev, s1);",
    "cudaMemsetAsync(ua0, 0, 16, s2);", "CUDA_CHECK(cudaStreamSynchronize(s1));",
    "fa2 = fa1;", "helper(fa0);",
    "cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);",
]
BETWEEN_W = [10, 4, 3, 3, 2, 1, 1, 2, 1, 2, 1, 1, 1]


class Program:
    """One generated host program: its files and the launches it holds."""

    def __init__(self):
        self.launches = []  # (ncu name, grid, block) per launch statement
        self.counter = 0


def gen_args(rnd, k, omit_default):
    out = []
    for p in k.params:
        if p[0] == "buf":
            b = rnd.choice(BUFFERS[p[1]])
            out.append(b + (" + 64" if rnd.random() < 0.08 else ""))
        elif p[0] == "int?":
            if not omit_default:
                out.append(rnd.choice(["n", "512"]))
        elif p[0] == "int":
            out.append(rnd.choice(["n", "N", "4096", "count", "n / 2"]))
        elif p[0] == "float":
            out.append(rnd.choice(["1.5f", "alpha", "0.0f"]))
        elif p[0] == "double":
            out.append(rnd.choice(["2.0", "beta"]))
        else:
            out.append("0")
    return out


def gen_launch(rnd, prog, kernels, simple):
    """Lines of one launch statement (maybe wrapped in host control flow)."""
    k = rnd.choice(kernels)
    gi = rnd.choices(range(len(GRIDS)), GRID_W)[0]
    bi = rnd.choices(range(len(BLOCKS)), BLOCK_W)[0]
    if k.kind == "reduce" and rnd.random() < 0.7:
        bi = 1
    if k.kind == "twod" and rnd.random() < 0.7:
        bi = 3
    grid, gv = GRIDS[gi]
    block, bv = BLOCKS[bi]
    omit = rnd.random() < 0.5
    args = gen_args(rnd, k, omit)
    prog.counter += 1
    c = prog.counter
    prog.launches.append((k.ncu, gv, bv))
    forms = ["chevron", "chevron", "chevron", "stream", "macro", "launchkernel", "launchex",
             "loop", "branch", "lambda", "switch", "twomacro", "braceless", "checked"]
    weights = [10, 4, 4, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1]
    if simple:
        forms, weights = forms[:5], weights[:5]
    form = rnd.choices(forms, weights)[0]
    call = "%s<<<%s, %s>>>(%s);" % (k.spell, grid, block, ", ".join(args))
    if form == "stream":
        sh = rnd.choice(["0", "128", "shared_bytes", "sizeof(float) * 256"])
        call = "%s<<<%s, %s, %s, %s>>>(%s);" % (k.spell, grid, block, sh, rnd.choice(STREAMS),
                                                ", ".join(args))
        return [call]
    if form == "macro":
        return ["LAUNCH(%s, %s, %s, %s);" % (k.spell, grid, block, ", ".join(args))]
    if form == "launchkernel":
        fn = k.spell
        if k.kind == "ovl":
            t = k.params[0][1]
            fn = "static_cast<void (*)(%s *, int)>(%s)" % (t, k.spell)
        names = []
        lines = []
        for j, a in enumerate(args):
            v = "a%d_%d" % (c, j)
            kind = k.params[j][0]
            typ = k.params[j][1] + " *" if kind == "buf" else ("int" if kind == "int?" else kind)
            lines.append("%s %s = %s;" % (typ, v, a))
            names.append("&" + v)
        if k.kind == "dflt" and omit:
            lines.append("int a%d_d = 512;" % c)
            names.append("&a%d_d" % c)
        lines.append("void *args%d[] = {%s};" % (c, ", ".join(names)))
        lines.append("CUDA_CHECK(cudaLaunchKernel((const void *)%s, dim3(%s), dim3(%s), args%d, 0, "
                     "%s));" % (fn, grid, block, c, rnd.choice(STREAMS)))
        return lines
    if form == "launchex":
        if k.kind == "dflt" and omit:
            args.append("512")
        fn = k.spell
        if k.kind == "ovl":
            fn = "static_cast<void (*)(%s *, int)>(%s)" % (k.params[0][1], k.spell)
        return ["cudaLaunchConfig_t cfg%d = {};" % c, "cfg%d.gridDim = dim3(%s);" % (c, grid),
                "cfg%d.blockDim = dim3(%s);" % (c, block),
                "cfg%d.stream = %s;" % (c, rnd.choice(STREAMS)),
                "CUDA_CHECK(cudaLaunchKernelEx(&cfg%d, %s, %s));" % (c, fn, ", ".join(args))]
    if form == "loop":
        return ["for (int r%d = 0; r%d < %d; ++r%d) {" % (c, c, rnd.choice([1, 2, 4, 100]), c),
                "  " + call, "}"]
    if form == "branch":
        other = gen_launch(rnd, prog, kernels, True)
        return ["if (flag) {", "  " + call, "} else {"] + ["  " + l for l in other] + ["}"]
    if form == "lambda":
        return ["auto go%d = [&]() { %s };" % (c, call), "go%d();" % c]
    if form == "switch":
        return ["switch (mode) {", "case 0:", "  " + call, "  break;", "default:", "  break;", "}"]
    if form == "twomacro":
        other = gen_launch(rnd, prog, kernels, True)
        if len(other) != 1:
            return [call] + other
        return ["#define TWO_%d() do { %s %s } while (0)" % (c, call, other[0]), "TWO_%d();" % c]
    if form == "braceless":
        return ["if (flag)", "  " + call]
    if form == "checked":
        return ["CUDA_CHECK((%s, cudaGetLastError()));" % call[:-1]]
    return [call]


def gen_program(rnd, count, kernels, kernel_text, split, simple_only=False):
    """{file: text} of a program of about count launch statements, and Program."""
    prog = Program()
    cg = any(k.kind == "gridsync" for k in kernels)
    head = ["#include <cuda_runtime.h>", "#include <cstdio>", "#include <utility>"]
    if cg:
        head.append("#include <cooperative_groups.h>")
    defs = [
        "#define CUDA_CHECK(call)                                   \\",
        "  do {                                                     \\",
        "    cudaError_t e_ = (call);                               \\",
        "    if (e_ != cudaSuccess) {                               \\",
        '      std::printf("%s\\n", cudaGetErrorString(e_));        \\',
        "      return;                                              \\",
        "    }                                                      \\",
        "  } while (0)",
        "#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)",
        "#define GRID 64", "#define BLOCK 128",
        "static const int kGrid = 32;", "static const int kBlock = 256;",
        "const int N = 1 << 16;", ""]
    files = {}
    if split:
        files["kernels.cuh"] = "#pragma once\n" + "\n".join(head) + "\n\n" + kernel_text
        body = ['#include "kernels.cuh"'] + defs
    else:
        body = head + [""] + [kernel_text] + defs
    body += ["void helper(float *p);", ""]
    body += ["void run(float *px, unsigned *pu, int n, bool flag, int mode, cudaStream_t stream,",
             "         float alpha, double beta) {",
             "  cudaStream_t s1, s2;", "  cudaStreamCreate(&s1);", "  cudaStreamCreate(&s2);",
             "  cudaEvent_t ev;", "  cudaEventCreate(&ev);",
             "  float host[64];", "  int count = n * 2;", "  int blocks = (n + 127) / 128;",
             "  int threads = 256;", "  size_t shared_bytes = 1024;"]
    for t, names in sorted(BUFFERS.items()):
        for b in names:
            if not b.startswith("p"):
                body += ["  %s *%s;" % (t, b), "  cudaMalloc(&%s, N * sizeof(%s));" % (b, t)]
    simple = simple_only or count > 300
    for _ in range(count):
        if not simple and rnd.random() < 0.3:
            w = rnd.choices(BETWEEN, BETWEEN_W)[0]
            if "%s" in w:
                named = [k for k in kernels if k.kind != "ovl"]
                w = w % rnd.choice(named).spell if named else "CUDA_CHECK(cudaGetLastError());"
            body += ["  " + l for l in w.split("\n")]
        for l in gen_launch(rnd, prog, kernels, simple):
            body.append(l if l.startswith("#") else "  " + l)
    body += ["  (void)host;", "  (void)ev;", "}", ""]
    files["app.cu"] = "\n".join(body)
    if split and rnd.random() < 0.5:
        second = ['#include "kernels.cuh"'] + defs + [
            "void second(float *px, unsigned *pu, int n, bool flag, int mode, cudaStream_t stream,",
            "            float alpha, double beta) {", "  float host[64];", "  int count = n;",
            "  int blocks = 8;", "  int threads = 128;", "  size_t shared_bytes = 0;",
            "  cudaStream_t s1 = stream, s2 = stream;", "  cudaEvent_t ev = nullptr;"]
        for t, names in sorted(BUFFERS.items()):
            for b in names:
                if not b.startswith("p"):
                    second += ["  %s *%s;" % (t, b),
                               "  cudaMalloc(&%s, 4096 * sizeof(%s));" % (b, t)]
        for _ in range(rnd.randint(1, 6)):
            for l in gen_launch(rnd, prog, kernels, True):
                second.append("  " + l)
        second += ["  (void)host;", "  (void)ev;", "  (void)s1;", "  (void)s2;", "}", ""]
        files["second.cu"] = "\n".join(second)
    return files, prog


# --------------------------------------------------------------------------
# Nsight Compute profiles.

METRICS = {"duration": "gpu__time_duration.sum",
           "memory": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
           "sm": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
           "registers": "launch__registers_per_thread"}
DETAIL = {"duration": ("GPU Speed Of Light Throughput", "Duration"),
          "memory": ("GPU Speed Of Light Throughput", "Memory Throughput"),
          "sm": ("GPU Speed Of Light Throughput", "Compute (SM) Throughput"),
          "registers": ("Launch Statistics", "Registers Per Thread")}
DETAIL_HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                 "Stream", "Block Size", "Grid Size", "Device", "CC", "Section Name",
                 "Metric Name", "Metric Unit", "Metric Value", "Rule Name", "Rule Type",
                 "Rule Description", "Estimated Speedup Type", "Estimated Speedup"]


def dims(t):
    return "(%d, %d, %d)" % t


def grouped(v):
    return "{:,}".format(v)


def measure(rnd, launch):
    """Plausible measurements of one launch."""
    return {"duration": rnd.randint(2000, 500000), "memory": round(rnd.uniform(1, 95), 2),
            "sm": round(rnd.uniform(1, 95), 2), "registers": rnd.choice([16, 24, 32, 40, 64, 128])}


def make_profile(rnd, launches, page):
    """(rows as lists of fields, index of the header row, page) for launches."""
    def fix(t, lim):
        return tuple(max(1, min(v, l)) for v, l in zip(t, lim))
    rows = []
    if page == "raw":
        keys = sorted(METRICS, key=lambda k: METRICS[k])
        header = ["ID", "Kernel Name", "Block Size", "Grid Size"] + [METRICS[k] for k in keys]
        unit_of = {"duration": rnd.choice(["ns", "usecond", "msecond"]), "memory": "%", "sm": "%",
                   "registers": "register/thread"}
        rows.append(header)
        rows.append(["", "", "", ""] + [unit_of[k] for k in keys])
        for i, (name, g, b) in enumerate(launches):
            m = measure(rnd, (name, g, b))
            vals = []
            for k in keys:
                v = m[k]
                if k == "duration":
                    v = {"ns": grouped(v), "usecond": "%.2f" % (v / 1e3),
                         "msecond": "%.5f" % (v / 1e6)}[unit_of[k]]
                vals.append(str(v))
            rows.append([str(i), name, dims(fix(b, (1024, 1024, 64))),
                         dims(fix(g, (2147483647, 65535, 65535)))] + vals)
        return rows, 0
    pre = [["==PROF== Connected to process 4242 (/tmp/app)"], ["app: running"]]
    rows = pre + [list(DETAIL_HEADER)]
    for i, (name, g, b) in enumerate(launches):
        m = measure(rnd, (name, g, b))
        for k in ("memory", "duration", "sm", "registers"):
            sec, met = DETAIL[k]
            unit = {"duration": "ns", "memory": "%", "sm": "%", "registers": "register/thread"}[k]
            v = grouped(m[k]) if k == "duration" else str(m[k])
            rows.append([str(i), "4242", "app", "127.0.0.1", name, "1", "7",
                         dims(fix(b, (1024, 1024, 64))), dims(fix(g, (2147483647, 65535, 65535))),
                         "0", "9.0", sec, met, unit, v, "", "", "", "", ""])
    rows.append(["==PROF== Disconnected from process 4242"])
    return rows, len(pre)


def render_csv(rows, header_at, details):
    out = []
    for i, r in enumerate(rows):
        if len(r) == 1 and r[0].startswith(("==PROF==", "app:")):
            out.append(r[0])
            continue
        quoted = ['"%s"' % f.replace('"', '""') for f in r]
        if details and i > header_at:
            # ncu ends a metric row with a comma, its rule fields left empty.
            while r and quoted and quoted[-1] == '""':
                quoted.pop()
            out.append(",".join(quoted) + ",")
        else:
            out.append(",".join(quoted))
    return "\n".join(out) + "\n"


# Values for a field, each marked when no GPU measures it (a profile holding
# one is promised to be refused at its line, never read).
FIELD_VALUES = {
    "duration": [("99999999999999999999999", True), ("1e308", True), ("-5", True), ("nan", True),
                 ("inf", True), ("-inf", True), ("", True), ("0", False), ("1e-30", False),
                 ("0x1A", True), ("1,2,3", True), ("12abc", True), (" 12 ", False),
                 ("1.5e3", False), ("-0", False), ("9" * 400, True), ("１２", True)],
    "memory": [("250", True), ("-1", True), ("nan", True), ("", True), ("100", False),
               ("0", False), ("1e999", True), ("inf", True), ("50%", True), ("4.2e1", False)],
    "sm": [("250", True), ("-1", True), ("nan", True), ("", True), ("100", False), ("0", False),
           ("1e999", True), ("-inf", True)],
    "registers": [("256", True), ("-1", True), ("1.5", True), ("4294967296", True), ("", True),
                  ("0", False), ("255", False), ("nan", True), ("18446744073709551617", True)],
    "block": [("(2048, 1, 1)", True), ("(1024, 2, 1)", True), ("(0, 1, 1)", True),
              ("(32, 32, 65)", True), ("(1, 1)", True), ("()", True), ("(-1, 1, 1)", True),
              ("(32,1,1)", False), ("32", True), ("(1024, 1, 1)", False), ("(4, 4, 64)", False),
              ("(18446744073709551616, 1, 1)", True), ("(4294967297, 1, 1)", True),
              ("(1, 1, 1, 1)", True), ("", True)],
    "grid": [("(2147483648, 1, 1)", True), ("(1, 65536, 1)", True), ("(1, 1, 65536)", True),
             ("(0, 1, 1)", True), ("(2147483647, 65535, 65535)", False),
             ("(99999999999999999999999, 1, 1)", True), ("(4294967296, 1, 1)", True),
             ("(18446744073709551615, 18446744073709551615, 18446744073709551615)", True),
             ("(2147483647, 1, 1)", False), ("", True), ("(a, b, c)", True)],
    "name": [("", False), ("unknown_kernel(int)", False),
             ("void gen::nope<float>(float *, float, int)", False),
             ("x" * 100000, False), ('a"b(int)', False), ("ｋｅｒｎｅｌ(int)", False),
             ("(", False), ("operator()(int)", False),
             ("void (anonymous namespace)::k(int)", False)],
    "unit": [("msecond", False), ("second", False), ("usecond", False), ("furlong", True),
             ("", True), ("ms", False), ("%", True), ("nsecond", False)],
    "id": [("-1", False), ("abc", False), ("", False), ("0", False),
           ("99999999999999999999", False)],
}


def column_kind(name):
    for k, m in METRICS.items():
        if name == m:
            return k
    return {"Block Size": "block", "Grid Size": "grid", "Kernel Name": "name", "ID": "id"}.get(name)


def mutate_profile(rnd, rows, header_at, details):
    """Mutates rows in place, or asks for a text-level mutation: (what,
    whether it put in a value no GPU measures, "text" or None)."""
    try:
        return mutate_profile_rows(rnd, rows, header_at, details)
    except (ValueError, IndexError):  # an earlier mutation took the column away
        return "text", False, "text"


def mutate_profile_rows(rnd, rows, header_at, details):
    header = rows[header_at]
    data = [i for i in range(header_at + 1, len(rows)) if len(rows[i]) > 1 and
            not (not details and i == header_at + 1)]
    what = rnd.choice(["field"] * 10 + ["delete column", "extra column",
                       "duplicate column", "swap headers", "no units", "duplicate rows",
                       "many rows", "no rows", "shuffle", "header twice", "metric name",
                       "drop metric row", "text"])
    if what == "field" and data:
        i = rnd.choice(data)
        if details:
            kinds = {"Block Size": "block", "Grid Size": "grid", "Kernel Name": "name", "ID": "id"}
            col = rnd.choice(["Block Size", "Grid Size", "Kernel Name", "ID", "Metric Value",
                              "Metric Value", "Metric Unit"])
            j = header.index(col)
            if col == "Metric Value":
                met = rows[i][header.index("Metric Name")]
                kind = {v[1]: k for k, v in DETAIL.items()}.get(met, "memory")
            elif col == "Metric Unit":
                kind = "unit"
            else:
                kind = kinds[col]
        else:
            j = rnd.randrange(len(header))
            kind = column_kind(header[j]) or "id"
            if rnd.random() < 0.2:
                kind, j = "unit", header.index(METRICS["duration"])
                i = header_at + 1
        value, invalid = rnd.choice(FIELD_VALUES[kind])
        if j < len(rows[i]):
            rows[i][j] = value
        return "%s '%s' on line %d" % (kind, value[:40], i + 1), invalid, None
    if what == "delete column":
        j = rnd.randrange(len(header))
        name = header[j]
        for r in rows[header_at:]:
            if len(r) > j and (len(r) > 1):
                del r[j]
        return "column '%s' deleted" % name, False, None
    if what in ("extra column", "duplicate column"):
        name = rnd.choice(header) if what == "duplicate column" else rnd.choice(
            ["Extra", "gpu__time_duration.avg", "Duration", "", "Kernel Name2"])
        for k, r in enumerate(rows[header_at:]):
            if len(r) > 1:
                r.insert(rnd.randrange(len(r) + 1) if k == 0 else len(r),
                         name if k == 0 else rnd.choice(["1", "", "x", "1,000"]))
        return "%s '%s'" % (what, name), False, None
    if what == "swap headers":
        a, b = rnd.sample(range(len(header)), 2)
        header[a], header[b] = header[b], header[a]
        return "headers %s and %s swapped" % (header[b], header[a]), False, None
    if what == "no units" and not details:
        del rows[header_at + 1]
        return what, False, None
    if what == "duplicate rows" and data:
        i = rnd.choice(data)
        k = rnd.choice([1, 2, 10])
        rows[i + 1:i + 1] = [list(rows[i]) for _ in range(k)]
        return "line %d duplicated %d times" % (i + 1, k), False, None
    if what == "many rows" and data:
        k = rnd.choice([1000, 20000])
        src = [list(rows[i]) for i in data]
        for n in range(k):
            r = list(src[n % len(src)])
            if not details:
                r[0] = str(len(src) + n)
            rows.append(r)
        return "%d rows more" % k, False, None
    if what == "no rows":
        del rows[header_at + (1 if details else 2):]
        return what, False, None
    if what == "shuffle" and data:
        part = [rows[i] for i in data]
        rnd.shuffle(part)
        for i, r in zip(data, part):
            rows[i] = r
        return what, False, None
    if what == "header twice":
        rows.insert(rnd.randint(header_at + 1, len(rows)), list(header))
        return what, False, None
    if what == "metric name" and details and data:
        i = rnd.choice(data)
        j = header.index("Metric Name")
        rows[i][j] = rnd.choice(["Duration", "Memory Throughput", "Registers Per Thread",
                                 "Duration2", "", "DRAM Throughput", "Compute (SM) Throughput"])
        return "metric name on line %d now '%s'" % (i + 1, rows[i][j]), False, None
    if what == "drop metric row" and data:
        i = rnd.choice(data)
        del rows[i]
        return "line %d deleted" % (i + 1), False, None
    return "text", False, "text"


def mutate_text(rnd, data):
    """A text-level mutation of bytes: (what, bytes)."""
    what = rnd.choice(["truncate", "junk", "nul", "long line", "quote", "crlf", "bom", "empty",
                       "newline in field", "invalid utf-8", "only header", "tabs", "spaces"])
    if what == "truncate":
        return what, data[:rnd.randrange(len(data) + 1)]
    if what == "junk":
        j = rnd.randrange(len(data) + 1)
        junk = bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 16, 1024])))
        return what, data[:j] + junk + data[j:]
    if what == "nul":
        j = rnd.randrange(len(data) + 1)
        return what, data[:j] + b"\0" * rnd.choice([1, 3]) + data[j:]
    if what == "long line":
        j = data.rfind(b"\n", 0, max(1, len(data) - 1)) + 1
        return what, data[:j] + b'"' + b"7" * rnd.choice([70000, 2000000]) + b'",' + data[j:]
    if what == "quote":
        j = rnd.randrange(len(data) + 1)
        return what, data[:j] + b'"' + data[j:]
    if what == "crlf":
        return what, data.replace(b"\n", b"\r\n")
    if what == "bom":
        return what, b"\xef\xbb\xbf" + data
    if what == "empty":
        return what, b""
    if what == "newline in field":
        j = data.find(b'","', rnd.randrange(len(data) + 1))
        return what, data if j < 0 else data[:j] + b"\n" + data[j:]
    if what == "invalid utf-8":
        j = rnd.randrange(len(data) + 1)
        return what, data[:j] + b"\xc3\x28\xff\xfe" + data[j:]
    if what == "only header":
        return what, data.split(b"\n")[0] + b"\n"
    if what == "tabs":
        return what, data.replace(b",", b"\t")
    return what, data.replace(b",", b", ")


# --------------------------------------------------------------------------
# Tuning results.

class Raw(str):
    """A JSON token written as it is (1e999, NaN, a broken string)."""


class Pairs(list):
    """A JSON object as (key, value) pairs: keys may repeat."""


def dump(v):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, Pairs):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


RESULT_KERNELS = {
    "ew": ("__global__ void %s(float *x, int n) {\n"
           "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;"
           " i += gridDim.x * blockDim.x)\n"
           "    x[i] = x[i] * 0.5f + 1.0f;\n}\n", [("float", "buf"), ("int", "n")], True),
    "hash": ("__global__ void %s(unsigned *v, int n) {\n"
             "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;"
             " i += gridDim.x * blockDim.x)\n"
             "    v[i] = v[i] * 2654435761u + 7u;\n}\n", [("uint32", "buf"), ("int", "n")], True),
    "tile": ("__global__ void %s(const float *in, float *out, int n) {\n"
             "  __shared__ float t[256];\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  t[threadIdx.x] = i < n ? in[i] : 0.0f;\n  __syncthreads();\n"
             "  if (i < n)\n    out[i] = t[threadIdx.x] + t[(threadIdx.x + 1) %% blockDim.x];\n}\n",
             [("float", "buf"), ("float", "out"), ("int", "n")], False),
}


def gen_tuning(rnd):
    """{file: text} of kernels and a config, and the results object measured of it."""
    count = rnd.randint(2, 4)
    kinds = [rnd.choice(sorted(RESULT_KERNELS)) for _ in range(count)]
    src, entries, info = [], [], {}
    for i, kind in enumerate(kinds):
        text, params, resizable = RESULT_KERNELS[kind]
        kname = "k%d_%s" % (i, kind)
        src.append(text % kname)
        block = 256 if kind == "tile" else rnd.choice([64, 128, 256, 512])
        args = []
        for typ, role in params:
            if role == "n":
                args.append("{value: 65536}")
            elif role == "out":
                args.append("{buffer: %s, count: 65536, fill: zero}" % typ)
            else:
                args.append("{buffer: %s, count: 65536}" % typ)
        name = "e%d" % i
        info[name] = (block, resizable)
        entries.append("  - {name: %s, file: k.cu, kernel: %s, block: [%d]%s, "
                       "launch: {grid: [%d], args: [%s]}}"
                       % (name, kname, block, ", any_block_size: true" if resizable else "",
                          rnd.choice([16, 64, 256]), ", ".join(args)))
    names = sorted(info)
    fusions = []
    for f in range(rnd.randint(1, 3)):
        members = rnd.sample(names, rnd.randint(2, min(3, len(names))))
        if sum(info[m][0] for m in members) > 1024:
            members = members[:2]
        fusions.append(("f%d" % f, members))
    config = "kernels:\n" + "\n".join(entries) + "\nfusions:\n" + "\n".join(
        "  - {name: %s, kernels: [%s]}" % (n, ", ".join(m)) for n, m in fusions) + "\n"
    res = {"device": rnd.choice(["NVIDIA H100 80GB HBM3", "NVIDIA H200"]), "sm": "90",
           "driver_api": 13000, "runtime": 13000, "seed": 7, "fusions": []}
    for name, members in fusions:
        cands = []
        base = rnd.uniform(0.05, 2.0)
        for kind, label in (("sequential", "native sequential"), ("streams", "native streams"),
                            ("graph", "native graph")):
            if rnd.random() < 0.8:
                t = base * rnd.uniform(0.9, 1.1)
                c = {"name": label, "kind": kind, "valid": True, "mismatches": 0}
                cands.append(timed(c, t, rnd))
        splits = [[info[m][0] for m in members]]
        total = sum(splits[0])
        if all(info[m][1] for m in members) and len(members) == 2 and total >= 128:
            splits.append([32 * ((total // 32) // 2), total - 32 * ((total // 32) // 2)])
            splits.append([32, total - 32])
        for s in splits:
            for grid, suffix, waves in (("as-launched", "", 1), ("persistent", "-p", 1),
                                        ("persistent", "-p2", 2), ("dynamic", "-d", 1)):
                if rnd.random() < 0.5 and suffix:
                    continue
                for rb in (False, True):
                    c = {"name": "h" + "-".join(map(str, s)) + suffix + ("-rb" if rb else ""),
                         "kind": "horizontal", "valid": rnd.random() < 0.9, "mismatches": 0,
                         "threads": list(s), "block_threads": sum(s), "register_bound": rb,
                         "min_blocks_per_sm": 2 if rb else 0, "grid": grid, "waves": waves,
                         "registers": rnd.choice([24, 32, 40, 64]), "spill_bytes": 0,
                         "static_shared_bytes": 1024, "blocks_per_sm": 2, "blocks_per_sm_model": 2}
                    if grid == "as-launched" and rb and rnd.random() < 0.3:
                        c["name"] += "-wr"
                        c["warpgroup_registers"] = [rnd.choice([24, 32, 64, 128]) for _ in s]
                        c["entry_registers"] = 64
                    cands.append(timed(c, base * rnd.uniform(0.5, 1.2), rnd))
        if sum(info[m][0] for m in members) <= 1024 and rnd.random() < 0.5:
            cands.append(timed({"name": "vertical", "kind": "vertical", "valid": True,
                                "mismatches": 0,
                                "threads": [info[m][0] for m in members],
                                "block_threads": max(info[m][0] for m in members),
                                "register_bound": False, "min_blocks_per_sm": 0, "registers": 30,
                                "spill_bytes": 0, "static_shared_bytes": 0, "blocks_per_sm": 4,
                                "blocks_per_sm_model": 4}, base * rnd.uniform(0.8, 1.3), rnd))
        for i, m in enumerate(members):
            cands.append(timed({"name": m + " alone", "kind": "alone", "kernel": i, "valid": True,
                                "mismatches": 0}, base / 2, rnd))
        f = {"fusion": name, "compile_seconds": round(rnd.uniform(1, 9), 2), "samples": 20,
             "candidates": cands}
        if rnd.random() < 0.7:
            f["native"] = [{"kernel": m, "registers": 20, "spill_bytes": 0,
                            "static_shared_bytes": 0,
                            "block_threads": info[m][0], "blocks_per_sm": 4} for m in members]
        res["fusions"].append(f)
    if rnd.random() < 0.2:
        res["gpus"] = ["0", "1"]
        for f in res["fusions"]:
            f["gpu"] = rnd.choice(["0", "1"])
    if rnd.random() < 0.3:
        res["schema_version"] = 1
    return {"k.cu": "\n".join(src), "config.yaml": config}, res, [n for n, _ in fusions]


def timed(c, t, rnd):
    t = round(t, 4)
    spread = round(t * rnd.uniform(0.001, 0.05), 5)
    c.update({"median_ms": t, "p25_ms": round(t - spread, 5), "p75_ms": round(t + spread, 5),
              "ms": [t] * rnd.choice([1, 3])})
    return c


EDGE = [Raw("1e999"), Raw("-1e999"), Raw("NaN"), Raw("Infinity"), Raw("-0"), 2 ** 63, 2 ** 64,
        -1, -0.0, 0, 1.5, 10 ** 30, "", "x", "\u2603 h32-32", "\u202eevil", Raw('"\\ud800"'),
        Raw('"\\u0000"'), True, False, None, [], {}, "1e999", 4294967296, 1e-320, 1024, 1025, 33,
        31, 2 ** 31, -2 ** 63, Raw("1e-999"), Raw("00"), Raw("+1"), Raw(".5"), Raw("0x10"),
        "native sequential", "horizontal", "persistent", Raw('"\\uD83D\\uDE00"')]


def paths(v, here=()):
    """Every path to a value in v (containers included)."""
    out = [here]
    if isinstance(v, Pairs):
        return out
    if isinstance(v, dict):
        for k in v:
            out += paths(v[k], here + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths(x, here + (i,))
    return out


def get(v, p):
    for k in p:
        v = v[k]
    return v


def put(v, p, x):
    get(v, p[:-1])[p[-1]] = x


def nest(depth, leaf):
    return Raw("[" * depth + dump(leaf) + "]" * depth)


def mutate_results(rnd, res, fusions, state):
    """Mutates res in place: what it did, and "text" to ask for a mutation
    of the text as well. One huge array per file at most (state says)."""
    for _ in range(5):
        try:
            return mutate_results_tree(rnd, res, fusions, state)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError):
            continue  # an earlier mutation changed what this one works on
    return "text", "text"


def mutate_results_tree(rnd, res, fusions, state):
    what = rnd.choice(["leaf", "leaf", "leaf", "leaf", "container", "delete key", "unknown key",
                       "duplicate key", "duplicate fusion", "rename fusion"] +
                      ["extra fusion"] * 3 + [
                       "threads", "threads",
                       "kind", "alone kernel", "deep", "huge array", "grid", "warpgroups",
                       "no candidates", "times", "times", "unicode", "schema", "gpus",
                       "same name", "text"])
    all_paths = [p for p in paths(res) if p]
    cands = [("fusions", i, "candidates", j) for i, f in enumerate(res["fusions"])
             for j in range(len(f.get("candidates", [])))]
    if what == "leaf":
        p = rnd.choice(all_paths)
        x = copy.deepcopy(rnd.choice(EDGE))
        put(res, p, x)
        return "%s = %s" % (pathname(p), dump(x)[:60]), None
    if what == "container":
        p = rnd.choice([q for q in all_paths if isinstance(get(res, q), (dict, list))] or all_paths)
        v = get(res, p)
        x = list(v.values()) if isinstance(v, dict) else ({str(i): y for i, y in enumerate(v)}
                                                         if isinstance(v, list) else [v])
        put(res, p, x)
        return "%s: container type changed" % pathname(p), None
    if what in ("delete key", "unknown key", "duplicate key"):
        objs = [q for q in paths(res) if isinstance(get(res, q), dict) and get(res, q)]
        p = rnd.choice(objs)
        o = get(res, p)
        k = rnd.choice(sorted(o))
        if what == "delete key":
            del o[k]
            return "%s.%s deleted" % (pathname(p), k), None
        if what == "duplicate key" and not p:
            return "top-level key twice", "duplicate top"
        if what == "unknown key":
            o[rnd.choice(["frobnicate", "Median_ms", "median_ms ", "\u00e9t\u00e9", ""])] = \
                copy.deepcopy(rnd.choice(EDGE))
            return "%s: unknown key" % pathname(p), None
        pairs = Pairs(o.items())
        pairs.insert(rnd.randrange(len(pairs) + 1), (k, copy.deepcopy(rnd.choice(EDGE))))
        put(res, p, pairs)
        return "%s: key %s twice" % (pathname(p), k), None
    if what == "duplicate fusion" and res["fusions"]:
        f = rnd.choice(res["fusions"])
        res["fusions"].insert(rnd.randrange(len(res["fusions"]) + 1), json.loads(json.dumps(f)))
        return "fusion %s twice" % f.get("fusion"), None
    if what == "rename fusion" and res["fusions"]:
        f = rnd.choice(res["fusions"])
        f["fusion"] = rnd.choice(ODD_FUSION_NAMES + [fusions[0]])
        return "fusion renamed %r" % f["fusion"], None
    if what == "extra fusion" and res["fusions"]:
        # Measurements of a fusion the config does not have, beside those it has.
        f = json.loads(json.dumps(rnd.choice(res["fusions"])))
        f["fusion"] = rnd.choice(ODD_FUSION_NAMES)
        res["fusions"].append(f)
        return "extra fusion %r" % f["fusion"], None
    if what == "threads" and cands:
        c = get(res, rnd.choice(cands))
        t = c.get("threads", [256, 256])
        if not isinstance(t, list) or isinstance(t, Pairs) or not t:
            t = [256, 256]
        x = rnd.choice([t + [32], t[:-1], [t[0] + 32] + t[1:], [0] + t[1:], [-32] + t[1:],
                        [2048] + t[1:], [32] * 1000, [31, 33], [1e3] + t[1:], ["32"] + t[1:],
                        [Raw("1e999")], [], [1] * len(t), [1024] * len(t), [16] + t[1:]])
        c["threads"] = x
        return "%s threads %s" % (c.get("name"), dump(x)[:60]), None
    if what == "kind" and cands:
        c = get(res, rnd.choice(cands))
        c["kind"] = rnd.choice(["frobnicate", "Horizontal", "", 7, "alone", "vertical", "graph",
                                "horizontal", None])
        return "%s kind %r" % (c.get("name"), c["kind"]), None
    if what == "alone kernel" and cands:
        c = get(res, rnd.choice(cands))
        c["kind"] = "alone"
        c["kernel"] = rnd.choice([99, -1, "a", 1.5, 2 ** 40, 3, 2, None])
        return "%s alone kernel %r" % (c.get("name"), c["kernel"]), None
    if what == "deep":
        p = rnd.choice(all_paths)
        d = rnd.choice([100, 254, 255, 256, 257, 1000, 100000])
        put(res, p, nest(d, rnd.choice([1, [], {}, "x"])))
        return "%s nested %d deep" % (pathname(p), d), None
    if what == "huge array" and not state.get("huge"):
        state["huge"] = True
        k = rnd.choice(["ms", "candidates", "fusions", "threads", "gpus"])
        if k == "ms" and cands:
            get(res, rnd.choice(cands))["ms"] = [0.1] * 300000
        elif k == "candidates" and cands:
            f = rnd.choice(res["fusions"])
            f["candidates"] = f["candidates"] * rnd.choice([200, 3000])
        elif k == "fusions":
            res["fusions"] += [{"fusion": "x%d" % i, "candidates": []} for i in range(20000)]
        elif k == "threads" and cands:
            get(res, rnd.choice(cands))["threads"] = [32] * 200000
        else:
            res["gpus"] = [str(i) for i in range(50000)]
        return "huge %s" % k, None
    if what == "grid" and cands:
        c = get(res, rnd.choice(cands))
        c["grid"] = rnd.choice(["diagonal", "persistent", "dynamic", "proportional",
                                "as-launched", ""])
        c["waves"] = rnd.choice([0, 1, 2, 1000, -1, 2 ** 40, 1.5])
        return "%s grid %s waves %s" % (c.get("name"), c["grid"], c["waves"]), None
    if what == "warpgroups" and cands:
        c = get(res, rnd.choice(cands))
        c["warpgroup_registers"] = rnd.choice([[24, 256], [23], [264], [], [8] * 10, [32] * 100000,
                                               [-8], [Raw("1e999")], [32, 32, 32, 32, 32]])
        c["entry_registers"] = rnd.choice([64, 0, -1, 300, 2 ** 33])
        return "%s warpgroup registers" % c.get("name"), None
    if what == "no candidates" and res["fusions"]:
        f = rnd.choice(res["fusions"])
        how = rnd.choice(["empty", "none valid", "natives only", "no natives", "missing"])
        if how == "empty":
            f["candidates"] = []
        elif how == "missing":
            f.pop("candidates", None)
        elif how == "none valid":
            for c in f.get("candidates", []):
                c["valid"] = False
        elif how == "natives only":
            f["candidates"] = [c for c in f.get("candidates", []) if c.get("kind") in
                               ("sequential", "streams", "graph")]
        else:
            f["candidates"] = [c for c in f.get("candidates", []) if c.get("kind") not in
                               ("sequential", "streams", "graph")]
        return "fusion %s: %s" % (f.get("fusion"), how), None
    if what == "times" and cands:
        how = rnd.choice(["all zero", "native zero", "p25 > p75", "tiny", "huge", "ties",
                          "negative p25",
                          "quartiles missing", "denormal"])
        for q in rnd.sample(cands, max(1, len(cands) // rnd.choice([1, 3]))):
            c = get(res, q)
            native = c.get("kind") in ("sequential", "streams", "graph")
            if how == "all zero" or (how == "native zero" and native):
                c.update({"median_ms": 0, "p25_ms": 0, "p75_ms": 0, "ms": [0]})
            elif how == "p25 > p75":
                c["p25_ms"], c["p75_ms"] = c.get("p75_ms", 1), c.get("p25_ms", 0)
            elif how == "tiny":
                c.update({"median_ms": 1e-300, "p25_ms": 1e-300, "p75_ms": 2e-300})
            elif how == "huge":
                c.update({"median_ms": 1e300, "p25_ms": 1e300, "p75_ms": 1.7e308})
            elif how == "ties":
                c.update({"median_ms": 0.1, "p25_ms": 0.1, "p75_ms": 0.1})
            elif how == "negative p25":
                c["p25_ms"] = -0.1
            elif how == "quartiles missing":
                c.pop("p25_ms", None)
                c.pop("p75_ms", None)
            else:
                c.update({"median_ms": 5e-324, "p25_ms": 0, "p75_ms": 1e-323})
        return "times: %s" % how, None
    if what == "unicode":
        p = rnd.choice([q for q in all_paths if isinstance(get(res, q), str)] or [("device",)])
        x = rnd.choice(["\U0001F600 GPU", "\u05d0\u05d1\u202e", "e\u0301" * 1000, "\ufeff",
                        "\u2603" + "\u00e9" * 100000, "a\tb\nc", "</svg><script>", "| a | b |",
                        "\u0000", "\x7f\x1b[31m"])
        put(res, p, x)
        return "%s unicode" % pathname(p), None
    if what == "schema":
        res["schema_version"] = rnd.choice([1, 2, 0, -1, "1", 1.0, Raw("1.0"), Raw("1e0"), None,
                                            [1],
                                            Raw("1e999"), 2 ** 64])
        return "schema_version %s" % dump(res["schema_version"]), None
    if what == "gpus":
        res["gpus"] = rnd.choice([[], ["0"], ["0", "0"], [0, 1], "0,1", [None], ["\u2603"]])
        for f in res["fusions"]:
            if rnd.random() < 0.5:
                f["gpu"] = rnd.choice(["7", "", 0, None, "0"])
        return "gpus %s" % dump(res["gpus"]), None
    if what == "same name" and len(cands) > 1:
        a, b = rnd.sample(cands, 2)
        get(res, b)["name"] = get(res, a).get("name")
        return "two candidates named %s" % get(res, a).get("name"), None
    return "text", "text"


ODD_FUSION_NAMES = ["nosuch", "", "F0", "f0 ", "\u2603", "f0\u0000", "sub/dir/f", "..", ".",
                    "/tmp/kfuse-fuzz-abs", "a:b", "-o", "x" * 300, "tuning-report"] + \
    ["../escaped"] * 4  # a chart is named by its fusion


def pathname(p):
    return "results" + "".join("[%d]" % k if isinstance(k, int) else "." + str(k) for k in p)


def mutate_json_text(rnd, data):
    what = rnd.choice(["truncate", "bom", "trailing garbage", "comment", "trailing comma",
                       "single quotes", "junk", "invalid utf-8", "long string", "crlf", "blank",
                       "empty", "null", "array", "nul byte"])
    if what == "truncate":
        return what, data[:rnd.randrange(len(data) + 1)]
    if what == "bom":
        return what, b"\xef\xbb\xbf" + data
    if what == "trailing garbage":
        return what, data + rnd.choice([b"x", b"}", b" {}", b"\0"])
    if what == "comment":
        return what, b"// measured\n" + data
    if what == "trailing comma":
        j = data.rfind(b"]")
        return what, data[:j] + b", " + data[j:]
    if what == "single quotes":
        return what, data.replace(b'"', b"'", rnd.choice([1, 4, -1]))
    if what == "junk":
        j = rnd.randrange(len(data) + 1)
        junk = bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 64])))
        return what, data[:j] + junk + data[j:]
    if what == "invalid utf-8":
        j = data.find(b'"device": "') + 11
        return what, data[:j] + b"\xc3\x28\xff" + data[j:]
    if what == "long string":
        j = data.find(b'"device": "') + 11
        return what, data[:j] + b"G" * rnd.choice([100000, 5000000]) + data[j:]
    if what == "crlf":
        return what, data.replace(b", ", b",\r\n")
    if what == "blank":
        return what, b" \n\t\n"
    if what == "empty":
        return what, b""
    if what == "null":
        return what, b"null"
    if what == "array":
        return what, b"[" + data + b"]"
    j = rnd.randrange(len(data) + 1)
    return what, data[:j] + b"\0" + data[j:]


# --------------------------------------------------------------------------
# Running kfuse and judging what it did.

def write(files, root):
    for name, data in files.items():
        p = os.path.join(root, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        with open(p, "wb") as f:
            f.write(data)


def snapshot(root):
    files, dirs = {}, set()
    for d, sub, names in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs.add(rel)
        for n in names:
            p = os.path.join(d, n)
            if os.path.islink(p):
                files[os.path.relpath(p, root)] = "link:" + os.readlink(p)
                continue
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            files[os.path.relpath(p, root)] = h.hexdigest()
    return files, dirs


def run(cmd, cwd, timeout, env):
    start = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        return p.returncode, out, err, time.time() - start
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err = (e.stderr or b"").decode("utf-8", "replace")
        return None, out, err, time.time() - start


class Case:
    def __init__(self, column, files, argv, outputs=(), allowed=(), timeout=HANG_SECONDS,
                 what="", invalid=False, validate=None, clang=(), olds=()):
        self.column, self.files, self.argv = column, files, list(argv)
        self.inputs = set(files) - set(olds)  # the old outputs put in place are no inputs
        self.outputs, self.allowed = list(outputs), list(allowed)
        self.timeout, self.what, self.invalid = timeout, what, invalid
        self.validate, self.clang = validate, list(clang)


def under(rel, prefixes):
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in prefixes)


def judge(kfuse, case, work, tmp):
    """(outcome, is_finding, notes, text, seconds)."""
    env = dict(os.environ, TMPDIR=tmp)
    before, dirs_before = snapshot(work)
    rc, out, err, secs = run([kfuse] + case.argv, work, case.timeout, env)
    text = err + ("\n--- stdout ---\n" + out if out.strip() else "")
    notes = []
    if secs > SLOW_SECONDS:
        notes.append("slow: %.0f s" % secs)
    if rc is None:
        return "hang (over %d s)" % case.timeout, True, notes, text, secs
    if rc < 0 or SANITIZER.search(text) or LLVM_CRASH.search(text):
        sig = "signal %d" % -rc if rc < 0 else "sanitizer/LLVM crash report"
        return "crash (%s)" % sig, True, notes, text, secs
    after, dirs_after = snapshot(work)
    leftovers = sorted(p for p in after if ".tmp-" in os.path.basename(p))
    stray_tmp = sorted(os.listdir(tmp))
    if stray_tmp:
        notes.append("left in TMPDIR: %s" % ", ".join(stray_tmp[:5]))
    changed = sorted(p for p in before if p in after and after[p] != before[p])
    gone = sorted(p for p in before if p not in after)
    new = sorted(p for p in after if p not in before)
    outs = case.outputs + case.allowed
    inputs_changed = [p for p in changed + gone if p in case.inputs or not under(p, outs)]
    if leftovers:
        return "temp file left behind", True, notes, text + "\nleft: %s" % leftovers, secs
    if inputs_changed:
        text += "\nchanged: %s" % inputs_changed
        return "input modified or removed", True, notes, text, secs
    if rc in (1, 2):
        if rc == 1 and not DIAG.search(text):
            return "exit 1 without a [kfuse-...] error", True, notes, text, secs
        # The command-line library names the program as it was started.
        usage = re.compile(r"^(kfuse|%s): " % re.escape(os.path.basename(kfuse)), re.M)
        if rc == 2 and not usage.search(err) and not DIAG.search(text):
            return "exit 2 without a 'kfuse: ...' line", True, notes, text, secs
        if new:
            return "output written by a failed run", True, notes, text + "\nnew: %s" % new, secs
        if changed or gone:
            text += "\nchanged: %s" % (changed + gone)
            return "output changed by a failed run", True, notes, text, secs
        newdirs = sorted(dirs_after - dirs_before)
        if newdirs:
            notes.append("a failed run created directories: %s" % ", ".join(newdirs))
        if rc == 2:
            return "usage error (exit 2)", False, notes, text, secs
        m = DIAG.search(text)
        if case.column == "profile" and m.group(1).startswith("kfuse-profile") and \
                not LOCATED.search(text):
            notes.append("profile error without a line: " + m.group(0)[:160])
        return "refused: " + m.group(1), False, notes, text, secs
    if rc != 0:
        return "unexpected exit %d" % rc, True, notes, text, secs
    stray = [p for p in new if not under(p, outs)]
    if stray:
        return "wrote a file it was not asked for", True, notes, text + "\nnew: %s" % stray, secs
    if re.search(r"^(\S+: )?error: ", text, re.M):
        return "exit 0 after an error: line", True, notes, text, secs
    for o in case.outputs:
        if o not in after:
            stale = " (the old file stays)" if o in before else ""
            outcome = "exit 0 without the output %s%s" % (os.path.basename(o), stale)
            return outcome, True, notes, text, secs
        if o in before and after[o] == before[o]:
            return "exit 0, output left as it was", True, notes, text, secs
        data = open(os.path.join(work, o), "rb").read()
        if not data or not data.endswith(b"\n"):
            return "output empty or cut short", True, notes, text, secs
        if o.endswith(".cu") and (data.count(b"{") != data.count(b"}")):
            notes.append("%s: braces unbalanced" % o)
    for p in new + changed:
        if under(p, case.allowed) and p.endswith((".md", ".yaml", ".svg")):
            body = open(os.path.join(work, p), "rb").read().decode("utf-8", "replace")
            bad = NONFINITE.search(body)
            if bad:
                notes.append("%s holds '%s'" % (os.path.basename(p), bad.group(0)))
    if case.invalid:
        notes.append("accepted a value no GPU measures: " + case.what)
    return "accepted", False, notes, text, secs


def validate_suggest(kfuse, case, work, tmp):
    """A suggested config must be one kfuse check reads and accepts."""
    cfg = next((o for o in case.outputs if o.endswith(".yaml")), None)
    if not cfg:
        return None, ""
    text = open(os.path.join(work, cfg), encoding="utf-8", errors="replace").read()
    names = re.findall(r"^  - \{name: ([^,]+), kernels:", text, re.M)
    argv = ["check", cfg]
    if len(names) > 20:
        argv += ["--fusion", names[0] + "," + names[-1]]
    if case.clang:
        argv += ["--"] + case.clang
    before, _ = snapshot(work)
    rc, out, err, secs = run([kfuse] + argv, work, 300, dict(os.environ, TMPDIR=tmp))
    after, _ = snapshot(work)
    msg = "kfuse " + " ".join(argv) + "\n" + err + out
    if rc is None:
        return "suggested config: check hangs", msg
    if rc < 0:
        return "suggested config: check crashes", msg
    if before != after:
        return "suggested config: check wrote or changed files", msg
    if rc != 0:
        m = DIAG.search(err)
        why = ": " + m.group(1) if m else " (exit %d)" % rc
        return "suggested config refused by check" + why, msg
    return None, ""


# --------------------------------------------------------------------------
# The three surfaces.

def case_suggest(rnd):
    r = rnd.random()
    if r < 0.04:
        count = rnd.randint(1000, 3000)
    elif r < 0.12:
        count = rnd.randint(100, 999)
    elif r < 0.2:
        count = 1
    else:
        count = rnd.randint(2, 30)
    text, kernels = make_kernels(rnd, rnd.randint(1, 6))
    files, prog = gen_program(rnd, count, kernels, text, split=rnd.random() < 0.3)
    sources = ["app.cu"] + (["second.cu"] if "second.cu" in files else [])
    argv = ["suggest"]
    named = list(sources)
    if rnd.random() < 0.2:
        files["sub/.keep"] = ""
        named.append(rnd.choice(["./app.cu", "sub/../app.cu", "app.cu", "ABS/app.cu"]))
    if rnd.random() < 0.05 and "kernels.cuh" in files:
        named.append("kernels.cuh")
    rnd.shuffle(named)
    argv += named
    outputs, what = [], ["%d launch statements" % count]
    o = None
    if rnd.random() < 0.75:
        o = rnd.choice(["sug.yaml"] * 16 +
                       ["out/sug.yaml", "nodir/sug.yaml", "app.cu", "kernels.cuh", "."])
        if o == "out/sug.yaml":
            files["out/.keep"] = ""
        argv += ["-o", o]
        outputs.append(o)
    if rnd.random() < 0.4:
        md = rnd.choice(["sug.md"] * 8 + [o or "sug.md", "nodir/sug.md", "second.cu"])
        argv += ["--markdown", md]
        if md not in outputs:
            outputs.append(md)
    olds = []
    for out in outputs:
        if out not in files and rnd.random() < 0.2 and not out.startswith("nodir") and out != ".":
            files[out] = "old\n"
            olds.append(out)
    if rnd.random() < 0.2 and prog.launches:
        rows, h = make_profile(rnd, prog.launches, rnd.choice(["raw", "details"]))
        files["prof.csv"] = render_csv(rows, h, h > 0)
        argv += ["--profile", "prof.csv"]
        what.append("with a profile")
    if rnd.random() < 0.1:
        argv.append("--quiet")
    clang = []
    if rnd.random() < 0.1:
        clang = ["-DKFUSE_FUZZ=1"]
        argv += ["--"] + clang
    timeout = HANG_SECONDS if len(prog.launches) < 2000 else 600
    return Case("suggest", files, argv, outputs=outputs, timeout=timeout, what="; ".join(what),
                validate=validate_suggest if any(x.endswith(".yaml") for x in outputs) else None,
                clang=clang, olds=olds)


def case_profile(rnd):
    text, kernels = make_kernels(rnd, rnd.randint(1, 4),
                                 kinds=["ew", "copy", "hash", "tmpl", "ovl", "twod"])
    files, prog = gen_program(rnd, rnd.randint(2, 6), kernels, text, split=False, simple_only=True)
    page = rnd.choice(["raw", "details"])
    rows, h = make_profile(rnd, prog.launches, page)
    whats, invalid, textual = [], False, False
    for _ in range(rnd.choice([1, 1, 1, 2, 3])):
        w, inv, t = mutate_profile(rnd, rows, h, page == "details")
        if t:
            textual = True
        else:
            whats.append(w)
            invalid = invalid or inv
    data = render_csv(rows, h, page == "details").encode("utf-8")
    if textual or rnd.random() < 0.1:
        w, data = mutate_text(rnd, data)
        whats.append(w)
        invalid = False  # a text mutation may have cut the invalid value out
    files["prof.csv"] = data
    argv = ["suggest", "app.cu", "--profile", "prof.csv"]
    outputs, olds = [], []
    if rnd.random() < 0.6:
        argv += ["-o", "sug.yaml"]
        outputs.append("sug.yaml")
        if rnd.random() < 0.2:
            files["sug.yaml"] = "old\n"
            olds.append("sug.yaml")
    if rnd.random() < 0.4:
        argv += ["--markdown", "sug.md"]
        outputs.append("sug.md")
    return Case("profile", files, argv, outputs=outputs,
                what="%s page: %s" % (page, "; ".join(whats)),
                invalid=invalid, olds=olds,
                validate=validate_suggest if outputs and outputs[0].endswith(".yaml") else None)


def case_results(rnd, index):
    files, res, fusions = gen_tuning(rnd)
    whats, textual, top, state = [], False, False, {}
    if rnd.random() < 0.05:
        whats.append("unmutated")
    else:
        for _ in range(rnd.choice([1, 1, 1, 2, 3])):
            w, t = mutate_results(rnd, res, fusions, state)
            textual = textual or t == "text"
            top = top or t == "duplicate top"
            if t != "text":
                whats.append(w)
    if top and isinstance(res, dict) and res:
        pairs = Pairs(res.items())
        k = rnd.choice(sorted(res))
        pairs.insert(rnd.randrange(len(pairs) + 1), (k, copy.deepcopy(rnd.choice(EDGE + [[]]))))
        whats.append("key %s twice at the top" % k)
        data = dump(pairs)
    else:
        data = dump(res)
    data = data.encode("utf-8", "surrogatepass")
    if textual:
        w, data = mutate_json_text(rnd, data)
        whats.append(w)
    files["r.json"] = data
    command = ["tune", "fuse", "check"][index % 3]
    argv = [command, "config.yaml"]
    outputs, allowed = [], []
    if rnd.random() < 0.15:
        argv += ["--fusion", rnd.choice(fusions + ["nosuch", fusions[0] + ",nosuch"])]
    if command == "tune":
        argv += ["--results", "r.json", "-o", "out/tuned.cu"]
        outputs.append("out/tuned.cu")
        allowed.append("out")
        if rnd.random() < 0.2:
            argv += ["--report", "rep"]
            allowed.append("rep")
        column = "tune --results"
    elif command == "fuse":
        files["out/.keep"] = ""
        argv += ["--tuning", "r.json", "-o", "out/fused.cu"]
        outputs.append("out/fused.cu")
        column = "fuse --tuning"
    else:
        argv += ["--tuning", "r.json"]
        column = "check --tuning"
    olds = []
    for o in outputs:
        if rnd.random() < 0.2:
            files[o] = "old\n"
            olds.append(o)
    return Case(column, files, argv, outputs=outputs, allowed=allowed, what="; ".join(whats),
                olds=olds)


# --------------------------------------------------------------------------

FINDING_KEEP = 4  # inputs kept per kind of finding


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kfuse", default=os.path.join(ROOT, "build", "bin", "kfuse"))
    ap.add_argument("--cases", type=int, default=100, help="cases per surface")
    ap.add_argument("--seconds", type=float, default=1800, help="stop after this long")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--surfaces", default=",".join(SURFACES),
                    help="comma-separated subset of: " + ", ".join(SURFACES))
    ap.add_argument("--keep", default=None, help="directory for the inputs of each finding")
    ap.add_argument("--work", default=None, help="where cases run (default: a temporary directory)")
    ap.add_argument("--first", type=int, default=0, help="index of the first case of each surface")
    ap.add_argument("--verbose", action="store_true", help="print every case's outcome")
    a = ap.parse_args()
    kfuse = os.path.abspath(a.kfuse)
    surfaces = [s for s in a.surfaces.split(",") if s]
    for s in surfaces:
        if s not in SURFACES:
            ap.error("unknown surface '%s'" % s)
    base = a.work or tempfile.mkdtemp(prefix="kfuse-surfaces-")
    os.makedirs(base, exist_ok=True)
    counts = collections.Counter()
    notes = collections.Counter()
    note_examples = {}
    kept = collections.Counter()
    findings, tried, start = 0, collections.Counter(), time.time()
    for n in range(a.first * len(surfaces), (a.first + a.cases) * len(surfaces)):
        if time.time() - start > a.seconds:
            break
        surface = surfaces[n % len(surfaces)]
        index = n // len(surfaces)
        rnd = random.Random("%d:%s:%d" % (a.seed, surface, index))
        if surface == "suggest":
            case = case_suggest(rnd)
        elif surface == "profile":
            case = case_profile(rnd)
        else:
            case = case_results(rnd, index)
        root = os.path.join(base, "case-%s-%d" % (surface, index))
        shutil.rmtree(root, ignore_errors=True)
        work, tmp = os.path.join(root, "w"), os.path.join(root, "tmp")
        os.makedirs(work)
        os.makedirs(tmp)
        case.argv = [x.replace("ABS/", work + "/") for x in case.argv]
        write(case.files, work)
        outcome, finding, case_notes, text, secs = judge(kfuse, case, work, tmp)
        extra = ""
        if outcome == "accepted" and case.validate:
            vstart = time.time()
            bad, extra = case.validate(kfuse, case, work, tmp)
            secs = "%.1f+%.1f" % (secs, time.time() - vstart)
            if bad:
                outcome, finding = bad, True
        tried[case.column] += 1
        counts[(outcome, case.column)] += 1
        for note in case_notes:
            key = (re.sub(r"[:(].*", "", note), case.column)
            notes[key] += 1
            note_examples.setdefault(key, []).append(
                "%s-%d: %s [%s]" % (surface, index, note, case.what[:100]))
        cmd = "kfuse " + " ".join(case.argv)
        if a.verbose:
            print("%s-%d %ss %s | %s | %s" % (surface, index, secs if isinstance(secs, str) else
                                              "%.1f" % secs, outcome, case.what[:100], cmd[:120]))
            for note in case_notes:
                print("  note: " + note[:300])
            sys.stdout.flush()
        if finding:
            findings += 1
            print("finding %s-%d: %s (%s)\n  %s" %
                  (surface, index, outcome, case.what[:200], cmd[:300]))
            print("\n".join("  | " + l for l in (text + extra).splitlines()[:12]))
            sys.stdout.flush()
            key = (outcome, case.column)
            if a.keep and kept[key] < FINDING_KEEP:
                kept[key] += 1
                dest = os.path.join(a.keep, "%s-%d" % (surface, index))
                shutil.rmtree(dest, ignore_errors=True)
                write(case.files, os.path.join(dest, "inputs"))
                shutil.copytree(work, os.path.join(dest, "after"), symlinks=True)
                with open(os.path.join(dest, "RUN"), "w", encoding="utf-8") as f:
                    f.write("cd inputs && %s\n# %s\n# outcome: %s\n%s\n%s\n" %
                            (cmd.replace(work + "/", ""), case.what, outcome, text[:20000],
                             extra[:20000]))
        shutil.rmtree(root, ignore_errors=True)
    if not a.work:
        shutil.rmtree(base, ignore_errors=True)
    cols = [c for c in COLUMNS if tried[c]]
    print("\nkfuse surface fuzz: seed %d, %s cases in %.0f s" %
          (a.seed, ", ".join("%s %d" % (c, tried[c]) for c in cols), time.time() - start))
    if notes:
        print("\nnotes (within the contract, worth a look):")
        for (note, col), c in sorted(notes.items(), key=lambda kv: (-kv[1], kv[0])):
            print("  %-58s %-15s %5d   e.g. %s" %
                  (note[:58], col, c, note_examples[(note, col)][0][:150]))
    print()
    width = max([len(o) for o, _ in counts] + [20])
    print(("%-" + str(width) + "s") % "outcome" + "".join(" %15s" % c for c in cols))
    for outcome in sorted({o for o, _ in counts},
                          key=lambda o: (-sum(counts[(o, c)] for c in cols), o)):
        print(("%-" + str(width) + "s") % outcome[:width] +
              "".join(" %15d" % counts[(outcome, c)] for c in cols))
    print("findings (crashes, hangs, broken promises): %d" % findings)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
