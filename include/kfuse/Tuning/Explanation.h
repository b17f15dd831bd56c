//===- Explanation.h - why a fusion gains what it gains -------*- C++ -*-===//
//
// kfuse tune's why-report: per fusion, the calibrated estimate against what
// the harness measured, and where the fused kernel's time goes against its
// originals' as Nsight Compute measured them (DRAM and SM throughput,
// achieved warps, barrier stalls), and the range the model says finishes
// last. Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_EXPLANATION_H
#define KFUSE_TUNING_EXPLANATION_H

#include "kfuse/Tuning/Estimate.h"
#include "kfuse/Tuning/Evaluation.h"
#include "kfuse/Tuning/VariantSpace.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

struct FusionExplanation {
  std::string Fusion;
  std::vector<KernelDemand> Kernels;
  /// Absent, with Missing saying why, without a profile of every original.
  std::optional<FusionEstimate> Estimate;
  std::string Missing;
  const CandidateResult *Sequential = nullptr, *Fastest = nullptr, *Even = nullptr;
  std::vector<const ProfiledKernel *> Originals; ///< Profiled alone, per kernel.
  const ProfiledKernel *FastestProfile = nullptr, *EvenProfile = nullptr;
  /// The fastest variant's kernels in the model, at its measured layout.
  std::vector<double> FastestRanges;

  /// Sequential over the fastest variant, as measured; 0 without both.
  double measuredSpeedup() const;
  /// The estimated fused time over the measured one, minus 1; 0 without both.
  double error() const;
  /// The warp instructions \p Fused executed over those the originals
  /// executed together, less one (kfuse's range dispatch, loops over blocks
  /// and coarsening add some); none where one profile lacks them.
  std::optional<double> extraInstructions(const ProfiledKernel &Fused) const;
};

/// The explanation of \p Row's fusion, whose kernels are \p Shape, split
/// in steps of \p Step by the tuner.
FusionExplanation explain(const TuneResults &R, const FusionResult &F, const EvaluationRow &Row,
                          const std::vector<TuneMember> &Shape, unsigned Step);

} // namespace kfuse

#endif
