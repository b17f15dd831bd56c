//===- FusionLayout.h - a fused block's ranges and loops ---------*- C++ -*-===//
//
// From what each kernel of a fusion needs (its block, its barriers, whether
// it runs with any block size or grid) and the grid the fused kernel runs
// on: the request the partition planner splits, each member's thread range
// (the kernels of a vertical chain share their chain's), and, off the grid
// as launched, the loops over original blocks. Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PLAN_FUSIONLAYOUT_H
#define KFUSE_PLAN_FUSIONLAYOUT_H

#include "kfuse/Config/Config.h"
#include "kfuse/Plan/PartitionPlan.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// What the layout needs of one kernel of the fusion.
struct LayoutMember {
  unsigned BlockThreads = 0;
  bool AnyBlockSize = false; ///< Correct for any 1-D block size.
  bool AnyGrid = false;      ///< Correct for any 1-D grid.
  /// It waits on barriers: its own, or before it starts (a chain's flow).
  bool Synchronizes = false;
  std::vector<unsigned> ReservedBarrierIds; ///< Its own inline PTX uses them.
};

/// Kernels that share a range of threads: one kernel, or a vertical chain.
struct LayoutGroup {
  std::string Name;
  size_t First = 0, Count = 1; ///< Its members.
  bool Chain = false;
};

/// Threads of a persistent kernel that loop together over original blocks:
/// one kernel's range, a vertical chain's, or every thread of a vertical
/// fusion. An iteration runs one original block of each of its members.
/// A proportional grid has one per kernel or chain, all from thread 0, and
/// runs one of them per iteration.
struct BlockLoop {
  unsigned Begin = 0, Size = 0;
  /// Waited at between iterations; 0 with the whole block is __syncthreads().
  unsigned BarrierId = 0;
  size_t First = 0, Count = 0; ///< Its members.
  /// Iterations must not overlap: the members' barriers and shared memory
  /// (or the dynamic block counter) are reused by the next one.
  bool WaitBetween = false;
  /// No loop: its member runs once, on the fused grid.
  bool Once = false;
};

struct LayoutRequest {
  std::string Fusion;
  std::vector<LayoutMember> Members;
  std::vector<LayoutGroup> Groups;
  std::vector<unsigned> Partition; ///< Threads per group, or empty for the planner's split.
  std::optional<unsigned> Threads; ///< Fused block size to split, or none.
  GridMode Grid = GridMode::AsLaunched;
  bool Vertical = false;         ///< Every member from thread 0, one after the other.
  unsigned Line = 0, Column = 0; ///< Where problems point in the config.
};

struct FusionLayoutPlan {
  PartitionPlan Ranges;         ///< One range per member (not per group).
  std::vector<BlockLoop> Loops; ///< Empty on the grid as launched.
};

using LayoutResult = Planned<FusionLayoutPlan>;

/// Lays the fusion out, or says why its partition cannot be.
LayoutResult planLayout(const LayoutRequest &Request);

/// What the shares of \p Request's block depend on: one member per group
/// (a chain runs on one range), which the thread-shares check reads before
/// planLayout lays them out.
PartitionRequest partitionRequest(const LayoutRequest &Request);

} // namespace kfuse

#endif
