//===- StepLoop.h - grid-stride loops that may run in step -----*- C++ -*-===//
//
// A vertical chain of grid-stride kernels runs, in every thread, the first
// kernel's whole loop and then the next's. A value the first passes to the
// next at element i can stay in a register only when the loops run in
// step instead: one iteration of each kernel, then the next iteration of
// each. That reorders the first kernel's later iterations after the next
// kernel's earlier ones, which is the original order's equal when
//
//   - each kernel's whole work is its grid-stride loop (Elementwise.h): every
//     access touches the loop's element i, which no other iteration and
//     no other thread touches;
//   - before the loop it only declares values (no call that changes state,
//     no assignment), which running again per iteration leaves the same,
//     and after it nothing;
//   - no iteration carries a value to the next: its body changes only
//     variables it declares itself, and calls nothing that changes state
//     (a printf would print in another order);
//   - it never returns.
//
// The chain's proof (FlowLegality.h) then checks that the loops run over
// the same elements: the same start, step, bound and variable type.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_STEPLOOP_H
#define KFUSE_ANALYSIS_STEPLOOP_H

#include "kfuse/Analysis/Kernel/Elementwise.h"

#include <array>
#include <optional>
#include <string>

namespace kfuse {

/// A kernel's grid-stride loop that may run in step with another's.
struct StepLoop {
  GridStrideLoop Loop;
  const clang::ParmVarDecl *Bound = nullptr; ///< n of i < n.
  /// The loop's start and step, spelled to mean the same in any scope:
  /// builtin types only, each operation in parentheses. Loops that run in
  /// step must spell them alike, so they compute them in the same types.
  std::string Init, Step;
};

struct StepLoopResult {
  std::optional<StepLoop> Loop;
  std::string WhyNot;
};

/// Whether \p Model's kernel, launched with blocks of \p Block and accessing
/// memory as \p Accesses says, is one grid-stride loop that may run in step.
/// Without a block (`kfuse list`), for the 1-D block its index strides by.
StepLoopResult findStepLoop(const KernelModel &Model, const KernelAccesses &Accesses,
                            std::optional<std::array<unsigned, 3>> Block);

} // namespace kfuse

#endif
