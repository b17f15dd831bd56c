// Unit tests of the fusion layout: ranges per member, chains sharing a
// range, vertical and proportional layouts, and the loops of persistent grids.
#include "kfuse/Plan/FusionLayout.h"

#include <gtest/gtest.h>

using namespace kfuse;

namespace {

LayoutRequest twoKernels(GridMode Grid) {
  LayoutRequest R;
  R.Fusion = "f";
  R.Grid = Grid;
  R.Members = {{256, false, false, true, {}}, {128, false, false, false, {}}};
  R.Groups = {{"a", 0, 1, false}, {"b", 1, 1, false}};
  return R;
}

TEST(FusionLayout, OneRangePerKernelSideBySide) {
  LayoutResult L = planLayout(twoKernels(GridMode::AsLaunched));
  ASSERT_TRUE(L.Plan);
  const PartitionPlan &P = L.Plan->Ranges;
  ASSERT_EQ(P.Ranges.size(), 2u);
  EXPECT_EQ(P.Ranges[0].Begin, 0u);
  EXPECT_EQ(P.Ranges[1].Begin, 256u);
  EXPECT_EQ(P.BlockThreads, 384u);
  EXPECT_EQ(P.Ranges[0].BarrierId, 1u);
  EXPECT_EQ(P.Ranges[1].BarrierId, 0u);
  EXPECT_TRUE(L.Plan->Loops.empty()); // The grid as launched needs no loop.
}

TEST(FusionLayout, AChainSharesOneRange) {
  LayoutRequest R;
  R.Fusion = "f";
  R.Members = {
      {64, false, false, false, {}}, {96, false, false, true, {}}, {128, false, false, false, {}}};
  R.Groups = {{"chain", 0, 2, true}, {"c", 2, 1, false}};
  LayoutResult L = planLayout(R);
  ASSERT_TRUE(L.Plan);
  const PartitionPlan &P = L.Plan->Ranges;
  ASSERT_EQ(P.Ranges.size(), 3u);
  // Both chain members start where the chain's range does, each on its own block.
  EXPECT_EQ(P.Ranges[0].Begin, 0u);
  EXPECT_EQ(P.Ranges[1].Begin, 0u);
  EXPECT_EQ(P.Ranges[0].Active, 64u);
  EXPECT_EQ(P.Ranges[1].Active, 96u);
  EXPECT_EQ(P.Ranges[2].Begin, 96u); // After the chain's largest block.
}

TEST(FusionLayout, VerticalRunsEveryKernelFromThreadZero) {
  LayoutRequest R = twoKernels(GridMode::Persistent);
  R.Vertical = true;
  LayoutResult L = planLayout(R);
  ASSERT_TRUE(L.Plan);
  EXPECT_EQ(L.Plan->Ranges.BlockThreads, 256u);
  EXPECT_EQ(L.Plan->Ranges.Ranges[1].Begin, 0u);
  ASSERT_EQ(L.Plan->Loops.size(), 1u); // One loop over the whole block.
  EXPECT_EQ(L.Plan->Loops[0].Count, 2u);
  EXPECT_TRUE(L.Plan->Loops[0].WaitBetween); // The first kernel's barriers are reused.
}

TEST(FusionLayout, PersistentLoopsPerRange) {
  LayoutResult L = planLayout(twoKernels(GridMode::Persistent));
  ASSERT_TRUE(L.Plan);
  ASSERT_EQ(L.Plan->Loops.size(), 2u);
  EXPECT_EQ(L.Plan->Loops[0].BarrierId, 1u);
  EXPECT_TRUE(L.Plan->Loops[0].WaitBetween);
  EXPECT_EQ(L.Plan->Loops[1].Begin, 256u);
  EXPECT_FALSE(L.Plan->Loops[1].WaitBetween); // No barrier, nothing reused.
}

TEST(FusionLayout, AKernelForAnyGridRunsOnceOnThePersistentGrid) {
  LayoutRequest R = twoKernels(GridMode::Persistent);
  R.Members[1].AnyGrid = true;
  LayoutResult L = planLayout(R);
  ASSERT_TRUE(L.Plan);
  EXPECT_FALSE(L.Plan->Loops[0].Once);
  EXPECT_TRUE(L.Plan->Loops[1].Once);
  EXPECT_FALSE(L.Plan->Loops[1].WaitBetween);
}

TEST(FusionLayout, DynamicRangesWaitForTheirLeader) {
  LayoutResult L = planLayout(twoKernels(GridMode::Dynamic));
  ASSERT_TRUE(L.Plan);
  // Each range waits on an id of its own, even the kernel without barriers.
  EXPECT_NE(L.Plan->Ranges.Ranges[1].BarrierId, 0u);
  EXPECT_TRUE(L.Plan->Loops[1].WaitBetween);
}

TEST(FusionLayout, ProportionalStacksTheRanges) {
  LayoutResult L = planLayout(twoKernels(GridMode::Proportional));
  ASSERT_TRUE(L.Plan);
  EXPECT_EQ(L.Plan->Ranges.BlockThreads, 256u);
  EXPECT_EQ(L.Plan->Ranges.Ranges[1].Begin, 0u);
  ASSERT_EQ(L.Plan->Loops.size(), 2u);
  EXPECT_EQ(L.Plan->Loops[1].BarrierId, 0u); // __syncthreads() between iterations.
}

TEST(FusionLayout, PartitionProblemsComeBack) {
  LayoutRequest R = twoKernels(GridMode::AsLaunched);
  R.Partition = {100, 128};
  LayoutResult L = planLayout(R);
  EXPECT_FALSE(L.Plan);
  EXPECT_FALSE(L.Problems.empty());
}

} // namespace
