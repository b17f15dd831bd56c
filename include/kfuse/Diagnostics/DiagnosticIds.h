//===- DiagnosticIds.h - kfuse's table of messages --------------*- C++ -*-===//
//
// The ids of every diagnostic kfuse prints, generated from Diagnostics.def.
// Free of Clang so that Clang-free stages (config, planning) can name them.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_DIAGNOSTICS_DIAGNOSTICIDS_H
#define KFUSE_DIAGNOSTICS_DIAGNOSTICIDS_H

#include <string>
#include <vector>

namespace kfuse::diag {

enum class ID : unsigned {
#define KFUSE_DIAG(Name, Level, Id, Format) Name,
#include "kfuse/Diagnostics/Diagnostics.def"
};

/// A diagnostic found by a stage that has no Clang source location (the config
/// reader, the partition planner): where it is, in 1-based line and column of
/// the file being read (0 when unknown), and the arguments of its format.
struct Problem {
  ID Id;
  unsigned Line = 0;
  unsigned Column = 0;
  std::vector<std::string> Args;
};

} // namespace kfuse::diag

#endif
