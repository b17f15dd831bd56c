// Unit tests of the partition planner: the ranges of even splits in whole
// warps, of fixed and padded blocks and of explicit partitions, and barrier
// ids. What refuses a share is ThreadSharesTest's.
#include "kfuse/Plan/PartitionPlan.h"

#include <gtest/gtest.h>

using namespace kfuse;

namespace {

PartitionRequest request(std::vector<PartitionMember> Members) {
  PartitionRequest R;
  R.Fusion = "f";
  R.Members = std::move(Members);
  return R;
}

std::vector<unsigned> sizes(const PartitionPlan &P) {
  std::vector<unsigned> S;
  for (const ThreadRange &R : P.Ranges)
    S.push_back(R.Size);
  return S;
}

TEST(PartitionPlan, SplitsTheSumOfBlocksEvenly) {
  PartitionResult R = planPartition(request({{"a", 256, true, true}, {"b", 512, true, false}}));
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{384, 384}));
  EXPECT_EQ(R.Plan->BlockThreads, 768u);
  EXPECT_EQ(R.Plan->Ranges[1].Begin, 384u);
}

TEST(PartitionPlan, GivesTheOddWarpToTheFirstKernel) {
  PartitionRequest Req = request({{"a", 512, true, false}, {"b", 512, true, false}});
  Req.Threads = 992; // 31 warps
  PartitionResult R = planPartition(Req);
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{512, 480}));
}

TEST(PartitionPlan, CapsTheDefaultBlockAt1024) {
  PartitionResult R = planPartition(
      request({{"a", 1024, true, false}, {"b", 1024, true, false}, {"c", 256, false, false}}));
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{384, 384, 256}));
}

TEST(PartitionPlan, FixedKernelsKeepTheirBlock) {
  PartitionResult R = planPartition(request({{"a", 256, false, true}, {"b", 128, false, true}}));
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{256, 128}));
  EXPECT_EQ(R.Plan->Ranges[0].BarrierId, 1u);
  EXPECT_EQ(R.Plan->Ranges[1].BarrierId, 2u);
}

TEST(PartitionPlan, PadsBlocksSmallerThanWholeWarps) {
  // Rodinia's nw runs 16 threads per block; the next kernel starts at a warp.
  PartitionResult R = planPartition(
      request({{"nw", 16, false, true}, {"odd", 48, false, false}, {"c", 256, true, false}}));
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{32, 64, 256}));
  EXPECT_EQ(R.Plan->Ranges[0].Active, 16u);
  EXPECT_EQ(R.Plan->Ranges[1].Begin, 32u);
  EXPECT_EQ(R.Plan->Ranges[1].Active, 48u);
  EXPECT_TRUE(R.Plan->Ranges[1].padded());
  EXPECT_FALSE(R.Plan->Ranges[2].padded());
  EXPECT_EQ(R.Plan->BlockThreads, 352u);
}

TEST(PartitionPlan, APaddedKernelTakesItsBlockInAPartition) {
  PartitionRequest Req = request({{"nw", 16, false, true}, {"c", 256, true, false}});
  Req.Partition = {16, 96};
  PartitionResult R = planPartition(Req);
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{32, 96}));
  EXPECT_EQ(R.Plan->BlockThreads, 128u);
}

TEST(PartitionPlan, BarrierIdsSkipKernelsWithoutBarriers) {
  PartitionResult R = planPartition(
      request({{"a", 256, true, false}, {"b", 256, true, true}, {"c", 256, true, true}}));
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(R.Plan->Ranges[0].BarrierId, 0u);
  EXPECT_EQ(R.Plan->Ranges[1].BarrierId, 1u);
  EXPECT_EQ(R.Plan->Ranges[2].BarrierId, 2u);
  EXPECT_EQ(R.Plan->BarrierIds, 3u); // Ids 0 to 2: the occupancy calculator counts 3.
}

TEST(PartitionPlan, BarrierIdsCountWhatTheKernelsReserve) {
  PartitionResult None = planPartition(request({{"a", 256, true, false}, {"b", 256, true}}));
  ASSERT_TRUE(None.Plan);
  EXPECT_EQ(None.Plan->BarrierIds, 1u); // __syncthreads() alone.
  // The kernel's own PTX uses id 5: ids 1 and 2 go to the ranges, 0-5 are used.
  PartitionMember A{"a", 256, true, true, {5}, true};
  PartitionResult R = planPartition(request({A, {"b", 256, true}}));
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(R.Plan->Ranges[0].LoopBarrierId, 2u);
  EXPECT_EQ(R.Plan->BarrierIds, 6u);
}

// Proportional grids run one kernel at a time: every range from thread 0,
// the block as large as the largest, each kernel with a barrier id of its own.
TEST(PartitionPlan, StackedRangesShareThreadZero) {
  PartitionRequest Req = request({{"a", 1024, false, true}, {"b", 256, true, true}});
  Req.Partition = {1024, 256};
  Req.Stacked = true;
  PartitionResult R = planPartition(Req);
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(R.Plan->BlockThreads, 1024u);
  EXPECT_EQ(R.Plan->Ranges[1].Begin, 0u);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{1024, 256}));
  EXPECT_EQ(R.Plan->Ranges[0].BarrierId, 1u);
  EXPECT_EQ(R.Plan->Ranges[1].BarrierId, 2u);
}

TEST(PartitionPlan, FixedBlocksAreRoundedUpToWarps) {
  PartitionResult R = planPartition(request({{"a", 100, false, false}, {"b", 256, true, false}}));
  ASSERT_TRUE(R.Plan);
  EXPECT_EQ(sizes(*R.Plan), (std::vector<unsigned>{128, 256}));
  EXPECT_EQ(R.Plan->Ranges[0].Active, 100u);
}

} // namespace
