//===- Selection.h - reading measurements and choosing a winner -*- C++ -*-===//
//
// The harness writes what it measured as JSON; this reads it, decides per
// fusion whether a fused variant beats the best native launch by more than
// the measured noise (the reports are Emission's). Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_SELECTION_H
#define KFUSE_TUNING_SELECTION_H

#include "kfuse/Config/Config.h"
#include "kfuse/Plan/FusedLayout.h"
#include "kfuse/Tuning/Estimate.h"
#include "kfuse/Tuning/Profile.h"

#include "kfuse/Diagnostics/DiagnosticIds.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// What a candidate runs: one of the native launches, a fused variant, or
/// one original kernel by itself.
enum class CandidateKind {
#define KFUSE_CANDIDATE_KIND(Id, Name, Native) Id,
#include "kfuse/Tuning/CandidateKinds.def"
};

/// The kind's name in the results file ("sequential", ...).
const char *candidateKindName(CandidateKind K);
std::optional<CandidateKind> parseCandidateKind(const std::string &Name);
/// One of the original launches that a fused variant must beat.
bool isNativeKind(CandidateKind K);

/// The results file format this kfuse writes and reads ("schema_version";
/// docs/results-schema.md). A file without the key is version 1.
constexpr int ResultsSchemaVersion = 1;

struct CandidateResult {
  std::string Name;
  CandidateKind Kind = CandidateKind::Horizontal;
  int Kernel = -1; ///< Kind alone: the index of the kernel run by itself.
  bool Valid = false;
  unsigned long long Mismatches = 0;
  std::string Error;
  /// A fused variant's layout as the harness measured it, read from its
  /// fields (threads, grid, waves, register policy and counts), never from
  /// its name.
  FusedLayout Layout;
  unsigned BlockThreads = 0;
  int Registers = 0, SpillBytes = 0, StaticShared = 0, BlocksPerSm = 0, BlocksPerSmModel = 0;
  double Median = 0, P25 = 0, P75 = 0;
  unsigned Samples = 0;

  bool native() const { return isNativeKind(Kind); }
  /// One original kernel by itself: a reference, not a way to run the fusion.
  bool alone() const { return Kind == CandidateKind::Alone; }
  /// Half the interquartile range relative to the median.
  double noise() const { return Median > 0 ? (P75 - P25) / (2 * Median) : 0; }
};

/// What the toolchain gave an original kernel, at the block it is launched with.
struct NativeKernel {
  std::string Kernel;
  int Registers = 0, SpillBytes = 0, BlockThreads = 0, BlocksPerSm = 0, StaticShared = 0;
};

/// What Nsight Compute measured of one fusion's launches: the original
/// kernels, the fastest variant and the even split, each run once.
struct FusionProfile {
  std::vector<std::string> Launches; ///< The candidate each launch ran, in order.
  ProfileResult Measured;            ///< Measured.Launches[i] is Launches[i].
  std::string Error;                 ///< Why there is no profile; empty when there is.

  /// The launch of candidate \p Name, if profiled.
  const ProfiledKernel *of(const std::string &Name) const;
};

struct FusionResult {
  std::string Fusion;
  std::string Gpu; ///< The GPU that measured it (CUDA_VISIBLE_DEVICES's name); may be empty.
  double CompileSeconds = 0;
  std::vector<CandidateResult> Candidates;
  std::vector<NativeKernel> Natives;
  std::optional<FusionProfile> Profile; ///< Absent from harnesses before profiles.

  /// Kernel \p K's time alone, if it was measured.
  const CandidateResult *alone(size_t K) const;
};

struct TuneResults {
  std::string Device, Sm;
  int DriverApi = 0, Runtime = 0;
  unsigned Seed = 0;
  std::vector<std::string> Gpus;      ///< The GPUs of one model the fusions were spread over.
  std::optional<DevicePeaks> Peaks;   ///< As the harness measured them.
  std::optional<DeviceLimits> Limits; ///< What bounds blocks per multiprocessor.
  std::vector<FusionResult> Fusions;

  const FusionResult *find(const std::string &Fusion) const;
};

/// The results in \p Text, or nothing with \p Problem saying why: a syntax
/// error at its line, a wrong or missing field by its JSON path (a
/// kfuse-tune-results problem whose second argument is the reason).
std::optional<TuneResults> parseTuneResults(const std::string &Text, diag::Problem &Problem);

struct Verdict {
  bool Fuse = false;
  const CandidateResult *NativeBest = nullptr;
  const CandidateResult *Fastest = nullptr; ///< The fastest valid fused variant.
  double Speedup = 0;                       ///< NativeBest / Fastest.
  double Noise = 0;                         ///< The larger noise of the two.
  std::string Reason;
};

/// Fuse when the fastest valid variant is faster than native best by more
/// than the noise of both measurements.
Verdict decide(const FusionResult &R);

} // namespace kfuse

#endif
