//===- Profile.h - a program's kernels as a profiler measured them -*- C++ -*-===//
//
// `kfuse suggest --profile` reads what Nsight Compute measured of each
// kernel launch of the real program (ncu --csv, either page), and bounds
// what fusing two of them can gain. Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_PROFILE_H
#define KFUSE_TUNING_PROFILE_H

#include "kfuse/Diagnostics/DiagnosticIds.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// What limits a kernel, from its throughputs as a share of the GPU's peak.
enum class KernelLimit {
  Memory,  ///< Memory throughput is the higher one, and high.
  Compute, ///< SM throughput is the higher one, and high.
  Latency, ///< Neither reaches LatencyBelowPercent: too few threads, or waits.
};
const char *spelling(KernelLimit L);
/// Below this share of peak on both, a kernel leaves both units idle.
constexpr double LatencyBelowPercent = 40;

/// One kernel's launches in the profile.
struct ProfiledKernel {
  /// As the profiler names it, without return type and parameter list:
  /// "blas::axpy<float>".
  std::string Name;
  unsigned Launches = 0;
  double MedianUs = 0; ///< Median duration of one launch, microseconds.
  double TotalUs = 0;
  double MemoryPercent = 0;                              ///< Median memory throughput, % of peak.
  double ComputePercent = 0;                             ///< Median SM throughput, % of peak.
  std::array<uint64_t, 3> Grid{0, 0, 0}, Block{0, 0, 0}; ///< Of its first launch.
  unsigned Registers = 0;
  /// What the calibrated estimate and the tuning report read, where the
  /// profile measured them (the raw page with profileMetrics()); medians.
  std::optional<double> DramBytes;     ///< Bytes read and written in DRAM, per launch.
  std::optional<double> WarpInsts;     ///< Warp instructions executed, per launch.
  std::optional<double> ActiveWarps;   ///< Achieved warps per multiprocessor while active.
  std::optional<double> DramPercent;   ///< DRAM throughput, % of peak.
  std::optional<double> BarrierStalls; ///< Share of active warps waiting at a barrier, %.

  KernelLimit limit() const;
};

struct ProfileResult {
  std::vector<ProfiledKernel> Kernels;  ///< In the order they first ran.
  std::vector<ProfiledKernel> Launches; ///< Each launch by itself, in order.
  std::vector<diag::Problem> Problems;  ///< Lines of the file.
};

/// Reads Nsight Compute's CSV (`ncu --csv --page raw --metrics ...` or the
/// default details page of `--section SpeedOfLight --section
/// LaunchStats`), skipping the program's own output around it.
ProfileResult parseNcuCsv(const std::string &Text);

/// The metrics the raw page needs, as `ncu --metrics` takes them.
const char *profileMetrics();

} // namespace kfuse

#endif
