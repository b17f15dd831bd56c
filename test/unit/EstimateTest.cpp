//===- EstimateTest.cpp - the calibrated estimate of a fusion -------------===//

#include "kfuse/Tuning/Estimate.h"

#include <gtest/gtest.h>

using kfuse::DeviceLimits;
using kfuse::DevicePeaks;
using kfuse::EstimateBound;
using kfuse::KernelDemand;

namespace {

// The peaks kfuse tune's harness measured on an H100 (2026-11-27).
const DevicePeaks H100{2.8e6, 9.38e5, 16, 32};

/// A grid-stride kernel of 256 threads per block, 32 registers, \p Us
/// alone, with the DRAM bytes and instructions of the shares given.
KernelDemand kernel(const char *Name, double Us, double DramShare, double IssueShare,
                    double Warps) {
  KernelDemand K;
  K.Name = Name;
  K.Us = Us;
  K.DramBytes = DramShare * Us * H100.DramBytesPerUs;
  K.WarpInsts = IssueShare * Us * H100.WarpInstsPerUs;
  K.MemoryPercent = 100 * DramShare;
  K.ComputePercent = 100 * IssueShare;
  K.ActiveWarps = Warps;
  K.Threads = 256;
  K.Registers = 32;
  K.Resizable = true;
  return K;
}

} // namespace

// Two latency-bound kernels that each keep every warp of a multiprocessor
// busy at half of DRAM's peak cannot overlap: each needs all the warps,
// the best split gives each its share, and the sum is the sequential time.
TEST(Estimate, LatencyBoundPairGainsNothing) {
  std::vector<KernelDemand> K{kernel("a", 100, 0.5, 0.3, 64), kernel("b", 100, 0.5, 0.3, 64)};
  kfuse::FusionEstimate E = kfuse::estimateFusion(K, DeviceLimits(), H100, 128);
  EXPECT_NEAR(E.Speedup, 1.0, 0.02);
  EXPECT_NEAR(E.Overlap, 2.0, 1e-9);
  EXPECT_TRUE(E.Calibrated);
}

// A kernel that saturates issue keeps its speed with the 16 warps that
// saturate it, so a DRAM-bound partner gets the rest: both overlap.
TEST(Estimate, ComputeBesideMemoryOverlaps) {
  std::vector<KernelDemand> K{kernel("mem", 100, 0.9, 0.1, 64), kernel("hash", 100, 0.02, 0.9, 64)};
  kfuse::FusionEstimate E = kfuse::estimateFusion(K, DeviceLimits(), H100, 128);
  EXPECT_GT(E.Speedup, 1.6);
  EXPECT_LE(E.Speedup, 2.0);
}

// Two compute-bound kernels share one issue rate: their instructions bind.
TEST(Estimate, TwoComputeBoundKernelsShareIssue) {
  std::vector<KernelDemand> K{kernel("x", 100, 0.02, 0.9, 32), kernel("y", 100, 0.02, 0.9, 32)};
  kfuse::FusionEstimate E = kfuse::estimateFusion(K, DeviceLimits(), H100, 128);
  EXPECT_TRUE(E.Bound == EstimateBound::Issue);
  EXPECT_NEAR(E.Speedup, 2.0 / 1.8, 0.01);
}

// A kernel whose grid puts two blocks on each multiprocessor keeps them in
// the fused grid: it is not stretched by a split that gives it fewer
// threads per block than a full multiprocessor would hold.
TEST(Estimate, SmallGridIsNotStretched) {
  KernelDemand Small = kernel("small", 400, 0.05, 0.05, 16);
  Small.GridBlocks = 264;
  Small.Resizable = false;
  KernelDemand Hash = kernel("hash", 70, 0.02, 0.9, 64);
  Hash.Resizable = false;
  kfuse::FusionEstimate E = kfuse::estimateFusion({Hash, Small}, DeviceLimits(), H100, 256);
  EXPECT_NEAR(E.FusedUs, 400, 1);
  EXPECT_EQ(E.boundName({Hash, Small}), "small");
}

// Without the harness's peaks the profile's shares of peak stand in.
TEST(Estimate, SharesOfPeakWithoutPeaks) {
  std::vector<KernelDemand> K{kernel("x", 100, 0.02, 0.9, 32), kernel("y", 100, 0.02, 0.9, 32)};
  kfuse::FusionEstimate E = kfuse::estimateFusion(K, DeviceLimits(), DevicePeaks(), 128);
  EXPECT_FALSE(E.Calibrated);
  EXPECT_NEAR(E.FusedUs, 180, 1);
}

TEST(Estimate, BlocksPerSmFollowRegistersAndThreads) {
  DeviceLimits H;
  EXPECT_EQ(H.blocksPerSm(256, 32, 0), 8u);
  EXPECT_EQ(H.blocksPerSm(1024, 64, 0), 1u);
  EXPECT_EQ(H.blocksPerSm(768, 40, 0), 2u);
  EXPECT_EQ(H.blocksPerSm(64, 0, 0), 32u);
  EXPECT_EQ(H.blocksPerSm(256, 0, 100000), 2u);
}
