//===- VerticalPlan.h - how a vertical chain's kernels share data -*- C++ -*-===//
//
// From what Analysis proved of a chain (FlowLegality.h), the layout the
// transforms follow: which parameters take an earlier kernel's instead of
// their own, which flows become registers, which kernels wait for the
// block before they start, and which launches must repeat another's grid.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PLAN_VERTICALPLAN_H
#define KFUSE_PLAN_VERTICALPLAN_H

#include "kfuse/Analysis/Kernel/FlowLegality.h"

#include <array>
#include <map>
#include <vector>

namespace kfuse {

/// Consecutive members whose grid-stride loops run in step: one iteration
/// of each at a time (StepLoop.h).
struct StepGroup {
  size_t First = 0;
  std::vector<StepLoop> Loops; ///< Per member from First on.
};

/// How the kernels of vertical chains share their parameters and data.
/// Members are numbered in the chain, or across a whole fusion once its
/// chains are added together.
struct VerticalPlan {
  /// Parameters that take an earlier member's parameter instead of one of
  /// their own: flows through memory and groups of the same value.
  std::map<MemberParam, MemberParam> Aliases;
  /// Parameters a later holder writes through although their own pointee
  /// is const: the fused kernel declares them with that holder's type.
  std::map<MemberParam, MemberParam> DeclaredAs;
  std::vector<RegisterTemporary> Registers;
  /// Per member: whether it must wait for all threads of the block to
  /// finish the members before it.
  std::vector<bool> WaitBefore;
  /// Parameters no member takes any more: both ends of a register temporary.
  std::vector<MemberParam> Dropped;
  /// Per consumer: the producer whose launch grid its launch must repeat.
  std::map<size_t, size_t> SameGridAs;
  /// Per member of a flow: grid dimensions its launch must leave at 1.
  std::map<size_t, std::array<bool, 3>> UnitGrid;
  std::vector<StepGroup> InStep;
};

/// The plan of one chain, numbered in the chain.
VerticalPlan planVerticalChain(const ChainProof &Proof);

/// Adds \p Chain, whose first member is member \p First of the fusion, to
/// \p Fusion; Fusion.WaitBefore must have an entry per member of the fusion.
void addChain(VerticalPlan &Fusion, const VerticalPlan &Chain, size_t First);

} // namespace kfuse

#endif
