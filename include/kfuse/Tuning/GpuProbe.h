//===- GpuProbe.h - is there a GPU to tune on? -------------------*- C++ -*-===//
//
// `kfuse tune --run` compiles a harness for tens of seconds before it first
// touches the GPU; on a machine without one the CUDA runtime then blamed
// the "CUDA driver version". Asking the driver first says what is missing
// before anything is compiled.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_GPUPROBE_H
#define KFUSE_TUNING_GPUPROBE_H

#include <string>

namespace kfuse {

/// What the CUDA driver of this machine says of its GPUs.
struct GpuProbe {
  int Devices = 0; ///< GPUs the driver sees.
  std::string Why; ///< Why none can run kernels, when Devices is 0.
};

/// Loads the CUDA driver (\p Driver, a library name or path) and counts
/// its GPUs.
GpuProbe probeGpus(const char *Driver = "libcuda.so.1");

} // namespace kfuse

#endif
