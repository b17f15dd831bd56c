// A fused variant's layout and the name printed from it.

#include "kfuse/Plan/FusedLayout.h"

#include <gtest/gtest.h>

using kfuse::FusedLayout;
using kfuse::GridMode;
using kfuse::RegisterPolicy;

namespace {

FusedLayout sideBySide(std::vector<unsigned> Threads, GridMode G = GridMode::AsLaunched) {
  FusedLayout L;
  L.Threads = std::move(Threads);
  L.Grid = G;
  return L;
}

TEST(FusedLayout, NamePrintsSplitGridWavesAndRegisters) {
  FusedLayout L = sideBySide({384, 640});
  EXPECT_EQ(L.name(), "h384-640");
  L.Registers = RegisterPolicy::Bounded;
  EXPECT_EQ(L.name(), "h384-640-rb");
  L.Grid = GridMode::Persistent;
  L.Waves = 2;
  EXPECT_EQ(L.name(), "h384-640-p2-rb");
  L.Registers = RegisterPolicy::PerWarpgroup;
  L.Waves = 1;
  EXPECT_EQ(L.name(), "h384-640-p-wr");
  L.Grid = GridMode::Dynamic;
  L.Registers = RegisterPolicy::Compiler;
  EXPECT_EQ(L.name(), "h384-640-d");
}

TEST(FusedLayout, StackedLayoutsAreNamedByTheirKind) {
  FusedLayout P = sideBySide({256, 128}, GridMode::Proportional);
  EXPECT_EQ(P.name(), "proportional");
  EXPECT_TRUE(P.stacked());
  EXPECT_EQ(P.blockThreads(), 256u);
  FusedLayout V = sideBySide({256, 128}, GridMode::Dynamic);
  V.Vertical = true;
  EXPECT_EQ(V.name(), "vertical-d");
  EXPECT_EQ(V.blockThreads(), 256u);
  EXPECT_EQ(sideBySide({256, 128}).blockThreads(), 384u);
}

TEST(FusedLayout, NamePrintsBlocksAtATimeAndOneWarpReductions) {
  FusedLayout V = sideBySide({256, 256});
  V.Vertical = true;
  V.BlocksPerIteration = 4;
  EXPECT_EQ(V.name(), "vertical-k4");
  V.Reductions = kfuse::ReductionStyle::OneWarp;
  EXPECT_EQ(V.name(), "vertical-k4-ow");
  V.Grid = GridMode::Persistent;
  V.Waves = 2;
  EXPECT_EQ(V.name(), "vertical-p2-k4-ow");
  FusedLayout H = sideBySide({384, 640});
  H.Registers = RegisterPolicy::Bounded;
  H.Reductions = kfuse::ReductionStyle::OneWarp;
  EXPECT_EQ(H.name(), "h384-640-rb-ow");
  EXPECT_FALSE(H == sideBySide({384, 640}));
}

TEST(FusedLayout, NamePrintsEachKernelsBlocksPerIteration) {
  FusedLayout L = sideBySide({128, 512}, GridMode::Persistent);
  L.Waves = 4;
  L.Coarsen = {4, 1};
  EXPECT_EQ(L.name(), "h128-512-p4-c4x1");
  EXPECT_EQ(L.coarsenOf(0), 4u);
  EXPECT_EQ(L.coarsenOf(1), 1u);
  EXPECT_FALSE(L == sideBySide({128, 512}, GridMode::Persistent));
  // No list: one block each, and no suffix.
  L.Coarsen.clear();
  EXPECT_EQ(L.coarsenOf(1), 1u);
  EXPECT_EQ(L.name(), "h128-512-p4");
}

TEST(FusedLayout, ABoundedVariantCompilesItsTwinsSource) {
  FusedLayout L = sideBySide({512, 512}, GridMode::Persistent);
  L.Waves = 2;
  L.Registers = RegisterPolicy::Bounded;
  L.MinBlocksPerSm = 2;
  FusedLayout Twin = L.source();
  EXPECT_EQ(Twin.name(), "h512-512-p2");
  EXPECT_FALSE(Twin.MinBlocksPerSm);
  EXPECT_FALSE(Twin == L);
  // Warpgroup registers are the source's own: it sets them itself.
  L.Registers = RegisterPolicy::PerWarpgroup;
  EXPECT_TRUE(L.source() == L);
}

} // namespace
