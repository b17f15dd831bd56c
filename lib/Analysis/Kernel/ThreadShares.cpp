//===- ThreadShares.cpp - each kernel's share of a fused block ------------===//

#include "kfuse/Analysis/Kernel/ThreadShares.h"

#include <algorithm>
#include <set>

namespace kfuse {
namespace {

using diag::ID;

class Sharer {
public:
  explicit Sharer(const PartitionRequest &R) : R(R) {}

  SharedThreads run() {
    std::vector<unsigned> Sizes = R.Partition.empty() ? evenSplit() : explicitSplit();
    if (Problems.empty())
      checkSizes(Sizes);
    SharedThreads Result;
    if (Problems.empty())
      Result.Sizes = std::move(Sizes);
    Result.Problems = std::move(Problems);
    return Result;
  }

private:
  const PartitionRequest &R;
  std::vector<diag::Problem> Problems;

  void problem(ID Id, std::vector<std::string> Args) {
    Problems.push_back({Id, R.Line, R.Column, std::move(Args)});
  }

  std::vector<unsigned> explicitSplit() {
    if (R.Partition.size() != R.Members.size())
      problem(ID::PartitionArity,
              {R.Fusion, std::to_string(R.Partition.size()), std::to_string(R.Members.size())});
    return R.Partition;
  }

  std::vector<unsigned> evenSplit() {
    unsigned Fixed = 0, Resizable = 0, Sum = 0;
    for (const PartitionMember &M : R.Members) {
      Sum += M.Resizable ? M.BlockThreads : warpPadded(M.BlockThreads);
      if (M.Resizable)
        ++Resizable;
      else
        Fixed += warpPadded(M.BlockThreads);
    }
    unsigned Total = R.Threads.value_or(std::min(Sum, MaxBlockThreads));
    std::vector<unsigned> Sizes;
    if (Resizable == 0) {
      for (const PartitionMember &M : R.Members)
        Sizes.push_back(M.BlockThreads);
      return Sizes;
    }
    unsigned Left = Total > Fixed ? Total - Fixed : 0;
    unsigned Warps = Left / WarpSize;
    if (Warps < Resizable) {
      problem(ID::NoThreadsLeft, {R.Fusion, std::to_string(Left), std::to_string(Resizable)});
      return {};
    }
    // Whole warps, as even as possible; the earlier kernels take the remainder.
    unsigned Index = 0;
    for (const PartitionMember &M : R.Members) {
      if (!M.Resizable) {
        Sizes.push_back(M.BlockThreads);
        continue;
      }
      unsigned Share = Warps / Resizable + (Index < Warps % Resizable ? 1 : 0);
      Sizes.push_back(Share * WarpSize);
      ++Index;
    }
    return Sizes;
  }

  void checkSizes(const std::vector<unsigned> &Sizes) {
    unsigned Total = 0;
    for (size_t I = 0; I < Sizes.size(); ++I) {
      const PartitionMember &M = R.Members[I];
      unsigned Occupied = M.Resizable ? Sizes[I] : warpPadded(Sizes[I]);
      Total = R.Stacked ? std::max(Total, Occupied) : Total + Occupied;
      if (!M.Resizable && Sizes[I] != M.BlockThreads)
        problem(ID::PartitionFixedBlock,
                {M.Id, std::to_string(M.BlockThreads), std::to_string(Sizes[I])});
      else if (M.Resizable && Sizes[I] % WarpSize != 0)
        problem(ID::PartitionNotWarpMultiple, {M.Id, std::to_string(Sizes[I])});
    }
    if (Total > MaxBlockThreads)
      problem(ID::BlockTooLarge, {R.Fusion, std::to_string(Total)});
    unsigned Barriers = static_cast<unsigned>(
        std::count_if(R.Members.begin(), R.Members.end(),
                      [](const PartitionMember &M) { return M.UsesBarriers; }) +
        std::count_if(R.Members.begin(), R.Members.end(),
                      [](const PartitionMember &M) { return M.LoopBarrier; }) +
        reservedBarrierIds(R).size());
    if (Barriers > MaxBarrierIds - 1)
      problem(ID::TooManyBarrierIds, {R.Fusion, std::to_string(Barriers)});
  }
};

} // namespace

SharedThreads shareThreads(const PartitionRequest &Request) { return Sharer(Request).run(); }

std::vector<unsigned> reservedBarrierIds(const PartitionRequest &Request) {
  std::set<unsigned> Ids;
  for (const PartitionMember &M : Request.Members)
    Ids.insert(M.ReservedBarrierIds.begin(), M.ReservedBarrierIds.end());
  return {Ids.begin(), Ids.end()};
}

} // namespace kfuse
