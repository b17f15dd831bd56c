//===- CudaInstallation.h - the CUDA toolkit kfuse parses against -*- C++ -*-===//
#ifndef KFUSE_FRONTEND_CUDAINSTALLATION_H
#define KFUSE_FRONTEND_CUDAINSTALLATION_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kfuse {

/// A header that exists only in the parser's virtual file system.
struct ShimFile {
  const char *Name; ///< Inside the shim directory; static storage, as Clang keeps it.
  const char *Text;
};

struct CudaInstallation {
  std::string Path;
  unsigned Version = 0; ///< CUDA_VERSION, e.g. 13000 for 13.0.
  /// Not a toolkit but the headers kfuse's tests parse against without one
  /// (test/Inputs/cuda-stand-in; its cuda.h defines KFUSE_CUDA_STAND_IN):
  /// Clang reads its cuda_runtime.h instead of its CUDA wrapper.
  bool StandIn = false;

  std::string versionString() const;
  /// Clang arguments that let Clang 19 parse this toolkit's headers. CUDA 13
  /// moved thrust/cub/libcu++ to include/cccl and dropped
  /// texture_fetch_functions.h, which Clang's CUDA wrapper still includes;
  /// the wrapper never declares the surface functions nvcc's headers do.
  /// \p ShimDir must hold the files of shims().
  std::vector<std::string> clangArguments(const std::string &ShimDir) const;
  /// The headers clangArguments() expects in its shim directory.
  std::vector<ShimFile> shims() const;
};

/// Finds the toolkit at \p Path and reads its version from include/cuda.h.
llvm::Expected<CudaInstallation> detectCuda(const std::string &Path);

} // namespace kfuse

#endif
