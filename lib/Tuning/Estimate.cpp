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

unsigned estimatedCoarsening(bool Coarsenable) {
  return Coarsenable ? *std::max_element(std::begin(CoarsenBlocks), std::end(CoarsenBlocks)) : 1;
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

/// A utilisation this close to 1 is the resource's achievable peak: the
/// model's latency would grow without bound above it.
constexpr double MostUsed = 0.97;

/// The sharpness of the knee where a resource's latency starts to grow
/// with its load: 1 is one M/M/1 queue (latency / (1 - load)), larger
/// keeps the latency flat longer and rises later. The harness's copy
/// curve (90% of peak with 24 warps) fits any of them; 2 came closest to
/// kfuse tune's measurements on eval, persistent, the suggest example and
/// eval-registers (docs/benchmarks.md).
constexpr double LatencyKnee = 2;

/// The unloaded latency over the latency at utilisation \p Use.
double slowdown(double Use) { return std::pow(1 - std::pow(Use, LatencyKnee), 1 / LatencyKnee); }

/// How kernel \p K loads DRAM and the issue slots when it runs alone.
struct Load {
  double Memory = 0, Issue = 0; ///< Utilisation of each, of the achievable peak.
  double Busier = 0;            ///< The greater of the two.
  double Offered = 0;           ///< Busier / slowdown(Busier): the work its warps keep in flight.
  double AloneWarps = 0;        ///< Per multiprocessor.
};

Load loadOf(const KernelDemand &K, const DeviceLimits &Device, const DevicePeaks &Peaks,
            bool Calibrated) {
  Load L;
  L.AloneWarps = K.ActiveWarps.value_or(0);
  if (L.AloneWarps <= 0)
    L.AloneWarps =
        gridCapped(Device.blocksPerSm(K.Threads, K.Registers, K.SharedBytes), K, Device) *
        warpsOf(K.Threads);
  if (K.Us > 0) {
    auto [Memory, Issue] = demandTimes(K, Peaks, Calibrated);
    L.Memory = std::min(MostUsed, Memory / K.Us);
    L.Issue = std::min(MostUsed, Issue / K.Us);
  }
  L.Busier = std::max({L.Memory, L.Issue, 0.01});
  L.Offered = L.Busier / slowdown(L.Busier);
  return L;
}

/// Each running kernel's throughput on its busier resource while the
/// kernels \p Running run together: a damped fixed point of the two
/// queues, each kernel's offer slowed by what all of them use of its
/// busier resource.
std::vector<double> sharedRates(const std::vector<Load> &Loads, const std::vector<double> &Offer,
                                const std::vector<bool> &Running) {
  const size_t N = Loads.size();
  std::vector<double> Rate(N, 0);
  for (size_t I = 0; I < N; ++I)
    if (Running[I])
      Rate[I] = Loads[I].Busier;
  for (int Step = 0; Step < 200; ++Step) {
    double Memory = 0, Issue = 0;
    for (size_t I = 0; I < N; ++I)
      if (Running[I]) {
        double Speed = Rate[I] / Loads[I].Busier; // Of its speed alone.
        Memory += Speed * Loads[I].Memory;
        Issue += Speed * Loads[I].Issue;
      }
    for (size_t I = 0; I < N; ++I)
      if (Running[I]) {
        double Use = std::min(MostUsed, Loads[I].Memory >= Loads[I].Issue ? Memory : Issue);
        Rate[I] = (Rate[I] + Offer[I] * slowdown(Use)) / 2;
      }
  }
  return Rate;
}

/// When each kernel finishes, all starting together, each with \p Warps
/// warps per multiprocessor and \p Coarsen iterations loaded at a time.
///
/// Little's law with a latency that grows with the load: a kernel keeps
/// Offered units of work in flight per unit of unloaded latency, and
/// alone its busier resource runs at Offered * slowdown(its use), which
/// calibrates Offered from the utilisation the profile measured. In the
/// fused kernel its offer scales with its warps and with the iterations
/// each thread loads at once, and its latency grows with what every
/// running kernel uses of that resource. When a kernel finishes, the
/// others run on without it.
std::vector<double> finishTimes(const std::vector<KernelDemand> &Kernels,
                                const std::vector<Load> &Loads, const std::vector<double> &Warps,
                                const std::vector<unsigned> &Coarsen) {
  const size_t N = Kernels.size();
  std::vector<double> Finish(N, std::numeric_limits<double>::infinity()), Left(N, 1.0), Offer(N, 0);
  std::vector<bool> Running(N, false);
  for (size_t I = 0; I < N; ++I) {
    if (Warps[I] <= 0 || Kernels[I].Us <= 0)
      continue;
    Offer[I] = Loads[I].Offered * Warps[I] / Loads[I].AloneWarps * Coarsen[I];
    Running[I] = true;
  }
  double Now = 0;
  while (std::find(Running.begin(), Running.end(), true) != Running.end()) {
    std::vector<double> Rate = sharedRates(Loads, Offer, Running);
    // Of each kernel's work per microsecond; advance to the next to finish.
    std::vector<double> PerUs(N, 0);
    size_t Next = N;
    double Soonest = std::numeric_limits<double>::infinity();
    for (size_t I = 0; I < N; ++I)
      if (Running[I]) {
        PerUs[I] = Rate[I] / (Loads[I].Busier * Kernels[I].Us);
        if (Left[I] / PerUs[I] < Soonest) {
          Soonest = Left[I] / PerUs[I];
          Next = I;
        }
      }
    if (Next == N) // Nothing progresses: the rest never finish.
      break;
    for (size_t I = 0; I < N; ++I)
      Left[I] -= Soonest * PerUs[I];
    Now += Soonest;
    Finish[Next] = Now;
    Running[Next] = false;
  }
  return Finish;
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

/// Each kernel's warps per multiprocessor with \p Threads of the fused
/// block, \p Blocks blocks resident.
std::vector<double> rangeWarps(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                               const std::vector<unsigned> &Threads, unsigned Blocks) {
  std::vector<double> Warps;
  for (size_t I = 0; I < Kernels.size(); ++I)
    Warps.push_back(gridCapped(Blocks, Kernels[I], Device) *
                    warpsOf(I < Threads.size() ? Threads[I] : 0));
  return Warps;
}

std::vector<Load> loadsOf(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                          const DevicePeaks &Peaks, bool Calibrated) {
  std::vector<Load> Loads;
  for (const KernelDemand &K : Kernels)
    Loads.push_back(loadOf(K, Device, Peaks, Calibrated));
  return Loads;
}

/// The iteration counts the tuner tries for the kernels it may coarsen:
/// none coarsened, and the tuner's choices (coarsenedTogether).
std::vector<std::vector<unsigned>> coarsenings(const std::vector<KernelDemand> &Kernels) {
  std::vector<bool> Coarsenable;
  for (const KernelDemand &K : Kernels)
    Coarsenable.push_back(K.Coarsen > 1);
  std::vector<std::vector<unsigned>> Choices{std::vector<unsigned>(Kernels.size(), 1)};
  for (const std::vector<bool> &Which : coarsenedTogether(Coarsenable)) {
    Choices.emplace_back();
    for (size_t I = 0; I < Kernels.size(); ++I)
      Choices.back().push_back(Which[I] ? Kernels[I].Coarsen : 1);
  }
  return Choices;
}

} // namespace

std::vector<double> rangeTimes(const std::vector<KernelDemand> &Kernels, const DeviceLimits &Device,
                               const DevicePeaks &Peaks, const std::vector<unsigned> &Threads,
                               unsigned BlocksPerSm, const std::vector<unsigned> &Coarsen) {
  std::vector<unsigned> Counts = Coarsen;
  Counts.resize(Kernels.size(), 1);
  return finishTimes(Kernels, loadsOf(Kernels, Device, Peaks, calibrated(Kernels, Peaks)),
                     rangeWarps(Kernels, Device, Threads, BlocksPerSm), Counts);
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
  std::vector<Load> Loads = loadsOf(Kernels, Device, Peaks, E.Calibrated);

  E.FusedUs = std::numeric_limits<double>::infinity();
  // The full block and the smaller ones (where per-warpgroup registers may
  // fit one more block), each split in steps of the tuner's.
  const unsigned S = Step ? Step : 32;
  const unsigned Full = fusedThreads(Members);
  std::vector<unsigned> Totals{Full};
  for (unsigned T = S; T < Full; T += S)
    Totals.push_back(T);
  const std::vector<std::vector<unsigned>> Coarsenings = coarsenings(Kernels);
  for (unsigned Total : Totals)
    for (const std::vector<unsigned> &Split : partitions(Members, S, Total)) {
      unsigned Blocks = fusedBlocks(Kernels, Device, Split, Shared);
      if (Blocks == 0)
        continue;
      std::vector<double> Warps = rangeWarps(Kernels, Device, Split, Blocks);
      for (const std::vector<unsigned> &Coarsen : Coarsenings) {
        // The range that finishes last, with the warps this split leaves each.
        std::vector<double> Times = finishTimes(Kernels, Loads, Warps, Coarsen);
        size_t Which = std::max_element(Times.begin(), Times.end()) - Times.begin();
        double Slowest = Times[Which];
        double Fused = std::max({Slowest, Memory, Issue});
        if (Fused < E.FusedUs) {
          E.FusedUs = Fused;
          E.Threads = Split;
          E.Coarsen = Coarsen;
          E.BlocksPerSm = Blocks;
          E.Kernel = Which;
          E.Bound = Fused == Slowest  ? EstimateBound::Kernel
                    : Fused == Memory ? EstimateBound::Memory
                                      : EstimateBound::Issue;
        }
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
