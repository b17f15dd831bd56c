//===- Occupancy.h - blocks per multiprocessor and register bounds -*- C++ -*-===//
//
// How many blocks of a kernel one multiprocessor holds comes from the CUDA
// toolkit's own calculator (cuda_occupancy.h, header-only, every
// architecture): registers, shared memory, threads, blocks and, from
// Hopper on, the block barriers a fused kernel's named barriers use up.
// Over it, the register bound of the HFuse paper (Fig. 6): enough registers
// per thread that the fused kernel keeps as many blocks per multiprocessor
// as its kernels had, unless the calculator allows fewer anyway.
//
// Header-only: kfuse tune copies it into the harness that runs on the GPU
// machine, so the bound the harness computes is the one the unit tests check.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_OCCUPANCY_H
#define KFUSE_TUNING_OCCUPANCY_H

#include <cuda_occupancy.h>

#include <algorithm>
#include <climits>
#include <vector>

namespace kfuse {
namespace occupancy {

/// What the calculator needs of a kernel.
struct KernelUse {
  unsigned Threads = 0;   ///< Per block.
  unsigned Registers = 0; ///< Per thread; 0 when not known yet (no register limit).
  size_t SharedBytes = 0; ///< Static and dynamic, per block.
  unsigned Barriers = 1;  ///< Block barrier ids: __syncthreads() is id 0.
};

/// Blocks of a kernel resident on one multiprocessor at once; 0 when a
/// block cannot launch at all.
inline unsigned blocksPerSm(const cudaOccDeviceProp &Device, const KernelUse &K) {
  if (K.Threads == 0)
    return 0;
  cudaOccFuncAttributes Attributes;
  Attributes.maxThreadsPerBlock = INT_MAX;
  Attributes.numRegs = static_cast<int>(K.Registers);
  Attributes.sharedSizeBytes = K.SharedBytes;
  Attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  Attributes.maxDynamicSharedSizeBytes = Device.sharedMemPerBlockOptin;
  Attributes.numBlockBarriers = static_cast<int>(K.Barriers);
  cudaOccDeviceState State;
  cudaOccResult Result;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&Result, &Device, &Attributes, &State,
                                              static_cast<int>(K.Threads), 0) != CUDA_OCC_SUCCESS)
    return 0;
  return static_cast<unsigned>(std::max(Result.activeBlocksPerMultiprocessor, 0));
}

/// One kernel's part of a fused kernel: its threads there and the registers
/// per thread it was compiled with on its own.
struct FusedPart {
  unsigned Threads;
  unsigned Registers;
};

/// HFuse Fig. 6, lines 9-11: the blocks per multiprocessor the fused kernel
/// should keep. b_i = SMNRegs / (d_i * NRegs(K_i)) for each part, capped by
/// what the calculator allows the fused block without a register limit
/// (threads, shared memory, barriers); at least 1.
inline unsigned boundBlocks(const cudaOccDeviceProp &Device, const std::vector<FusedPart> &Parts,
                            KernelUse Fused) {
  Fused.Registers = 0;
  unsigned Blocks = blocksPerSm(Device, Fused);
  for (const FusedPart &P : Parts)
    if (P.Threads && P.Registers)
      Blocks = std::min(Blocks, static_cast<unsigned>(Device.regsPerMultiprocessor) /
                                    (P.Threads * P.Registers));
  return std::max(Blocks, 1u);
}

/// HFuse Fig. 6, line 12: r_0 = SMNRegs / (b_0 * d_0), the registers per
/// thread that let \p Blocks blocks of \p FusedThreads threads fit.
/// At most 255: the calculator allocates up to 256 a thread, but the
/// 256th register is the zero register no code can hold a value in.
inline unsigned registerBound(const cudaOccDeviceProp &Device, unsigned Blocks,
                              unsigned FusedThreads) {
  const unsigned MaxRegistersPerThread = 255;
  return std::min(static_cast<unsigned>(Device.regsPerMultiprocessor) /
                      (std::max(Blocks, 1u) * std::max(FusedThreads, 1u)),
                  MaxRegistersPerThread);
}

/// An H100 SXM (compute capability 9.0) as cudaGetDeviceProperties
/// describes it: for tests, and for planning without a GPU.
inline cudaOccDeviceProp hopperH100() {
  cudaOccDeviceProp P;
  P.computeMajor = 9;
  P.computeMinor = 0;
  P.maxThreadsPerBlock = 1024;
  P.maxThreadsPerMultiprocessor = 2048;
  P.regsPerBlock = 65536;
  P.regsPerMultiprocessor = 65536;
  P.warpSize = 32;
  P.sharedMemPerBlock = 49152;
  P.sharedMemPerMultiprocessor = 233472;
  P.numSms = 132;
  P.sharedMemPerBlockOptin = 232448;
  P.reservedSharedMemPerBlock = 1024;
  return P;
}

} // namespace occupancy
} // namespace kfuse

#endif
