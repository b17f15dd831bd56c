//===- Occupancy.h - blocks per multiprocessor and register bounds -*- C++ -*-===//
//
// How many blocks of a kernel one multiprocessor holds, by the rules the CUDA
// occupancy calculator publishes (cuda_occupancy.h): registers go to warps
// in units of 256 and are split among 4 sub-partitions, shared memory goes
// to blocks in units of 128 bytes plus 1 KiB the driver reserves per block,
// and threads and blocks per multiprocessor are capped. And the register
// bound of the HFuse paper (Fig. 6): enough registers per thread that the
// fused kernel keeps as many blocks per multiprocessor as its kernels had,
// unless threads or shared memory allow fewer anyway.
//
// Header-only and free of everything but the standard library: kfuse tune
// copies it into the harness that runs on the GPU machine, so the bound the
// harness computes is the one the unit tests check.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_OCCUPANCY_H
#define KFUSE_TUNING_OCCUPANCY_H

#include <algorithm>
#include <vector>

namespace kfuse {
namespace occupancy {

/// One multiprocessor of compute capability 9.0 (H100, H200).
struct SmLimits {
  unsigned Registers = 65536;  ///< Per multiprocessor, and per block.
  unsigned RegisterUnit = 256; ///< Registers are given to warps in these units.
  unsigned SubPartitions = 4;  ///< Register file quarters, each with its own warps.
  unsigned MaxRegistersPerThread = 255;
  unsigned SharedBytes = 233472; ///< 228 KiB per multiprocessor.
  unsigned SharedUnit = 128;     ///< Shared memory is given to blocks in these units.
  unsigned SharedReservedPerBlock = 1024;
  unsigned Threads = 2048;
  unsigned Blocks = 32;
  unsigned WarpSize = 32;
};

inline unsigned roundUp(unsigned Value, unsigned Unit) { return (Value + Unit - 1) / Unit * Unit; }

/// Blocks per multiprocessor that registers allow.
inline unsigned blocksByRegisters(const SmLimits &L, unsigned Threads, unsigned Registers) {
  if (Registers == 0)
    return L.Blocks;
  if (Registers > L.MaxRegistersPerThread)
    return 0;
  unsigned Warps = (Threads + L.WarpSize - 1) / L.WarpSize;
  unsigned PerWarp = roundUp(Registers * L.WarpSize, L.RegisterUnit);
  // A block must fit as if its warps were spread over every sub-partition.
  if (PerWarp * roundUp(Warps, L.SubPartitions) > L.Registers)
    return 0;
  unsigned WarpsPerSubPartition = L.Registers / L.SubPartitions / PerWarp;
  return WarpsPerSubPartition * L.SubPartitions / Warps;
}

/// Blocks per multiprocessor that shared memory allows.
inline unsigned blocksBySharedMemory(const SmLimits &L, unsigned SharedBytes) {
  unsigned PerBlock = roundUp(SharedBytes + L.SharedReservedPerBlock, L.SharedUnit);
  return L.SharedBytes / PerBlock;
}

/// Blocks per multiprocessor that the thread and block caps allow.
inline unsigned blocksByThreads(const SmLimits &L, unsigned Threads) {
  unsigned Warps = (Threads + L.WarpSize - 1) / L.WarpSize;
  return std::min(L.Threads / L.WarpSize / Warps, L.Blocks);
}

/// Blocks of a kernel resident on one multiprocessor at once.
inline unsigned blocksPerSm(const SmLimits &L, unsigned Threads, unsigned Registers,
                            unsigned SharedBytes) {
  if (Threads == 0)
    return 0;
  return std::min({blocksByRegisters(L, Threads, Registers), blocksBySharedMemory(L, SharedBytes),
                   blocksByThreads(L, Threads)});
}

/// One kernel's part of a fused kernel: its threads there and the registers
/// per thread it was compiled with on its own.
struct FusedPart {
  unsigned Threads;
  unsigned Registers;
};

/// HFuse Fig. 6, lines 9-11: the blocks per multiprocessor the fused kernel
/// should keep. b_i = SMNRegs / (d_i * NRegs(K_i)) for each part, capped by
/// shared memory and by threads; at least 1.
inline unsigned boundBlocks(const SmLimits &L, const std::vector<FusedPart> &Parts,
                            unsigned FusedThreads, unsigned FusedSharedBytes) {
  unsigned Blocks = blocksBySharedMemory(L, FusedSharedBytes);
  Blocks = std::min(Blocks, L.Threads / std::max(FusedThreads, 1u));
  for (const FusedPart &P : Parts)
    if (P.Threads && P.Registers)
      Blocks = std::min(Blocks, L.Registers / (P.Threads * P.Registers));
  return std::max(Blocks, 1u);
}

/// HFuse Fig. 6, line 12: r_0 = SMNRegs / (b_0 * d_0), the registers per
/// thread that let \p Blocks blocks of \p FusedThreads threads fit.
inline unsigned registerBound(const SmLimits &L, unsigned Blocks, unsigned FusedThreads) {
  return std::min(L.Registers / (std::max(Blocks, 1u) * std::max(FusedThreads, 1u)),
                  L.MaxRegistersPerThread);
}

} // namespace occupancy
} // namespace kfuse

#endif
