//===- Estimate.cpp - what fusing kernels should gain, before tuning ------===//

#include "kfuse/Tuning/Estimate.h"

#include "kfuse/Tuning/VariantSpace.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kfuse {

unsigned DeviceLimits::blocksPerSm(unsigned Threads, unsigned Registers, size_t SharedBytes) const {
  if (Threads == 0)
    return 0;
  unsigned Warps = (Threads + 31) / 32;
  unsigned Blocks = std::min(BlocksPerSm, ThreadsPerSm / (Warps * 32));
  if (Registers) {
    unsigned PerWarp = (Registers * 32 + 255) / 256 * 256;
    Blocks = std::min(Blocks, RegistersPerSm / PerWarp / Warps);
  }
  if (SharedBytes)
    Blocks = std::min<size_t>(Blocks, SharedPerSm / (SharedBytes + ReservedSharedPerBlock));
  return Blocks;
}

KernelDemand demandOf(const ProfiledKernel &K) {
  KernelDemand D;
  D.Name = K.Name;
  D.Us = K.MedianUs;
  D.DramBytes = K.DramBytes;
  D.WarpInsts = K.WarpInsts;
  D.MemoryPercent = K.MemoryPercent;
  D.ComputePercent = K.ComputePercent;
  D.ActiveWarps = K.ActiveWarps;
  D.Threads = static_cast<unsigned>(K.Block[0] * K.Block[1] * K.Block[2]);
  D.GridBlocks = K.Grid[0] * K.Grid[1] * K.Grid[2];
  D.Registers = K.Registers;
  return D;
}

std::string FusionEstimate::boundName(const std::vector<KernelDemand> &Kernels) const {
  switch (Bound) {
  case EstimateBound::Memory:
    return "memory";
  case EstimateBound::Issue:
    return "issue";
  case EstimateBound::Kernel:
    return Kernel < Kernels.size() ? Kernels[Kernel].Name : "";
  }
  return "";
}

namespace {

unsigned warpsOf(unsigned Threads) { return (Threads + 31) / 32; }

/// \p Blocks resident per multiprocessor, or fewer where \p K's grid
/// spreads fewer over the device: a range of a fused block whose kernel has
/// no block there idles.
double gridCapped(double Blocks, const KernelDemand &K, const DeviceLimits &Device) {
  if (K.GridBlocks == 0 || Device.Sms == 0)
    return Blocks;
  return std::min(Blocks, std::ceil(double(K.GridBlocks) / Device.Sms));
}

/// Without the harness's curves: four warps per scheduler, the latency of a
/// dependent arithmetic instruction, and a copy of 16-byte loads.
constexpr unsigned DefaultIssueWarps = 16, DefaultMemoryWarps = 32;

/// Kernel \p K's DRAM and issue times at the achievable peaks, each at
/// least what its share of peak says (an integer pipe or the L2 can bind
/// before issue or DRAM do).
std::pair<double, double> demandTimes(const KernelDemand &K, const DevicePeaks &Peaks,
                                      bool Calibrated) {
  double Memory = K.Us * K.MemoryPercent / 100, Issue = K.Us * K.ComputePercent / 100;
  if (Calibrated) {
    Memory = std::max(Memory, *K.DramBytes / Peaks.DramBytesPerUs);
    Issue = std::max(Issue, *K.WarpInsts / Peaks.WarpInstsPerUs);
  }
  return {Memory, Issue};
}

/// The warps per multiprocessor kernel \p K needs to run as fast as alone.
double neededWarps(const KernelDemand &K, const DeviceLimits &Device, const DevicePeaks &Peaks,
                   bool Calibrated) {
  double Alone = K.ActiveWarps.value_or(0);
  if (Alone <= 0)
    Alone = gridCapped(Device.blocksPerSm(K.Threads, K.Registers, K.SharedBytes), K, Device) *
            warpsOf(K.Threads);
  if (K.Us <= 0)
    return Alone;
  auto [Memory, Issue] = demandTimes(K, Peaks, Calibrated);
  if (std::max(Memory, Issue) < SaturatedShare * K.Us)
    return Alone;
  double Saturate = Memory >= Issue ? (Peaks.MemoryWarps ? Peaks.MemoryWarps : DefaultMemoryWarps)
                                    : (Peaks.IssueWarps ? Peaks.IssueWarps : DefaultIssueWarps);
  return std::min(Alone, Saturate);
}

bool calibrated(const std::vector<KernelDemand> &Kernels, const DevicePeaks &Peaks) {
  return Peaks.DramBytesPerUs > 0 && Peaks.WarpInstsPerUs > 0 &&
         std::all_of(Kernels.begin(), Kernels.end(),
                     [](const KernelDemand &K) { return K.DramBytes && K.WarpInsts; });
}

/// The times the kernels' DRAM traffic and instructions take at the
/// achievable peaks, all kernels together.
std::pair<double, double> resourceTimes(const std::vector<KernelDemand> &Kernels,
                                        const DevicePeaks &Peaks, bool Calibrated) {
  double Memory = 0, Issue = 0;
  for (const KernelDemand &K : Kernels) {
    auto [M, I] = demandTimes(K, Peaks, Calibrated);
    Memory += M;
    Issue += I;
  }
  return {Memory, Issue};
}

/// Blocks of the fused kernel per multiprocessor with \p Split: the most
/// registers any kernel needs for every thread, or, where every range is
/// whole warpgroups, each range its own kernel's count.
unsigned fusedBlocks(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                     const std::vector<unsigned> &Split, size_t Shared) {
  unsigned Block = 0, Registers = 0, Pool = 0;
  bool Warpgroups = true;
  for (size_t I = 0; I < Split.size(); ++I) {
    Block += warpsOf(Split[I]) * 32;
    Registers = std::max(Registers, Kernels[I].Registers);
    Pool += (std::max(Kernels[I].Registers, 24u) + 7) / 8 * 8 * Split[I];
    Warpgroups &= Split[I] % 128 == 0;
  }
  unsigned Blocks = Device.blocksPerSm(Block, Registers, Shared);
  if (Warpgroups && Pool > 0)
    Blocks = std::max(Blocks,
                      std::min(Device.blocksPerSm(Block, 0, Shared), Device.RegistersPerSm / Pool));
  return Blocks;
}

std::vector<double> stretched(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                              const std::vector<double> &Needed,
                              const std::vector<unsigned> &Threads, unsigned Blocks) {
  std::vector<double> Times;
  for (size_t I = 0; I < Kernels.size(); ++I) {
    double Warps =
        gridCapped(Blocks, Kernels[I], Device) * warpsOf(I < Threads.size() ? Threads[I] : 0);
    Times.push_back(Warps > 0 ? Kernels[I].Us * std::max(1.0, Needed[I] / Warps)
                              : std::numeric_limits<double>::infinity());
  }
  return Times;
}

} // namespace

