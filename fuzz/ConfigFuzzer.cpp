//===- ConfigFuzzer.cpp - libFuzzer target for the config reader ----------===//
//
// Feeds arbitrary text to parseConfig and checks the reader's promises: it
// never crashes, every rejection says why at a line of the file, and every
// config it accepts is one kfuse can act on (CUDA's limits held, each fusion
// naming at least two defined kernels). A broken promise aborts, which
// libFuzzer records as a crash with the input that caused it.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Config/Config.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void broken(const char *Promise) {
  std::fprintf(stderr, "kfuse config fuzzer: broken promise: %s\n", Promise);
  std::abort();
}

void checkAccepted(const kfuse::Config &C) {
  if (C.Fusions.empty())
    broken("an accepted config has a fusion");
  for (const kfuse::KernelSpec &K : C.Kernels) {
    for (size_t D = 0; D < 3; ++D)
      if (K.Block[D] == 0 || K.Block[D] > kfuse::MaxBlockDims[D])
        broken("every block dimension is within CUDA's limit");
    if (K.blockThreads() > kfuse::MaxBlockThreads)
      broken("every block holds at most 1024 threads");
    if (K.Launch)
      for (size_t D = 0; D < 3; ++D)
        if (K.Launch->Grid[D] == 0 || K.Launch->Grid[D] > kfuse::MaxGridDims[D])
          broken("every launch grid dimension is within CUDA's limit");
  }
  for (const kfuse::FusionSpec &F : C.Fusions) {
    if (F.Kernels.size() < 2)
      broken("every fusion names at least two kernels");
    for (const std::string &Name : C.kernelsOf(F))
      if (!C.findKernel(Name))
        broken("every kernel a fusion runs is defined");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  kfuse::ConfigResult R = kfuse::parseConfig(Text, "fuzz/config.yaml");
  if (R.Value && !R.Problems.empty())
    broken("a config with problems is not accepted");
  if (!R.Value && R.Problems.empty())
    broken("a rejected config says why");
  for (const kfuse::diag::Problem &P : R.Problems)
    if (P.Line == 0)
      broken("every problem points at a line of the config");
  if (R.Value)
    checkAccepted(*R.Value);
  return 0;
}
