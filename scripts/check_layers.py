#!/usr/bin/env python3
"""Checks that each stage of kfuse imports only earlier stages.

The compiler is a library in stages, data flowing one way:
    Diagnostics -> Config -> Frontend -> Analysis -> Plan -> Tuning
    -> Transforms -> Emission -> Pipeline -> Driver
A file of lib/<Stage>/ or include/kfuse/<Stage>/ may include headers of its
own stage and of earlier ones; a library of a stage may link libraries of
those stages only (lib/CMakeLists.txt). Prints each back-edge as
file:line: error: ... and exits 1 when there is one.

Analysis has two sides: Analysis/Kernel/ reads kernels, Analysis/Host/ the
host code that launches them, and asks the kernel side what each kernel
uses; the kernel side never includes the host side.

usage: check_layers.py [SOURCE_ROOT]
"""
import pathlib
import re
import sys

STAGES = ["Diagnostics", "Config", "Frontend", "Analysis", "Plan", "Tuning",
          "Transforms", "Emission", "Pipeline", "Driver"]
# Libraries whose name is not their stage's.
LIBRARY_STAGE = {"kfuseInputFiles": "Diagnostics",
                 "kfuseIndexExpr": "Analysis",
                 "kfuseThreadShares": "Analysis",
                 "kfuseVerticalPlan": "Plan"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"kfuse/([A-Za-z]+)/(?:([A-Za-z]+)/)?')
# Within a stage, sides in order: a side includes only its own and earlier.
SIDES = {"Analysis": ["Kernel", "Host"]}
LINK = re.compile(r"target_link_libraries\(\s*(kfuse[A-Za-z]+)([^)]*)\)", re.S)


def stage_of_library(name):
    stage = LIBRARY_STAGE.get(name, name[len("kfuse"):])
    return stage if stage in STAGES else None


def include_problems(root):
    problems = []
    for top in (root / "lib", root / "include" / "kfuse"):
        for path in sorted(top.rglob("*")):
            if path.suffix not in (".h", ".cpp", ".cu", ".def") or not path.is_file():
                continue
            stage = path.relative_to(top).parts[0]
            if stage not in STAGES:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in STAGES and STAGES.index(m.group(1)) > STAGES.index(stage):
                    problems.append(f"{path}:{number}: error: {stage} includes "
                                    f"kfuse/{m.group(1)}/, a later stage")
                elif m and m.group(1) == stage and stage in SIDES:
                    problems += side_problems(path, number, stage, path.relative_to(top).parts[1:],
                                              m.group(2))
    return problems


def side_problems(path, number, stage, parts, included):
    """A side of \p stage that includes a later side's header."""
    sides = SIDES[stage]
    own = parts[0] if len(parts) > 1 and parts[0] in sides else None
    if own is None or included not in sides or sides.index(included) <= sides.index(own):
        return []
    return [f"{path}:{number}: error: {stage}/{own} includes kfuse/{stage}/{included}/, "
            f"a later side"]


def link_problems(root):
    cmake = root / "lib" / "CMakeLists.txt"
    if not cmake.is_file():
        return []
    text = cmake.read_text()
    problems = []
    for m in LINK.finditer(text):
        stage = stage_of_library(m.group(1))
        if stage is None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        for used in re.findall(r"kfuse[A-Za-z]+", m.group(2)):
            other = stage_of_library(used)
            if other and STAGES.index(other) > STAGES.index(stage):
                problems.append(f"{cmake}:{line}: error: {m.group(1)} ({stage}) links "
                                f"{used} ({other}), a later stage")
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems = include_problems(root) + link_problems(root)
    for p in problems:
        print(p)
    if not problems:
        print(f"kfuse: every stage imports only earlier ones ({' -> '.join(STAGES)})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
