//===- FusedLayout.h - one fused variant, typed, end to end -----*- C++ -*-===//
//
// How one fused kernel runs its kernels: side by side or one after the
// other, each kernel's threads, the grid, its waves and how it gets its
// registers. The tuner's variant space generates layouts, the tuning bundle
// carries them to the harness, which measures them and writes their fields
// to results.json, and `kfuse fuse --tuning` emits the winner's. A variant's
// name is a printed view of its layout, never parsed. Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PLAN_FUSEDLAYOUT_H
#define KFUSE_PLAN_FUSEDLAYOUT_H

#include "kfuse/Config/Config.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm::json {
class Value;
class Path;
} // namespace llvm::json

namespace kfuse {

/// How the fused kernel gets its registers.
enum class RegisterPolicy {
  Compiler, ///< As ptxas allocates them.
  /// __launch_bounds__ asks for a number of resident blocks per
  /// multiprocessor (HFuse's register bound).
  Bounded,
  /// Each kernel's warpgroups set their own count (setmaxnreg, sm_90a).
  PerWarpgroup,
};

struct FusedLayout {
  bool Vertical = false;         ///< Every kernel from thread 0, one after the other.
  std::vector<unsigned> Threads; ///< Per kernel.
  GridMode Grid = GridMode::AsLaunched;
  unsigned Waves = 1; ///< A persistent grid's blocks: this many times as many as are resident.
  /// Original blocks a fused block runs at a time (vertical): the kernels
  /// before the first that synchronizes run for all of them first, so each
  /// thread has their loads in flight together.
  unsigned BlocksPerIteration = 1;
  /// Per kernel: the original blocks its range runs per iteration of a
  /// persistent grid (horizontal, elementwise kernels), their loads first;
  /// empty: one each.
  std::vector<unsigned> Coarsen;
  ReductionStyle Reductions = ReductionStyle::AsWritten;
  RegisterPolicy Registers = RegisterPolicy::Compiler;
  /// The counts the policy needs: the blocks per multiprocessor of a bound,
  /// the count every thread starts with and each kernel's for warpgroups.
  /// Empty: the tuning harness chooses them as it builds the variant (from
  /// what the original kernels get); set once measured.
  std::optional<unsigned> MinBlocksPerSm;
  std::optional<unsigned> EntryRegisters;
  std::vector<unsigned> SectionRegisters;

  /// Every kernel from thread 0: the fused block is the largest of Threads.
  bool stacked() const { return Vertical || stacksRanges(Grid); }
  /// The blocks kernel \p I's range runs per iteration.
  unsigned coarsenOf(size_t I) const { return I < Coarsen.size() ? Coarsen[I] : 1; }
  /// Threads of the fused block.
  unsigned blockThreads() const;
  /// The printed view: "h384-640", "h384-640-p2-rb", "h256-512-wr",
  /// "proportional-rb", "vertical-d", "vertical-k4-ow" (4 blocks at a time,
  /// reductions in one warp), "h128-512-p2-c4x1" (the first kernel 4
  /// blocks per iteration).
  std::string name() const;
  /// The variant whose source this one's is: a bounded variant compiles its
  /// unbounded twin's source with the bound.
  FusedLayout source() const;

  bool operator==(const FusedLayout &Other) const;
};

/// Reads a layout from the fields of a candidate in results.json, where the
/// harness writes them: "threads", "grid", "waves", "blocks_per_iteration",
/// "coarsen", "reductions", "register_bound", "min_blocks_per_sm", "warpgroup_registers"
/// and "entry_registers" (whether
/// the kernels run one after the other is the candidate's kind, which its
/// reader sets). A wrong field is reported at \p P's path. A new field of
/// the layout is read here and nowhere else.
bool readLayoutFields(const llvm::json::Value &V, FusedLayout &L, llvm::json::Path P);

} // namespace kfuse

#endif
