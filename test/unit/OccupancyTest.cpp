// Blocks per multiprocessor from the toolkit's calculator on an H100, and the
// HFuse register bound over it, against cases worked out by hand.
#include "kfuse/Tuning/Occupancy.h"

#include <gtest/gtest.h>

namespace {

using namespace kfuse::occupancy;

const cudaOccDeviceProp H100 = hopperH100();

unsigned blocks(unsigned Threads, unsigned Registers, size_t Shared = 0, unsigned Barriers = 1) {
  return blocksPerSm(H100, {Threads, Registers, Shared, Barriers});
}

TEST(Occupancy, RegistersGoToWarpsInUnitsOf256) {
  // 32 x 32 = 1024 registers a warp; 16384 a sub-partition hold 16 warps,
  // 64 an SM, 8 blocks of 8 warps.
  EXPECT_EQ(blocks(256, 32), 8u);
  EXPECT_EQ(blocks(256, 64), 4u);
  // 40 x 32 = 1280: 12 warps a sub-partition, 48 an SM, one block of 32.
  EXPECT_EQ(blocks(1024, 40), 1u);
  // 255 x 32 = 8160 rounds up to 8192: 2 warps a sub-partition, 2 blocks of 4.
  EXPECT_EQ(blocks(128, 255), 2u);
  // 72 x 32 = 2304 a warp x 32 warps = 73728 > 65536: the block cannot launch.
  EXPECT_EQ(blocks(1024, 72), 0u);
}

TEST(Occupancy, SharedMemoryCountsTheReservedKilobyte) {
  // 48 KiB + 1 KiB = 50176 bytes: 4 blocks in 228 KiB.
  EXPECT_EQ(blocks(32, 0, 48 * 1024), 4u);
  // 7000 + 1024 rounds up to 8064: 28 blocks.
  EXPECT_EQ(blocks(32, 0, 7000), 28u);
}

TEST(Occupancy, TheLowestLimitWins) {
  EXPECT_EQ(blocks(256, 32), 8u); // threads and registers
  EXPECT_EQ(blocks(96, 32), 21u); // 64 warps / 3
  EXPECT_EQ(blocks(32, 16), 32u); // the block cap
  EXPECT_EQ(blocks(256, 32, 48 * 1024), 4u);
  EXPECT_EQ(blocks(0, 32), 0u);
}

TEST(Occupancy, NamedBarriersLimitFusedKernelsOnHopper) {
  // sm_90 has two barrier sets per block slot, 64 in all: a fused kernel
  // using ids 0-15 fits 4 blocks, whatever else would fit.
  EXPECT_EQ(blocks(32, 0, 0, 16), 4u);
  EXPECT_EQ(blocks(32, 0, 0, 4), 16u);
  EXPECT_EQ(blocks(32, 0, 0, 1), 32u);
  // 1024 threads allow 2 blocks: 16 ids do not lower that.
  EXPECT_EQ(blocks(1024, 0, 0, 16), 2u);
}

TEST(RegisterBound, ThePapersExample) {
  // HFuse on the 1080 Ti: 896 + 128 threads with 32 and 40 registers.
  // b1 = 65536 / (896 x 32) = 2, b2 = 65536 / (128 x 40) = 12, threads
  // allow 2048 / 1024 = 2: b0 = 2 and r0 = 65536 / (2 x 1024) = 32.
  unsigned B0 = boundBlocks(H100, {{896, 32}, {128, 40}}, {1024, 0, 0, 3});
  EXPECT_EQ(B0, 2u);
  EXPECT_EQ(registerBound(H100, B0, 1024), 32u);
}

TEST(RegisterBound, SharedMemoryCanBeTheLimit) {
  // 100 KiB of shared memory: 2 fused blocks of 256 fit whatever the registers.
  unsigned B0 = boundBlocks(H100, {{128, 32}, {128, 32}}, {256, 0, 100 * 1024, 3});
  EXPECT_EQ(B0, 2u);
  EXPECT_EQ(registerBound(H100, B0, 256), 128u);
}

TEST(RegisterBound, BarriersCanBeTheLimit) {
  // Registers alone would allow 65536 / (64 x 32) = 32 blocks of 128 threads,
  // threads 16; 16 barrier ids allow 4, so the bound asks for 4, not 16.
  unsigned B0 = boundBlocks(H100, {{64, 32}, {64, 32}}, {128, 0, 0, 16});
  EXPECT_EQ(B0, 4u);
  EXPECT_EQ(registerBound(H100, B0, 128), 128u);
}

TEST(RegisterBound, NeverBelowOneBlockOrAboveTheThreadMaximum) {
  // 512 x 200 registers: 0 blocks by the formula, kept at 1.
  unsigned B0 = boundBlocks(H100, {{512, 200}, {512, 32}}, {1024, 0, 0, 3});
  EXPECT_EQ(B0, 1u);
  EXPECT_EQ(registerBound(H100, B0, 1024), 64u);
  EXPECT_EQ(registerBound(H100, 1, 64), 255u);
}

} // namespace
