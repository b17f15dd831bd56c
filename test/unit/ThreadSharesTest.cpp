// Unit tests of each kernel's share of a fused block: the even split, and
// what refuses a share (the thread-shares check of the legality registry).
#include "kfuse/Analysis/Kernel/ThreadShares.h"

#include <gtest/gtest.h>

using namespace kfuse;

namespace {

PartitionRequest request(std::vector<PartitionMember> Members) {
  PartitionRequest R;
  R.Fusion = "f";
  R.Members = std::move(Members);
  return R;
}

TEST(ThreadShares, SplitsTheSumOfBlocksEvenlyInWholeWarps) {
  PartitionRequest Req = request({{"a", 512, true, false}, {"b", 512, true, false}});
  Req.Threads = 992; // 31 warps: the first kernel takes the odd one.
  SharedThreads R = shareThreads(Req);
  ASSERT_TRUE(R.Sizes);
  EXPECT_TRUE(R.Problems.empty());
  EXPECT_EQ(*R.Sizes, (std::vector<unsigned>{512, 480}));
}

TEST(ThreadShares, ExplicitPartitionMustBeWarpMultiples) {
  PartitionRequest Req = request({{"a", 256, true, false}, {"b", 256, true, false}});
  Req.Partition = {500, 524};
  SharedThreads R = shareThreads(Req);
  EXPECT_FALSE(R.Sizes);
  ASSERT_EQ(R.Problems.size(), 2u);
  EXPECT_EQ(R.Problems[0].Id, diag::ID::PartitionNotWarpMultiple);
  EXPECT_EQ(R.Problems[0].Args, (std::vector<std::string>{"a", "500"}));
}

TEST(ThreadShares, ExplicitPartitionAtMost1024) {
  PartitionRequest Req = request({{"a", 256, true, false}, {"b", 256, true, false}});
  Req.Partition = {768, 512};
  SharedThreads R = shareThreads(Req);
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, diag::ID::BlockTooLarge);
  EXPECT_EQ(R.Problems[0].Args[1], "1280");
}

TEST(ThreadShares, ExplicitPartitionKeepsFixedBlocks) {
  PartitionRequest Req = request({{"a", 256, false, false}, {"b", 256, true, false}});
  Req.Partition = {512, 512};
  SharedThreads R = shareThreads(Req);
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, diag::ID::PartitionFixedBlock);
}

TEST(ThreadShares, ExplicitPartitionNeedsOneSizePerKernel) {
  PartitionRequest Req = request({{"a", 256, true, false}, {"b", 256, true, false}});
  Req.Partition = {512};
  SharedThreads R = shareThreads(Req);
  ASSERT_FALSE(R.Problems.empty());
  EXPECT_EQ(R.Problems[0].Id, diag::ID::PartitionArity);
}

TEST(ThreadShares, ResizableKernelsNeedAWarpEach) {
  PartitionRequest Req = request({{"a", 1024, false, false}, {"b", 256, true, false}});
  SharedThreads R = shareThreads(Req);
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, diag::ID::NoThreadsLeft);
}

TEST(ThreadShares, AtMostFifteenKernelsWithBarriers) {
  std::vector<PartitionMember> Members(16, PartitionMember{"k", 32, false, true});
  SharedThreads R = shareThreads(request(Members));
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, diag::ID::TooManyBarrierIds);
}

} // namespace
