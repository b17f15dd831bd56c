//===- ThreadShares.h - each kernel's share of a fused block ----*- C++ -*-===//
//
// A horizontally fused block is 1-D; kernel i runs on threads
// [Begin_i, Begin_i + Size_i). Ranges are warp aligned so that no warp holds
// threads of two kernels (warp shuffles and partial barriers need that).
// How many threads each kernel gets, and whether that is legal, is decided
// here; Plan lays the shares out. Free of Clang: the tuner uses it too.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_THREADSHARES_H
#define KFUSE_ANALYSIS_THREADSHARES_H

#include "kfuse/Config/Config.h"
#include "kfuse/Diagnostics/DiagnosticIds.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

constexpr unsigned WarpSize = 32;
/// Named barriers per block on sm_70 and later; id 0 is __syncthreads() itself.
constexpr unsigned MaxBarrierIds = 16;

/// The threads a kernel of \p Threads threads per block occupies in a fused
/// block: whole warps, so that no warp holds two kernels. The threads past
/// its block (a block of 16 threads occupies 32) run nothing of it.
constexpr unsigned warpPadded(unsigned Threads) {
  return (Threads + WarpSize - 1) / WarpSize * WarpSize;
}

/// What the share of one kernel (or one chain, which runs on one range)
/// depends on.
struct PartitionMember {
  std::string Id;
  unsigned BlockThreads = 0; ///< Threads of the block it was written for.
  bool Resizable = false;    ///< Correct for any 1-D block size.
  bool UsesBarriers = false;
  /// Barrier ids the kernel's own inline PTX uses; no kernel gets them.
  std::vector<unsigned> ReservedBarrierIds{};
  /// A second id for the range as a whole: a persistent loop over a chain
  /// of kernels whose own barriers count fewer threads than the range.
  bool LoopBarrier = false;
};

struct PartitionRequest {
  std::string Fusion;
  std::vector<PartitionMember> Members;
  std::vector<unsigned> Partition; ///< Explicit sizes, or empty.
  std::optional<unsigned> Threads; ///< Fused block size to split, or none.
  /// Every range starts at thread 0 (one kernel runs at a time), so the
  /// fused block is as large as the largest range, not their sum.
  bool Stacked = false;
  unsigned Line = 0, Column = 0; ///< Where problems point in the config.
};

/// The threads one kernel runs on in the fused block.
struct ThreadRange {
  unsigned Begin = 0;
  unsigned Size = 0;          ///< Whole warps.
  unsigned BarrierId = 0;     ///< 0 when the kernel has no barrier.
  unsigned LoopBarrierId = 0; ///< 0 unless the member asked for one.
  /// Threads that run the kernel: Size, or its block when that is smaller
  /// than a whole number of warps (the rest of the range pads it).
  unsigned Active = 0;
  unsigned end() const { return Begin + Size; }
  bool padded() const { return Active < Size; }
};

/// Each member's threads, or the problems that refuse the request.
struct SharedThreads {
  std::optional<std::vector<unsigned>> Sizes;
  std::vector<diag::Problem> Problems;
};

/// Checks an explicit partition, or splits the block evenly in warp multiples
/// when none is given: kernels that are not resizable keep their own block
/// size (in whole warps), the resizable ones share the rest. The block to
/// split is Request.Threads, else the sum of the original block sizes capped
/// at 1024. A partition gives each kernel its threads: a fixed kernel's is
/// its block size, whatever warps it occupies. Also counts the barrier ids
/// the fused block needs.
SharedThreads shareThreads(const PartitionRequest &Request);

/// The barrier ids that the members' own inline PTX uses, each once.
std::vector<unsigned> reservedBarrierIds(const PartitionRequest &Request);

} // namespace kfuse

#endif
