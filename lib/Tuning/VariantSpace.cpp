//===- VariantSpace.cpp - the fused variants kfuse tune measures ----------===//

#include "kfuse/Tuning/VariantSpace.h"

#include "kfuse/Plan/PartitionPlan.h"

#include <algorithm>

namespace kfuse {

unsigned fusedThreads(const std::vector<TuneMember> &Members) {
  unsigned Sum = 0;
  bool AnyResizable = false;
  for (const TuneMember &M : Members) {
    Sum += M.Resizable ? M.Threads : warpPadded(M.Threads);
    AnyResizable |= M.Resizable;
  }
  return AnyResizable ? std::min(Sum, 1024u) : Sum;
}

namespace {

void split(const std::vector<TuneMember> &Members, unsigned Step, size_t I, unsigned Left,
           std::vector<unsigned> &Current, std::vector<std::vector<unsigned>> &Out) {
  if (I == Members.size()) {
    if (Left == 0)
      Out.push_back(Current);
    return;
  }
  const TuneMember &M = Members[I];
  if (!M.Resizable) {
    if (warpPadded(M.Threads) <= Left) {
      Current.push_back(M.Threads);
      split(Members, Step, I + 1, Left - warpPadded(M.Threads), Current, Out);
      Current.pop_back();
    }
    return;
  }
  for (unsigned T = Step; T <= Left; T += Step) {
    Current.push_back(T);
    split(Members, Step, I + 1, Left - T, Current, Out);
    Current.pop_back();
  }
}

} // namespace

std::vector<std::vector<unsigned>> partitions(const std::vector<TuneMember> &Members, unsigned Step,
                                              unsigned Total) {
  std::vector<std::vector<unsigned>> Out;
  std::vector<unsigned> Current;
  if (Step == 0 || Step % 32 != 0)
    return Out;
  split(Members, Step, 0, Total, Current, Out);
  return Out;
}

std::vector<std::vector<unsigned>> partitions(const std::vector<TuneMember> &Members,
                                              unsigned Step) {
  return partitions(Members, Step, fusedThreads(Members));
}

std::vector<unsigned> evenSplit(const std::vector<TuneMember> &Members) {
  PartitionRequest Request;
  for (const TuneMember &M : Members)
    Request.Members.push_back({"", M.Threads, M.Resizable});
  PartitionResult Planned = planPartition(Request);
  std::vector<unsigned> Sizes;
  if (Planned.Plan)
    for (const ThreadRange &R : Planned.Plan->Ranges)
      Sizes.push_back(R.Active);
  return Sizes;
}

bool isEvenSplit(const FusedLayout &L, const std::vector<unsigned> &Even) {
  return !L.Vertical && !Even.empty() && L.Threads == Even && L.Grid == GridMode::AsLaunched &&
         L.Registers == RegisterPolicy::Compiler && L.Reductions == ReductionStyle::AsWritten &&
         L.BlocksPerIteration == 1 && L.Coarsen.empty();
}

bool isUntunedVertical(const FusedLayout &L) {
  return L.Vertical && L.Grid == GridMode::AsLaunched && L.BlocksPerIteration == 1 &&
         L.Registers == RegisterPolicy::Compiler && L.Reductions == ReductionStyle::AsWritten;
}

/// setmaxnreg sets the registers of whole warpgroups of 128 threads.
static bool wholeWarpgroups(const std::vector<unsigned> &Threads) {
  return std::all_of(Threads.begin(), Threads.end(), [](unsigned T) { return T % 128 == 0; });
}

/// Grids where registers per warpgroup are tried: ranges side by side (not
/// stacked), and not the dynamic grid, which hands out blocks as the
/// persistent one runs them and would only double the variants.
static bool ownsWarpgroups(GridMode G) {
  return G == GridMode::AsLaunched || G == GridMode::Persistent;
}

/// A layout of \p Threads side by side (or stacked, on a grid that stacks).
static FusedLayout layout(const std::vector<unsigned> &Threads, GridMode G,
                          RegisterPolicy R = RegisterPolicy::Compiler, unsigned Waves = 1) {
  FusedLayout L;
  L.Threads = Threads;
  L.Grid = G;
  L.Registers = R;
  L.Waves = Waves;
  return L;
}

std::vector<std::vector<bool>> coarsenedTogether(const std::vector<bool> &Coarsenable) {
  std::vector<std::vector<bool>> Together;
  std::vector<bool> All(Coarsenable.size(), false);
  for (size_t I = 0; I < Coarsenable.size(); ++I)
    if (Coarsenable[I]) {
      Together.emplace_back(Coarsenable.size(), false);
      Together.back()[I] = All[I] = true;
    }
  if (Together.size() > 1)
    Together.push_back(All);
  return Together;
}

std::vector<FusedLayout> variantSpace(const std::vector<TuneMember> &Members, unsigned Step,
                                      const std::vector<GridMode> &Grids) {
  std::vector<FusedLayout> Out;
  std::vector<std::vector<unsigned>> Splits = partitions(Members, Step);
  std::vector<unsigned> Even = evenSplit(Members);
  if (!Even.empty() && std::find(Splits.begin(), Splits.end(), Even) == Splits.end())
    Splits.insert(std::lower_bound(Splits.begin(), Splits.end(), Even), Even);
  std::vector<unsigned> Own;
  for (const TuneMember &M : Members)
    Own.push_back(M.Threads);
  bool Reductions = std::any_of(Members.begin(), Members.end(),
                                [](const TuneMember &M) { return M.TreeReduction; });
  std::vector<bool> Elementwise;
  for (const TuneMember &M : Members)
    Elementwise.push_back(M.Elementwise);
  const std::vector<std::vector<bool>> Coarsened = coarsenedTogether(Elementwise);
  for (const std::vector<unsigned> &P : Splits)
    for (GridMode G : Grids) {
      if (stacksRanges(G))
        continue;
      Out.push_back(layout(P, G));
      Out.push_back(layout(P, G, RegisterPolicy::Bounded));
      // The same additions with one barrier instead of one per halving.
      if (Reductions) {
        Out.push_back(layout(P, G));
        Out.back().Reductions = ReductionStyle::OneWarp;
      }
      if (ownsWarpgroups(G) && wholeWarpgroups(P))
        Out.push_back(layout(P, G, RegisterPolicy::PerWarpgroup));
      // More waves let a block start where one finished, so a block's
      // slowest range holds its slot for less of the run: measured faster
      // for some pairs, slower for others (docs/benchmarks.md).
      if (G == GridMode::Persistent)
        for (unsigned Waves = 2; Waves <= MaxWaves; ++Waves) {
          Out.push_back(layout(P, G, RegisterPolicy::Compiler, Waves));
          Out.push_back(layout(P, G, RegisterPolicy::Bounded, Waves));
          if (Reductions) {
            Out.push_back(layout(P, G, RegisterPolicy::Compiler, Waves));
            Out.back().Reductions = ReductionStyle::OneWarp;
          }
        }
      // Fewer threads of a memory-bound kernel keep as many loads in
      // flight: several blocks' loads before their stores. With the
      // compiler's registers on the most waves, which measured fastest or
      // within 0.3% of it for every coarsened kernel (docs/benchmarks.md);
      // and with registers per warpgroup, where a compute-bound kernel
      // needs many and the memory-bound range keeps its few.
      if (G == GridMode::Persistent)
        for (bool PerWarpgroup : {false, true}) {
          if (PerWarpgroup && !(ownsWarpgroups(G) && wholeWarpgroups(P)))
            continue;
          for (const std::vector<bool> &Which : Coarsened)
            for (unsigned Blocks : CoarsenBlocks) {
              Out.push_back(PerWarpgroup ? layout(P, G, RegisterPolicy::PerWarpgroup)
                                         : layout(P, G, RegisterPolicy::Compiler, MaxWaves));
              for (bool C : Which)
                Out.back().Coarsen.push_back(C ? Blocks : 1);
            }
        }
    }
  // Each resident block takes the sum of its warpgroups' counts from the
  // register file: a smaller block can let one more block fit where the
  // largest cannot (docs/benchmarks.md).
  for (GridMode G : Grids)
    if (ownsWarpgroups(G))
      for (unsigned Total = 256; Total < fusedThreads(Members); Total += 256)
        for (const std::vector<unsigned> &P : partitions(Members, 128, Total))
          if (wholeWarpgroups(P))
            Out.push_back(layout(P, G, RegisterPolicy::PerWarpgroup));
  // One kernel at a time on its own block: no split to choose.
  for (GridMode G : Grids)
    if (stacksRanges(G)) {
      Out.push_back(layout(Own, G));
      Out.push_back(layout(Own, G, RegisterPolicy::Bounded));
    }
  for (GridMode G : Grids)
    if (!stacksRanges(G)) {
      FusedLayout Vertical = layout(Own, G);
      Vertical.Vertical = true;
      // As launched, also with several blocks at a time: the loads of the
      // kernels before the first barrier of 4 blocks in flight together.
      std::vector<unsigned> PerIteration{1};
      if (G == GridMode::AsLaunched)
        PerIteration.push_back(VerticalBlocksPerIteration);
      for (unsigned Blocks : PerIteration) {
        Vertical.BlocksPerIteration = Blocks;
        Vertical.Reductions = ReductionStyle::AsWritten;
        Out.push_back(Vertical);
        if (Reductions) {
          Vertical.Reductions = ReductionStyle::OneWarp;
          Out.push_back(Vertical);
        }
      }
    }
  return Out;
}

std::vector<FusedLayout> chainSpace(const std::vector<TuneMember> &Members,
                                    const std::vector<GridMode> &Grids) {
  std::vector<FusedLayout> Out;
  // A chain is one range, as many threads as its largest block.
  unsigned Threads = 0;
  for (const TuneMember &M : Members)
    Threads = std::max(Threads, M.Threads);
  std::vector<unsigned> Own{Threads};
  bool Reductions = std::any_of(Members.begin(), Members.end(),
                                [](const TuneMember &M) { return M.TreeReduction; });
  for (GridMode G : Grids) {
    if (stacksRanges(G))
      continue;
    std::vector<unsigned> PerIteration{1};
    if (G == GridMode::AsLaunched)
      PerIteration.assign(std::begin(ChainBlocksPerIteration), std::end(ChainBlocksPerIteration));
    else if (G == GridMode::Persistent)
      PerIteration.push_back(4);
    for (unsigned Blocks : PerIteration)
      for (bool OneWarp : {false, true}) {
        if (OneWarp && !Reductions)
          continue;
        FusedLayout L = layout(Own, G);
        L.Vertical = true;
        L.BlocksPerIteration = Blocks;
        L.Reductions = OneWarp ? ReductionStyle::OneWarp : ReductionStyle::AsWritten;
        Out.push_back(L);
      }
  }
  return Out;
}

} // namespace kfuse
