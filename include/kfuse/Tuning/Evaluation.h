//===- Evaluation.h - fused kernels against every native baseline -*- C++ -*-===//
//
// The view of kfuse tune's measurements that the HFuse paper's evaluation
// takes: per fusion, each kernel's time alone and their ratio, the native
// baselines, the vertical variant, the even split `kfuse fuse` emits without
// tuning, the tuned choice, and how much of the perfect overlap it reaches;
// a table, a summary line per fusion, and a chart of speedup against time
// ratio (the paper's Figure 7). Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_EVALUATION_H
#define KFUSE_TUNING_EVALUATION_H

#include "kfuse/Config/Config.h"
#include "kfuse/Tuning/Selection.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// The bytes one kernel moves through one of its buffers, counted once per
/// direction: what a memory-bound launch costs.
struct BufferTraffic {
  std::string Kernel, Param; ///< The config's kernel id and the parameter.
  uint64_t Bytes = 0;        ///< The launch's buffer: its elements' bytes.
  bool Reads = false, Writes = false;
};

/// What a vertical fusion can gain where memory bounds it: the bytes the
/// original launches move over those the fused kernel moves, which loads
/// a flow's buffer once (where the first kernel that touches it reads it)
/// and stores it once (never, when temporary).
struct BytesBound {
  uint64_t Original = 0, Fused = 0;
  double ratio() const { return Fused ? static_cast<double>(Original) / Fused : 0; }
};

/// The bound of the chain whose kernels move \p Traffic (in the chain's
/// order) and pass \p Flows; none where no byte moves.
std::optional<BytesBound> bytesBound(const std::vector<BufferTraffic> &Traffic,
                                     const std::vector<FlowSpec> &Flows);

/// One fusion's measurements and what the caller knows of it.
struct EvaluationCase {
  const FusionResult *Result = nullptr;
  const Verdict *Choice = nullptr;  ///< decide()'s: native best and the fastest variant.
  std::vector<std::string> Kernels; ///< The config's names, in order.
  std::vector<unsigned> EvenSplit;  ///< kfuse fuse's partition without a config one.
  std::string Group;                ///< Fusions of the same kernels at other input sizes share it.
  FusionMode Mode = FusionMode::Horizontal;
  /// For a vertical fusion whose kernels' buffers are all known.
  std::optional<BytesBound> Bound;
};

struct EvaluationRow {
  std::string Fusion, Group;
  std::vector<std::string> Kernels;
  std::vector<double> Alone; ///< Each kernel by itself, ms.
  double Ratio = 0;          ///< The first kernel's time over the last one's.
  const CandidateResult *Sequential = nullptr, *Streams = nullptr, *StreamsReversed = nullptr,
                        *Graph = nullptr, *NativeBest = nullptr, *Vertical = nullptr,
                        *Even = nullptr, *BestFused = nullptr;
  /// What `kfuse fuse` builds without tuning, as launched: the even split of
  /// a horizontal fusion, one block at a time of a vertical one.
  const CandidateResult *Untuned = nullptr;
  std::vector<NativeKernel> Natives;
  bool Fuse = false;               ///< The tuner's verdict.
  double TunedMs = 0;              ///< The winner's time, or native best's when kept.
  double Overlap = 0;              ///< (sequential - tuned) / (sequential - slowest alone).
  std::optional<BytesBound> Bound; ///< EvaluationCase::Bound.

  /// Native best over \p C; 0 without both.
  double speedup(const CandidateResult *C) const;
  /// Native best over the tuned choice: 1 when the originals are kept.
  double tunedSpeedup() const;
};

std::vector<EvaluationRow> evaluate(const std::vector<EvaluationCase> &Cases);

} // namespace kfuse

#endif
