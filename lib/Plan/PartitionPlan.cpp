//===- PartitionPlan.cpp - sharing a fused block between kernels ----------===//

#include "kfuse/Plan/PartitionPlan.h"

#include <algorithm>
#include <set>

namespace kfuse {
namespace {

/// Ranges side by side (or stacked from thread 0) and barrier ids, for
/// shares the thread-shares check accepted.
PartitionPlan layOut(const PartitionRequest &R, const std::vector<unsigned> &Sizes) {
  PartitionPlan Plan;
  std::vector<unsigned> ReservedIds = reservedBarrierIds(R);
  std::set<unsigned> Reserved(ReservedIds.begin(), ReservedIds.end());
  unsigned NextBarrier = 1;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    ThreadRange T;
    T.Begin = R.Stacked ? 0 : Plan.BlockThreads;
    T.Size = warpPadded(Sizes[I]);
    T.Active = Sizes[I];
    auto Allocate = [&] {
      while (Reserved.count(NextBarrier))
        ++NextBarrier;
      return NextBarrier++;
    };
    if (R.Members[I].UsesBarriers)
      T.BarrierId = Allocate();
    if (R.Members[I].LoopBarrier)
      T.LoopBarrierId = Allocate();
    Plan.BlockThreads =
        R.Stacked ? std::max(Plan.BlockThreads, T.Size) : Plan.BlockThreads + T.Size;
    Plan.Ranges.push_back(T);
  }
  Plan.BarrierIds = NextBarrier;
  if (!Reserved.empty())
    Plan.BarrierIds = std::max(Plan.BarrierIds, *Reserved.rbegin() + 1);
  return Plan;
}

} // namespace

PartitionResult planPartition(const PartitionRequest &Request) {
  SharedThreads Shares = shareThreads(Request);
  PartitionResult Result;
  if (Shares.Sizes)
    Result.Plan = layOut(Request, *Shares.Sizes);
  Result.Problems = std::move(Shares.Problems);
  return Result;
}

} // namespace kfuse
