//===- EstimateTest.cpp - the calibrated estimate of a fusion -------------===//

#include "kfuse/Tuning/Estimate.h"
#include "kfuse/Tuning/Explanation.h"

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

// A kernel that saturates issue keeps most of its speed with fewer warps,
// so a DRAM-bound partner gets the rest: both overlap, short of perfectly
// because the memory kernel's instructions take issue slots the hash
// needed.
TEST(Estimate, ComputeBesideMemoryOverlaps) {
  std::vector<KernelDemand> K{kernel("mem", 100, 0.9, 0.1, 64), kernel("hash", 100, 0.02, 0.9, 64)};
  kfuse::FusionEstimate E = kfuse::estimateFusion(K, DeviceLimits(), H100, 128);
  EXPECT_GT(E.Speedup, 1.4);
  EXPECT_LT(E.Speedup, 1.9);
}

// Little's law: a kernel far from any peak keeps a fixed amount of work in
// flight per warp, so half its warps take about twice as long; one near
// its peak loses little.
TEST(Estimate, FewerWarpsSlowALatencyBoundKernelMore) {
  DeviceLimits H;
  KernelDemand Latency = kernel("latency", 100, 0.1, 0.05, 64);
  KernelDemand Saturated = kernel("saturated", 100, 0.95, 0.05, 64);
  // 256 threads of a 512-thread block, 4 blocks: 32 of the 64 warps.
  double Slow = kfuse::rangeTimes({Latency}, H, H100, {256}, 4)[0];
  double Near = kfuse::rangeTimes({Saturated}, H, H100, {256}, 4)[0];
  EXPECT_NEAR(Slow, 200, 5);
  EXPECT_GT(Near, 100);
  EXPECT_LT(Near, 115);
}

// A range that finishes first stops using DRAM: the other runs on at its
// speed alone, not at the shared speed to the end.
TEST(Estimate, TheLongerKernelRunsOnAloneAfterTheShorter) {
  DeviceLimits H;
  std::vector<KernelDemand> K{kernel("short", 20, 0.6, 0.05, 32),
                              kernel("long", 100, 0.6, 0.05, 32)};
  std::vector<double> Ends = kfuse::rangeTimes(K, H, H100, {512, 512}, 2);
  EXPECT_LT(Ends[0], Ends[1]);
  // Together they would need 1.2 of DRAM's peak for 20 us: the shared part
  // costs less than the short kernel alone, and what follows is the long
  // kernel's rest at its own pace.
  EXPECT_GT(Ends[1], 100);
  EXPECT_LT(Ends[1], 120);
}

// Loading four iterations at a time keeps four times the bytes in flight:
// a memory kernel far from DRAM's peak needs a quarter of the warps, which
// the tuner's coarsened variants give the compute kernel.
TEST(Estimate, CoarseningLetsAMemoryKernelGiveUpWarps) {
  KernelDemand Mem = kernel("triad", 100, 0.5, 0.05, 64);
  KernelDemand Hash = kernel("hash", 100, 0.02, 0.9, 64);
  kfuse::FusionEstimate Plain = kfuse::estimateFusion({Mem, Hash}, DeviceLimits(), H100, 128);
  Mem.Coarsen = 4;
  kfuse::FusionEstimate Coarse = kfuse::estimateFusion({Mem, Hash}, DeviceLimits(), H100, 128);
  EXPECT_GT(Coarse.Speedup, Plain.Speedup + 0.1);
  ASSERT_EQ(Coarse.Coarsen.size(), 2u);
  EXPECT_EQ(Coarse.Coarsen[0], 4u);
  EXPECT_EQ(Coarse.Coarsen[1], 1u);
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

TEST(Estimate, CountsTheMostIterationsTheTunerTriesForACoarsenableKernel) {
  EXPECT_EQ(kfuse::estimatedCoarsening(true), 4u);
  EXPECT_EQ(kfuse::estimatedCoarsening(false), 1u);
}

TEST(Explanation, ExtraInstructionsAreAgainstTheOriginalsTogether) {
  kfuse::ProfiledKernel A, B, Fused;
  A.WarpInsts = 100;
  B.WarpInsts = 300;
  Fused.WarpInsts = 440;
  kfuse::FusionExplanation E;
  E.Originals = {&A, &B};
  ASSERT_TRUE(E.extraInstructions(Fused).has_value());
  EXPECT_NEAR(*E.extraInstructions(Fused), 0.10, 1e-12);
  Fused.WarpInsts = 360;
  EXPECT_NEAR(*E.extraInstructions(Fused), -0.10, 1e-12);
  // A profile without instructions: no claim.
  B.WarpInsts.reset();
  EXPECT_FALSE(E.extraInstructions(Fused).has_value());
}
