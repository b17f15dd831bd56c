# lit configuration of kfuse's tests. Each test holds its inputs (split with
# split-file), its RUN lines and its expected output.
import os
import lit.formats

config.name = "kfuse"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".cu", ".yaml"]
config.excludes = ["Inputs", "unit", "gpu", "package", "lit.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.join(config.kfuse_source_dir, "test")
config.test_exec_root = os.path.join(config.kfuse_binary_dir, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["HOME"] = os.environ.get("HOME", "/tmp")

# `lit -Dkfuse=PATH` runs the suite against another build, such as the one
# before a fix, to see a new test fail there.
kfuse = lit_config.params.get("kfuse", os.path.join(config.kfuse_binary_dir, "bin", "kfuse"))
# A CUDA toolkit: nvcc compiles what kfuse emits, and its headers are what
# kfuse parses kernels against. Tests that compile or run what kfuse emits
# say `REQUIRES: nvcc`. Tests that only parse and analyse say
# `REQUIRES: cuda-headers`: they run against the toolkit, or, without one
# (or with `lit -Dcuda=stand-in`), against test/Inputs/cuda-stand-in, which
# kfuse parses with the CUDA headers Clang ships; their expectations are the
# same under both.
have_nvcc = bool(config.nvcc) and os.path.isfile(config.nvcc) and os.access(config.nvcc, os.X_OK)
stand_in = lit_config.params.get("cuda", "toolkit" if have_nvcc else "stand-in") == "stand-in"
config.available_features.add("cuda-headers")
if stand_in:
    config.environment["CUDA_PATH"] = os.path.join(config.kfuse_source_dir, "test", "Inputs",
                                                   "cuda-stand-in")
    lit_config.note("parsing against the CUDA stand-in: tests that need nvcc are unsupported")
else:
    config.available_features.add("nvcc")
config.substitutions.append(("%kfuse", kfuse))
# The fault injector (test/faults/faults.c), built with the tests: preloaded
# by the tests of what kfuse leaves behind when writing goes wrong.
if os.path.isfile(config.faults):
    config.available_features.add("faults")
else:
    lit_config.note("no fault injector at %s: the tests that preload it are unsupported" %
                    config.faults)
config.substitutions.append(("%faults", config.faults))
config.substitutions.append(("%stand-in-driver", config.stand_in_driver))
# Every emitted file is compiled for Hopper in the test that emits it, and
# linked beside the objects of the original sources (position-independent,
# into a shared library, so no main is needed) to catch symbols defined
# twice or never; %nvcc-link comes first so %nvcc does not match inside it.
config.substitutions.append(("%nvcc-link", config.nvcc + " -arch=sm_90 -shared -Xlinker -z,defs -o"))
# What kfuse emits must compile for nvcc's host pass and for every device
# architecture a build may target (CUDA 13 dropped sm_70; sm_75 is the oldest).
config.substitutions.append(("%nvcc-gencode", config.nvcc + " -Xcompiler -fPIC -c" + "".join(
    " -gencode arch=compute_%s,code=sm_%s" % (a, a) for a in ("75", "80", "90", "90a"))))
config.substitutions.append(("%nvcc", config.nvcc + " -arch=sm_90 -Xcompiler -fPIC -c"))
# CMake configures the CUDA projects whose compile commands kfuse reads.
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%cudacxx", config.nvcc))
config.substitutions.append(("%examples", os.path.join(config.kfuse_source_dir, "examples")))
config.substitutions.append(("%configs", os.path.join(config.kfuse_source_dir, "configs")))
config.substitutions.append(("%scripts", os.path.join(config.kfuse_source_dir, "scripts")))
