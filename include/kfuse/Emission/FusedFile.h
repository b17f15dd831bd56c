//===- FusedFile.h - what kfuse writes, before it is printed ----*- C++ -*-===//
//
// The transforms fill these structures; the printer only prints them.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_EMISSION_FUSEDFILE_H
#define KFUSE_EMISSION_FUSEDFILE_H

#include "kfuse/Plan/PartitionPlan.h"

#include <array>
#include <string>
#include <vector>

namespace kfuse {

struct FusedParam {
  std::string Declaration; ///< "const float *scale_in", as the user spelled the type.
  std::string Name;        ///< "scale_in"
};

/// One original kernel's part of a horizontally fused kernel.
struct FusedSection {
  std::string KernelId;   ///< The config entry.
  std::string KernelName; ///< The original function.
  std::string Origin;     ///< "file:line" of the original definition.
  ThreadRange Range;
  std::array<unsigned, 3> Block{1, 1, 1}; ///< The block shape this part runs as.
  std::array<unsigned, 3> OriginalBlock{1, 1, 1};
  bool Resizable = false;
  bool UsesDynamicShared = false;
  std::vector<FusedParam> Params;
  std::string LaunchName;    ///< The launcher's kfuse_launch parameter for this kernel.
  std::string ThreadIdxName; ///< Empty when the body never reads threadIdx.
  std::string BlockDimName;  ///< Empty when the body never reads blockDim.
  std::string EndLabel;      ///< Empty when the body never returns early.
  std::string Body;          ///< The rewritten body, braces included.
};

struct FusedKernel {
  std::string Fusion;
  std::string KernelName;
  std::string LauncherName;
  unsigned BlockThreads = 0;
  std::vector<FusedSection> Sections;
};

/// Declarations of an input file that the fused kernels may need.
struct Preamble {
  std::string Origin;
  std::string Text;
};

struct FusedFile {
  std::string Generator; ///< "kfuse 0.1.0"
  std::string Config;    ///< The config, as named on the command line.
  std::vector<Preamble> Preambles;
  std::vector<FusedKernel> Kernels;
};

/// The emitted source. Generated code is formatted; the preambles are kept
/// as the user wrote them.
std::string printFusedFile(const FusedFile &File);

} // namespace kfuse

#endif
