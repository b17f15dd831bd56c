//===- CooperativeGroups.h - what a cooperative-groups call does -*- C++ -*-===//
//
// Cooperative groups read the hardware's view of the block (%tid, %ntid),
// which in a fused block is the fused block's, not the kernel's range. What
// a call does depends on the group it acts on:
//   - the block (thread_block): sync() waits at a barrier, which becomes the
//     kernel's partial barrier; its queries (thread_rank(), size(),
//     group_index(), thread_index(), group_dim(), dim_threads()) become the
//     kernel's own view of them;
//   - a tile of at most 32 threads, or a coalesced group: warp-local, and a
//     kernel's range is made of whole warps starting at a warp boundary, so
//     ranks within a tile are the kernel's; only meta_group_rank() and
//     meta_group_size() of a tile cut from the block count in the block;
//   - the grid's queries (thread_rank(), size(), block_rank(), ...) count in
//     the kernel's own grid and block, and are rewritten likewise; its sync()
//     is refused, since every fused block also runs the other kernels;
//   - anything else (a cluster, a tile of more than a warp, a type-erased
//     thread_group, a block-wide collective) is refused.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_COOPERATIVEGROUPS_H
#define KFUSE_ANALYSIS_COOPERATIVEGROUPS_H

#include "clang/AST/Expr.h"

namespace kfuse {

/// What a call to cooperative groups does to a fused block.
enum class GroupCallKind {
  None,        ///< Not cooperative groups.
  Handle,      ///< Makes a group (this_thread_block(), tiled_partition<32>()): what it is used for
               ///< matters.
  BlockSync,   ///< thread_block::sync() or cg::sync(block).
  GridSync,    ///< grid_group::sync() or cg::sync(grid).
  BlockQuery,  ///< Reads the block's shape or the thread's place in it: rewritten.
  WarpLocal,   ///< Acts within a warp: unchanged.
  Unsupported, ///< Refused; Why says why.
};

/// Which view of the block a BlockQuery reads.
enum class BlockQuery {
  ThreadRank,    ///< thread_rank(): the thread's linear index in the block.
  Size,          ///< size(), num_threads().
  GroupIndex,    ///< group_index(): blockIdx.
  ThreadIndex,   ///< thread_index(): threadIdx.
  GroupDim,      ///< group_dim(), dim_threads(): blockDim.
  MetaGroupRank, ///< A tile's index among the block's tiles.
  MetaGroupSize, ///< How many tiles the block holds.
  // The grid's, over the kernel's own grid and block:
  GridThreadRank,  ///< thread_rank(): the thread's linear index in the grid.
  GridSize,        ///< size(), num_threads().
  GridThreadIndex, ///< thread_index(): blockIdx * blockDim + threadIdx.
  GridDimThreads,  ///< group_dim(), dim_threads(): gridDim * blockDim.
  GridBlockRank,   ///< block_rank().
  GridNumBlocks,   ///< num_blocks().
  GridBlockIndex,  ///< block_index(): blockIdx.
  GridDimBlocks,   ///< dim_blocks(): gridDim.
};

struct GroupCall {
  GroupCallKind Kind = GroupCallKind::None;
  BlockQuery Query = BlockQuery::ThreadRank;
  /// The tile's size: for MetaGroupRank and MetaGroupSize, and for a
  /// WarpLocal call on a tile or a Handle that cuts one (0 otherwise).
  unsigned TileSize = 0;
  const char *Why = ""; ///< For Unsupported.
};

/// What \p Call does, if it calls into cooperative groups.
GroupCall classifyGroupCall(const clang::CallExpr &Call);

} // namespace kfuse

#endif