std::vector<double> rangeTimes(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                               const DevicePeaks &Peaks, const std::vector<unsigned> &Threads,
                               unsigned BlocksPerSm) {
  std::vector<double> Needed;
  for (const KernelDemand &K : Kernels)
    Needed.push_back(neededWarps(K, Device, Peaks, calibrated(Kernels, Peaks)));
  return stretched(Kernels, Device, Needed, Threads, BlocksPerSm);
}

FusionEstimate estimateFusion(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                              const DevicePeaks &Peaks, unsigned Step) {
  FusionEstimate E;
  double Longest = 0;
  size_t Shared = 0;
  std::vector<TuneMember> Members;
  for (const KernelDemand &K : Kernels) {
    E.SequentialUs += K.Us;
    Longest = std::max(Longest, K.Us);
    Shared += K.SharedBytes;
    Members.push_back({K.Threads, K.Resizable});
  }
  if (Longest <= 0 || Kernels.empty())
    return E;
  E.Overlap = E.SequentialUs / Longest;
  E.Calibrated = calibrated(Kernels, Peaks);
  auto [Memory, Issue] = resourceTimes(Kernels, Peaks, E.Calibrated);
  std::vector<double> Needed;
  for (const KernelDemand &K : Kernels)
    Needed.push_back(neededWarps(K, Device, Peaks, E.Calibrated));

  E.FusedUs = std::numeric_limits<double>::infinity();
  // The full block and the smaller ones (where per-warpgroup registers may
  // fit one more block), each split in steps of the tuner's.
  const unsigned S = Step ? Step : 32;
  const unsigned Full = fusedThreads(Members);
  std::vector<unsigned> Totals{Full};
  for (unsigned T = S; T < Full; T += S)
    Totals.push_back(T);
  for (unsigned Total : Totals)
    for (const std::vector<unsigned> &Split : partitions(Members, S, Total)) {
      unsigned Blocks = fusedBlocks(Kernels, Device, Split, Shared);
      if (Blocks == 0)
        continue;
      // The longest kernel with the warps this split leaves it.
      std::vector<double> Times = stretched(Kernels, Device, Needed, Split, Blocks);
      size_t Which = std::max_element(Times.begin(), Times.end()) - Times.begin();
      double Slowest = Times[Which];
      double Fused = std::max({Slowest, Memory, Issue});
      if (Fused < E.FusedUs) {
        E.FusedUs = Fused;
        E.Threads = Split;
        E.BlocksPerSm = Blocks;
        E.Kernel = Which;
        E.Bound = Fused == Slowest  ? EstimateBound::Kernel
                  : Fused == Memory ? EstimateBound::Memory
                                    : EstimateBound::Issue;
      }
    }
  if (E.Threads.empty()) { // No split launches: the resources alone.
    E.FusedUs = std::max({Longest, Memory, Issue});
    E.Bound = E.FusedUs == Memory  ? EstimateBound::Memory
              : E.FusedUs == Issue ? EstimateBound::Issue
                                   : EstimateBound::Kernel;
  }
  E.Speedup = E.SequentialUs / E.FusedUs;
  return E;
}

} // namespace kfuse
