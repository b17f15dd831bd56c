//===- FusionLayout.cpp - a fused block's ranges and loops ----------------===//

#include "kfuse/Plan/FusionLayout.h"

#include <algorithm>

namespace kfuse {
namespace {

bool persistent(GridMode Grid) { return Grid == GridMode::Persistent || Grid == GridMode::Dynamic; }

/// A kernel alone on its range that works with any 1-D grid needs no loop
/// over its blocks on a persistent grid: it runs once, on the fused grid.
bool runsOnFusedGrid(const LayoutRequest &R, const LayoutGroup &G) {
  return persistent(R.Grid) && !R.Vertical && G.Count == 1 && R.Members[G.First].AnyGrid;
}

} // namespace

PartitionRequest partitionRequest(const LayoutRequest &R) {
  PartitionRequest P;
  P.Fusion = R.Fusion;
  P.Partition = R.Partition;
  P.Threads = R.Threads;
  P.Line = R.Line;
  P.Column = R.Column;
  // Proportional grids run one kernel at a time per fused block, each on
  // the threads of its own block, and loop on __syncthreads().
  P.Stacked = stacksRanges(R.Grid);
  for (const LayoutGroup &G : R.Groups) {
    // A chain runs on one range: as many threads as its largest kernel.
    // A dynamic grid's range waits for the block its leader took; a chain's
    // loop waits on an id of its own, as its kernels' barriers may count
    // fewer threads.
    bool Looped =
        R.Grid != GridMode::AsLaunched && !R.Vertical && !P.Stacked && !runsOnFusedGrid(R, G);
    bool Waits = Looped && R.Grid == GridMode::Dynamic && G.Count == 1;
    PartitionMember M{G.Name, 0,  G.Count == 1 && R.Members[G.First].AnyBlockSize,
                      Waits,  {}, Looped && G.Count > 1};
    for (size_t J = G.First; J < G.First + G.Count; ++J) {
      const LayoutMember &K = R.Members[J];
      M.BlockThreads = std::max(M.BlockThreads, K.BlockThreads);
      M.UsesBarriers |= K.Synchronizes;
      M.ReservedBarrierIds.insert(M.ReservedBarrierIds.end(), K.ReservedBarrierIds.begin(),
                                  K.ReservedBarrierIds.end());
    }
    P.Members.push_back(std::move(M));
  }
  if (P.Stacked && P.Partition.empty())
    for (const PartitionMember &M : P.Members)
      P.Partition.push_back(M.BlockThreads);
  return P;
}

namespace {

/// One range per member: a chain's members share its range, each on the
/// threads of its own block; a vertical fusion runs every member from 0.
PartitionPlan perMember(const LayoutRequest &R, const PartitionPlan &Groups) {
  PartitionPlan Plan;
  Plan.BlockThreads = Groups.BlockThreads;
  Plan.BarrierIds = Groups.BarrierIds;
  for (size_t G = 0; G < R.Groups.size(); ++G)
    for (size_t J = R.Groups[G].First; J < R.Groups[G].First + R.Groups[G].Count; ++J) {
      ThreadRange Range = Groups.Ranges[G];
      if (R.Groups[G].Chain) {
        Range.Active = R.Members[J].BlockThreads;
        Range.Size = warpPadded(Range.Active);
      }
      Plan.Ranges.push_back(Range);
    }
  if (R.Vertical) {
    // The block is the largest kernel's, and each kernel keeps its barrier id.
    Plan.BlockThreads = 0;
    for (ThreadRange &Range : Plan.Ranges) {
      Range.Begin = 0;
      Plan.BlockThreads = std::max(Plan.BlockThreads, Range.Size);
    }
  }
  return Plan;
}

/// The loops of a persistent kernel: per group of kernels that share a
/// range, or one over the whole block when every kernel starts at thread 0.
std::vector<BlockLoop> blockLoops(const LayoutRequest &R, const PartitionPlan &Groups,
                                  const PartitionPlan &Laid) {
  bool Dynamic = R.Grid == GridMode::Dynamic;
  if (R.Vertical) {
    bool Barriers = std::any_of(Laid.Ranges.begin(), Laid.Ranges.end(),
                                [](const ThreadRange &T) { return T.BarrierId != 0; });
    return {{0, Laid.BlockThreads, 0, 0, Laid.Ranges.size(), Dynamic || Barriers}};
  }
  std::vector<BlockLoop> Loops;
  for (size_t G = 0; G < R.Groups.size(); ++G) {
    const ThreadRange &T = Groups.Ranges[G];
    // Proportional: one loop of the whole block, on __syncthreads(), which
    // runs one of these per iteration.
    if (stacksRanges(R.Grid)) {
      Loops.push_back({0, T.Size, 0, R.Groups[G].First, R.Groups[G].Count, true});
      continue;
    }
    unsigned Id = R.Groups[G].Count > 1 ? T.LoopBarrierId : T.BarrierId;
    bool Once = runsOnFusedGrid(R, R.Groups[G]);
    Loops.push_back({T.Begin, T.Size, Id, R.Groups[G].First, R.Groups[G].Count,
                     !Once && (Dynamic || T.BarrierId != 0), Once});
  }
  return Loops;
}

} // namespace

LayoutResult planLayout(const LayoutRequest &Request) {
  PartitionResult Groups = planPartition(partitionRequest(Request));
  LayoutResult Result;
  Result.Problems = std::move(Groups.Problems);
  if (!Groups.Plan)
    return Result;
  FusionLayoutPlan Plan;
  Plan.Ranges = perMember(Request, *Groups.Plan);
  if (Request.Grid != GridMode::AsLaunched)
    Plan.Loops = blockLoops(Request, *Groups.Plan, Plan.Ranges);
  Result.Plan = std::move(Plan);
  return Result;
}

} // namespace kfuse
