#!/usr/bin/env python3
"""Prints kfuse's public headers: those `cmake --install` installs.

The public interface is what a tool built on kfuse's libraries includes: the
pipeline (one fusion or a whole config), the commands, the printer of the
fused file, the reporter, the typed fused layout and the legality registry.
Every header those include, transitively, is public too, so an installed
header never includes one that is not installed. The rest are internal to
the libraries and stay in the source tree.

usage: public_headers.py [--internal] [SOURCE_ROOT]
"""
import pathlib
import re
import sys

ENTRY = ["kfuse/Pipeline/Pipeline.h", "kfuse/Pipeline/FusionPipeline.h",
         "kfuse/Pipeline/Inputs.h", "kfuse/Driver/Commands.h",
         "kfuse/Emission/FusedFilePrinter.h", "kfuse/Diagnostics/Reporter.h",
         "kfuse/Plan/FusedLayout.h", "kfuse/Analysis/Legality.h"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(kfuse/[^"]+)"', re.M)


def closure(include_dir):
    seen, todo = set(), list(ENTRY)
    while todo:
        header = todo.pop()
        if header in seen:
            continue
        seen.add(header)
        path = include_dir / header
        if not path.is_file():
            # Version.h is generated from Version.h.in.
            path = include_dir / (header + ".in")
        if not path.is_file():
            sys.exit(f"public_headers.py: {header} is included but does not exist")
        todo.extend(INCLUDE.findall(path.read_text()))
    return seen


def main(argv):
    internal = "--internal" in argv
    args = [a for a in argv if a != "--internal"]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    include_dir = root / "include"
    public = closure(include_dir)
    every = {str(p.relative_to(include_dir)) for p in include_dir.rglob("*")
             if p.is_file() and p.suffix in (".h", ".def")}
    for header in sorted(every - public if internal else public):
        print(header)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
