//===- Estimate.h - what fusing kernels should gain, before tuning -*- C++ -*-===//
//
// A calibrated model of a horizontal fusion, from what each kernel did
// alone: its time, the DRAM bytes and warp instructions it needed, and the
// warps it kept active. Used by `kfuse suggest --profile` to rank
// candidates and by `kfuse tune` to report the estimate's error against
// what the harness measured. Free of Clang.
//
// The fused time is at least
//  - all kernels' DRAM bytes at the device's achievable bandwidth, and all
//    their warp instructions at its achievable issue rate (the two-resource
//    roofline; peaks measured by the tuning harness, not the datasheet's);
//  - the time the last range finishes, each kernel's throughput following
//    Little's law with a latency that grows with the load: the work its
//    warps keep in flight (calibrated by the utilisation it reached alone)
//    scales with the warps the fused block leaves it and the iterations
//    each thread loads at once, and its busier resource slows as every
//    running kernel uses it. Ranges of whole warpgroups may take their own
//    registers (setmaxnreg), which can fit more blocks.
// The estimate is the least such time over the splits and coarsenings
// kfuse tune tries.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_ESTIMATE_H
#define KFUSE_TUNING_ESTIMATE_H

#include "kfuse/Tuning/Profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// What bounds the blocks a multiprocessor holds, as cudaGetDeviceProperties
/// gives it to the harness; by default an H100's.
struct DeviceLimits {
  unsigned Sms = 132, ThreadsPerSm = 2048, BlocksPerSm = 32, RegistersPerSm = 65536;
  size_t SharedPerSm = 233472, ReservedSharedPerBlock = 1024;

  /// Blocks of \p Threads threads, \p Registers each and \p SharedBytes
  /// resident at once: registers are allocated per warp in units of 256, as
  /// the occupancy calculator of every architecture since Volta does. An
  /// estimate's model; the harness measures the real count.
  unsigned blocksPerSm(unsigned Threads, unsigned Registers, size_t SharedBytes) const;
};

/// What the device achieves, as the tuning harness measured it.
struct DevicePeaks {
  double DramBytesPerUs = 0; ///< A streaming copy's DRAM bytes per microsecond.
  double WarpInstsPerUs = 0; ///< Warp instructions per microsecond, all multiprocessors.
  unsigned IssueWarps = 0;   ///< Warps per multiprocessor that reach 90% of the issue rate.
  unsigned MemoryWarps = 0;  ///< Warps per multiprocessor that reach 90% of the copy's bandwidth.
};

/// One kernel as it ran alone.
struct KernelDemand {
  std::string Name;
  double Us = 0; ///< Its time alone.
  /// Absolute demands, when profiled; otherwise the shares of peak below
  /// stand in for them (Us * percent).
  std::optional<double> DramBytes, WarpInsts;
  double MemoryPercent = 0, ComputePercent = 0;
  std::optional<double> ActiveWarps; ///< Per multiprocessor, alone; else from occupancy.
  unsigned Threads = 0;              ///< Per block.
  uint64_t GridBlocks = 0; ///< Its grid; 0 when not known. Caps its blocks per multiprocessor.
  unsigned Registers = 0;
  size_t SharedBytes = 0;
  bool Resizable = false; ///< Its block may shrink (any_block_size).
  /// Iterations a thread of its range may load at once when the tuner
  /// coarsens it (an elementwise kernel, kfuse/Analysis/Elementwise.h); 1:
  /// never coarsened.
  unsigned Coarsen = 1;
};

/// A kernel as the profile describes it, \p Threads per block.
KernelDemand demandOf(const ProfiledKernel &K);

/// KernelDemand::Coarsen for a kernel the tuner may coarsen
/// (\p Coarsenable) or not: the most iterations at a time it tries.
unsigned estimatedCoarsening(bool Coarsenable);

/// What binds the estimated fused time.
enum class EstimateBound {
  Memory, ///< All kernels' DRAM traffic at the achievable bandwidth.
  Issue,  ///< All kernels' instructions at the achievable issue rate.
  Kernel, ///< One kernel's own time with the warps the split leaves it.
};

struct FusionEstimate {
  double SequentialUs = 0; ///< The kernels one after the other.
  double FusedUs = 0;
  double Speedup = 1;            ///< SequentialUs / FusedUs.
  double Overlap = 1;            ///< SequentialUs / the longest kernel: perfect overlap.
  std::vector<unsigned> Threads; ///< The split that gives FusedUs.
  std::vector<unsigned> Coarsen; ///< Each kernel's iterations at a time there.
  unsigned BlocksPerSm = 0;
  EstimateBound Bound = EstimateBound::Kernel;
  size_t Kernel = 0;       ///< Bound Kernel: which one finishes last.
  bool Calibrated = false; ///< Absolute demands at measured peaks, not shares of peak.

  /// "memory", "issue" or the kernel that finishes last.
  std::string boundName(const std::vector<KernelDemand> &Kernels) const;
};

/// When each kernel's range finishes in a fused block that gives it
/// \p Threads threads, \p BlocksPerSm blocks resident per multiprocessor,
/// \p Coarsen iterations at a time (none where empty).
std::vector<double> rangeTimes(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                               const DevicePeaks &Peaks, const std::vector<unsigned> &Threads,
                               unsigned BlocksPerSm, const std::vector<unsigned> &Coarsen = {});

/// The estimate for \p Kernels fused side by side on \p Device: the least
/// fused time over every split in steps of \p Step threads (kfuse tune's
/// step) of the full fused block and of each smaller one.
FusionEstimate estimateFusion(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                              const DevicePeaks &Peaks, unsigned Step);

} // namespace kfuse

#endif
