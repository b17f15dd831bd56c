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

/// Whether \p Id refuses a fusion or a launch rewrite (KFUSE_REFUSAL).
constexpr bool isRefusal(ID Id) {
  switch (Id) {
#define KFUSE_DIAG(Name, Level, Id, Format)
#define KFUSE_REFUSAL(Name, Id, Format) case ID::Name:
#include "kfuse/Diagnostics/Diagnostics.def"
    return true;
  default:
    return false;
  }
}

/// The stable identifier \p Id prints as "[kfuse-...]"; empty for notes.
constexpr const char *stableId(ID Id) {
  switch (Id) {
#define KFUSE_DIAG(Name, Level, StableId, Format)                                                  \
  case ID::Name:                                                                                   \
    return StableId;
#include "kfuse/Diagnostics/Diagnostics.def"
  }
  return "";
}

/// Every id, in the table's order.
constexpr ID AllIds[] = {
#define KFUSE_DIAG(Name, Level, Id, Format) ID::Name,
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
