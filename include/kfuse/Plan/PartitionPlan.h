//===- PartitionPlan.h - how a fused block's threads are shared -*- C++ -*-===//
//
// The ranges of a fused block, laid out from the shares the thread-shares
// check accepts (kfuse/Analysis/ThreadShares.h). Free of Clang: the tuner
// enumerates plans too.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PLAN_PARTITIONPLAN_H
#define KFUSE_PLAN_PARTITIONPLAN_H

#include "kfuse/Analysis/Kernel/ThreadShares.h"
#include "kfuse/Config/Config.h"
#include "kfuse/Diagnostics/DiagnosticIds.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

struct PartitionPlan {
  std::vector<ThreadRange> Ranges; ///< One per member, in order.
  unsigned BlockThreads = 0;
  /// Block barriers the fused kernel uses: its highest id plus one (id 0,
  /// __syncthreads(), always counts). From Hopper on they limit occupancy.
  unsigned BarrierIds = 1;
};

/// What a planner gives: its plan, or the problems that stopped it.
template <typename T> struct Planned {
  std::optional<T> Plan;
  std::vector<diag::Problem> Problems;
};

using PartitionResult = Planned<PartitionPlan>;

/// The ranges of the shares shareThreads() gives \p Request, or the
/// problems it found.
PartitionResult planPartition(const PartitionRequest &Request);

} // namespace kfuse

#endif
