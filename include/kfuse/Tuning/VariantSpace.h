//===- VariantSpace.h - the fused variants kfuse tune measures --*- C++ -*-===//
//
// Per fusion: every split of the fused block in steps of whole warps among
// the kernels that work with any block size (the others keep their
// blocks), the even split `kfuse fuse` emits without a partition, each
// without and with the HFuse register bound, and the vertical variant (every
// kernel from thread 0, one after the other) as a reference; each in every
// grid mode the fusion tries. Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_VARIANTSPACE_H
#define KFUSE_TUNING_VARIANTSPACE_H

#include "kfuse/Config/Config.h"
#include "kfuse/Plan/FusedLayout.h"

#include <string>
#include <vector>

namespace kfuse {

/// A kernel of the fusion as the variant space sees it.
struct TuneMember {
  unsigned Threads; ///< Its block as launched today.
  bool Resizable;   ///< Works with any 1-D block size.
  /// Has a block tree reduction the first warp can run alone
  /// (kfuse/Analysis/TreeReductions.h).
  bool TreeReduction = false;
  /// Each thread touches element blockIdx.x * blockDim.x + threadIdx.x of
  /// its buffers only, so its range of a persistent grid can run several
  /// of its blocks per iteration, loads first (kfuse/Analysis/Elementwise.h).
  bool Elementwise = false;
};

/// The threads of the fused block: the sum of today's blocks, at most 1024
/// when a kernel can shrink (the partition redistributes them).
unsigned fusedThreads(const std::vector<TuneMember> &Members);

/// Every split of fusedThreads() in multiples of \p Step (a warp multiple):
/// each resizable kernel gets at least \p Step threads, fixed kernels keep
/// theirs; in lexicographic order.
std::vector<std::vector<unsigned>> partitions(const std::vector<TuneMember> &Members,
                                              unsigned Step);
/// The same, of a block of \p Total threads.
std::vector<std::vector<unsigned>> partitions(const std::vector<TuneMember> &Members, unsigned Step,
                                              unsigned Total);

/// The split `kfuse fuse` emits when the config gives no partition (the
/// partition planner's), or nothing where the planner finds none.
std::vector<unsigned> evenSplit(const std::vector<TuneMember> &Members);

/// The most waves of resident blocks a persistent grid is tried with.
constexpr unsigned MaxWaves = 4;

/// Original blocks the vertical variant as launched also tries per fused
/// block (configs/vertical.yaml's chain and map_reduce measured fastest
/// with 4, docs/benchmarks.md).
constexpr unsigned VerticalBlocksPerIteration = 4;

/// Blocks (or grid-stride iterations) at a time the ranges of elementwise
/// kernels try on a persistent grid ("-c4x1"). 4 was at least as fast as 2
/// for the kernel that gained in every fusion measured on an H100
/// (docs/benchmarks.md), and each count multiplies the variants; a config
/// still asks for any count from 1 to 8.
constexpr unsigned CoarsenBlocks[] = {4};

/// Which kernels the tuner coarsens together, given which may be coarsened
/// (\p Coarsenable): each such kernel alone, and all of them where there
/// are several (a compute-bound kernel may lose warps to the registers it
/// takes).
std::vector<std::vector<bool>> coarsenedTogether(const std::vector<bool> &Coarsenable);

/// Whether \p L is what `kfuse fuse` emits untuned: \p Even side by side on
/// the grid as launched, registers as the compiler chooses.
bool isEvenSplit(const FusedLayout &L, const std::vector<unsigned> &Even);

/// Whether \p L is what `kfuse fuse` emits untuned for a vertical fusion:
/// one original block at a time on the grid as launched.
bool isUntunedVertical(const FusedLayout &L);

/// Each partition (the even split among them, added where the step misses
/// it) in each of \p Grids but the proportional one, without and with the
/// register bound, and on a persistent grid also with 2 to MaxWaves waves of
/// blocks.
/// Where every kernel's part is whole warpgroups of 128 threads, also with
/// registers per warpgroup ("-wr": Hopper's setmaxnreg; the harness builds it
/// on sm_90 only), and so for the splits of smaller blocks too (multiples of
/// 256 threads), where one more block's registers may fit. Then the
/// proportional variant (each kernel on its own block) with and without the
/// bound, and the vertical variant in each of the other \p Grids (as
/// launched also with VerticalBlocksPerIteration blocks at a time). Where a
/// kernel has a tree reduction, each split (with every number of waves)
/// and vertical variant without a bound also with its reductions in one
/// warp ("-ow"). Where kernels are elementwise, each split on a persistent
/// grid of MaxWaves waves, and with registers per warpgroup, also with the
/// range of each such kernel, and of all of them, running CoarsenBlocks
/// blocks per iteration ("-p4-c4x1", "-p-c1x4-wr", "-p4-c4x4").
std::vector<FusedLayout> variantSpace(const std::vector<TuneMember> &Members, unsigned Step,
                                      const std::vector<GridMode> &Grids = {GridMode::AsLaunched});

/// Original blocks per fused block the variants of a vertical fusion try as
/// launched: where a kernel's loads wait on the one before it, several
/// blocks' chains in flight hide that latency (configs/vertical.yaml's
/// chain measured fastest at 4 on an H100, docs/benchmarks.md).
constexpr unsigned ChainBlocksPerIteration[] = {1, 2, 4, 8};

/// The variants of a vertical fusion (its kernels one after the other in
/// each thread, on one range of its largest block): in each of \p Grids that does
/// not stack ranges, as launched with each of ChainBlocksPerIteration
/// blocks at a time, persistent with 1 and 4; where a kernel has a tree
/// reduction, each also with its reductions in one warp.
std::vector<FusedLayout> chainSpace(const std::vector<TuneMember> &Members,
                                    const std::vector<GridMode> &Grids = {GridMode::AsLaunched});

} // namespace kfuse

#endif
