// The partitions and variants kfuse tune builds.
#include "kfuse/Tuning/VariantSpace.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using kfuse::TuneMember;
using Split = std::vector<unsigned>;

TEST(VariantSpace, TwoResizableKernelsSplit1024InSteps) {
  std::vector<TuneMember> M{{512, true}, {512, true}};
  EXPECT_EQ(kfuse::fusedThreads(M), 1024u);
  std::vector<Split> P = kfuse::partitions(M, 128);
  ASSERT_EQ(P.size(), 7u);
  EXPECT_EQ(P.front(), (Split{128, 896}));
  EXPECT_EQ(P.back(), (Split{896, 128}));
  // 7 splits without and with the bound, and the vertical reference: the
  // 14 + 1 variants the paper's search profiles; every split is whole
  // warpgroups, so each also has registers per warpgroup, and so do the
  // 1 + 3 + 5 splits of blocks of 256, 512 and 768 threads; the vertical
  // variant also with 4 blocks at a time.
  std::vector<kfuse::FusedLayout> V = kfuse::variantSpace(M, 128);
  ASSERT_EQ(V.size(), 32u);
  EXPECT_EQ(V[0].name(), "h128-896");
  EXPECT_FALSE(V[0].Registers == kfuse::RegisterPolicy::Bounded);
  EXPECT_EQ(V[1].name(), "h128-896-rb");
  EXPECT_TRUE(V[1].Registers == kfuse::RegisterPolicy::Bounded);
  EXPECT_EQ(V[2].name(), "h128-896-wr");
  EXPECT_TRUE(V[2].Registers == kfuse::RegisterPolicy::PerWarpgroup);
  EXPECT_FALSE(V[2].Registers == kfuse::RegisterPolicy::Bounded);
  EXPECT_TRUE(V.back().Vertical);
  EXPECT_EQ(V.back().Threads, (Split{512, 512}));
  EXPECT_EQ(V.back().name(), "vertical-k4");
  EXPECT_EQ(V.back().BlocksPerIteration, 4u);
}

// Registers per warpgroup need every kernel's part in whole warpgroups, side
// by side: on the grid as launched and on a persistent one, not where one
// kernel runs at a time (nor on the dynamic grid, to keep the space small).
TEST(VariantSpace, WarpgroupRegistersOnlyForWholeWarpgroups) {
  std::vector<TuneMember> M{{512, true}, {512, true}};
  std::vector<kfuse::FusedLayout> V = kfuse::variantSpace(
      M, 64,
      {kfuse::GridMode::AsLaunched, kfuse::GridMode::Persistent, kfuse::GridMode::Proportional});
  auto Has = [&](const std::string &Name) {
    return std::any_of(V.begin(), V.end(),
                       [&](const kfuse::FusedLayout &X) { return X.name() == Name; });
  };
  EXPECT_TRUE(Has("h384-640-wr"));
  EXPECT_FALSE(Has("h448-576-wr")); // 448 is 3.5 warpgroups.
  EXPECT_TRUE(Has("h384-640-p-wr"));
  EXPECT_FALSE(Has("h384-640-p2-wr"));
  for (const kfuse::FusedLayout &X : V) {
    if (X.Registers == kfuse::RegisterPolicy::PerWarpgroup) {
      EXPECT_NE(X.Grid, kfuse::GridMode::Proportional) << X.name();
      EXPECT_FALSE(X.Registers == kfuse::RegisterPolicy::Bounded) << X.name();
      for (unsigned T : X.Threads)
        EXPECT_EQ(T % 128, 0u) << X.name();
    }
  }
}

// A smaller block than the kernels' own can fit one more block's registers:
// registers per warpgroup are also tried on blocks of 256 and 512 threads
// for a pair whose blocks add up to 768, every split in whole warpgroups.
TEST(VariantSpace, WarpgroupRegistersOnSmallerBlocks) {
  std::vector<TuneMember> M{{512, true}, {256, true}};
  std::vector<kfuse::FusedLayout> V = kfuse::variantSpace(M, 128, {kfuse::GridMode::Persistent});
  std::vector<std::string> Smaller;
  for (const kfuse::FusedLayout &X : V) {
    unsigned Sum = 0;
    for (unsigned T : X.Threads)
      Sum += T;
    if (!X.Vertical && Sum < 768) {
      EXPECT_TRUE(X.Registers == kfuse::RegisterPolicy::PerWarpgroup) << X.name();
      Smaller.push_back(X.name());
    }
  }
  EXPECT_EQ(Smaller, (std::vector<std::string>{"h128-128-p-wr", "h128-384-p-wr", "h256-256-p-wr",
                                               "h384-128-p-wr"}));
}

// A proportional grid runs each kernel on its own block: one variant, with
// and without the bound, and no vertical variant of that grid.
TEST(VariantSpace, ProportionalGridKeepsEachKernelsBlock) {
  std::vector<TuneMember> M{{512, true}, {256, false}};
  std::vector<kfuse::FusedLayout> V =
      kfuse::variantSpace(M, 256, {kfuse::GridMode::AsLaunched, kfuse::GridMode::Proportional});
  auto Named = [&](const std::string &Name) {
    return std::find_if(V.begin(), V.end(),
                        [&](const kfuse::FusedLayout &X) { return X.name() == Name; });
  };
  auto P = Named("proportional");
  ASSERT_NE(P, V.end());
  EXPECT_EQ(P->Threads, (Split{512, 256}));
  EXPECT_EQ(P->Grid, kfuse::GridMode::Proportional);
  EXPECT_TRUE(P->stacked());
  EXPECT_FALSE(P->Vertical);
  ASSERT_NE(Named("proportional-rb"), V.end());
  EXPECT_TRUE(Named("proportional-rb")->Registers == kfuse::RegisterPolicy::Bounded);
  EXPECT_EQ(std::count_if(V.begin(), V.end(),
                          [](const kfuse::FusedLayout &X) {
                            return X.Grid == kfuse::GridMode::Proportional;
                          }),
            2);
  EXPECT_EQ(V[V.size() - 2].name(), "vertical");
  EXPECT_EQ(V.back().name(), "vertical-k4");
}

// A persistent grid is tried with one to four waves of blocks, each
// without and with the bound; the other grids with one.
TEST(VariantSpace, PersistentGridTriesUpToFourWaves) {
  std::vector<TuneMember> M{{256, false}, {512, true}};
  std::vector<kfuse::FusedLayout> V =
      kfuse::variantSpace(M, 256, {kfuse::GridMode::Persistent, kfuse::GridMode::Dynamic});
  std::vector<std::string> Names;
  for (const kfuse::FusedLayout &X : V)
    Names.push_back(X.name() + ":" + std::to_string(X.Waves));
  EXPECT_EQ(Names, (std::vector<std::string>{"h256-512-p:1", "h256-512-p-rb:1", "h256-512-p-wr:1",
                                             "h256-512-p2:2", "h256-512-p2-rb:2", "h256-512-p3:3",
                                             "h256-512-p3-rb:3", "h256-512-p4:4",
                                             "h256-512-p4-rb:4", "h256-512-d:1", "h256-512-d-rb:1",
                                             "h256-256-p-wr:1", "vertical-p:1", "vertical-d:1"}));
  EXPECT_TRUE(V[4].Registers == kfuse::RegisterPolicy::Bounded);
}

// Where a kernel has a tree reduction, each split (with every number of
// waves) and the vertical variant are also tried with the reductions in one
// warp, without a bound; where none has, never.
TEST(VariantSpace, OneWarpReductionsOnlyWhereAKernelHasATree) {
  std::vector<TuneMember> M{{256, false}, {512, true, /*TreeReduction=*/true}};
  std::vector<std::string> Names;
  for (const kfuse::FusedLayout &X : kfuse::variantSpace(M, 256, {kfuse::GridMode::Persistent}))
    Names.push_back(X.name());
  EXPECT_EQ(Names, (std::vector<std::string>{
                       "h256-512-p", "h256-512-p-rb", "h256-512-p-ow", "h256-512-p-wr",
                       "h256-512-p2", "h256-512-p2-rb", "h256-512-p2-ow", "h256-512-p3",
                       "h256-512-p3-rb", "h256-512-p3-ow", "h256-512-p4", "h256-512-p4-rb",
                       "h256-512-p4-ow", "h256-256-p-wr", "vertical-p", "vertical-p-ow"}));
  M[1].TreeReduction = false;
  for (const kfuse::FusedLayout &X : kfuse::variantSpace(M, 256, {kfuse::GridMode::Persistent}))
    EXPECT_EQ(X.Reductions, kfuse::ReductionStyle::AsWritten) << X.name();
}

// Where kernels are elementwise, each split on a persistent grid (with every
// number of waves) is also tried with each such kernel's range, and all of
// theirs, running 2 and 4 blocks per iteration; never on other grids.
TEST(VariantSpace, CoarsenedVariantsOnlyWhereAKernelIsElementwise) {
  std::vector<TuneMember> M{{128, false}, {512, false}};
  M[0].Elementwise = M[1].Elementwise = true;
  std::vector<std::string> Names;
  for (const kfuse::FusedLayout &X : kfuse::variantSpace(M, 128, {kfuse::GridMode::Persistent}))
    if (!X.Coarsen.empty())
      Names.push_back(X.name());
  // On 4 waves with the compiler's registers, then with registers per warpgroup.
  EXPECT_EQ(Names, (std::vector<std::string>{"h128-512-p4-c4x1", "h128-512-p4-c1x4",
                                             "h128-512-p4-c4x4", "h128-512-p-c4x1-wr",
                                             "h128-512-p-c1x4-wr", "h128-512-p-c4x4-wr"}));
  M[1].Elementwise = false;
  size_t Coarsened = 0;
  for (const kfuse::FusedLayout &X : kfuse::variantSpace(M, 128, {kfuse::GridMode::Persistent}))
    if (!X.Coarsen.empty()) {
      ++Coarsened;
      EXPECT_EQ(X.Coarsen, (std::vector<unsigned>{X.Coarsen[0], 1})) << X.name();
    }
  EXPECT_EQ(Coarsened, 2u); // 4 waves and per warpgroup, 4 blocks.
  for (const kfuse::FusedLayout &X : kfuse::variantSpace(M, 128, {kfuse::GridMode::AsLaunched}))
    EXPECT_TRUE(X.Coarsen.empty()) << X.name();
}

TEST(VariantSpace, FinerStepsGiveMoreSplits) {
  std::vector<TuneMember> M{{512, true}, {512, true}};
  EXPECT_EQ(kfuse::partitions(M, 32).size(), 31u);
  EXPECT_TRUE(kfuse::partitions(M, 48).empty());
}

TEST(VariantSpace, FixedKernelsKeepTheirBlocks) {
  std::vector<TuneMember> M{{256, false}, {512, true}};
  EXPECT_EQ(kfuse::fusedThreads(M), 768u);
  EXPECT_EQ(kfuse::partitions(M, 128), (std::vector<Split>{{256, 512}}));
  std::vector<TuneMember> Three{{256, true}, {128, false}, {256, true}};
  EXPECT_EQ(kfuse::partitions(Three, 128),
            (std::vector<Split>{{128, 128, 384}, {256, 128, 256}, {384, 128, 128}}));
}

TEST(VariantSpace, AllFixedIsOneSplit) {
  std::vector<TuneMember> M{{256, false}, {384, false}};
  EXPECT_EQ(kfuse::partitions(M, 128), (std::vector<Split>{{256, 384}}));
}

TEST(VariantSpace, ResizableKernelsShareAtMost1024) {
  std::vector<TuneMember> M{{1024, true}, {512, true}};
  EXPECT_EQ(kfuse::fusedThreads(M), 1024u);
  EXPECT_EQ(kfuse::partitions(M, 256).size(), 3u);
}

TEST(VariantSpace, EvenSplitIsWhatKfuseFuseEmits) {
  std::vector<TuneMember> Two{{512, true}, {512, true}};
  EXPECT_EQ(kfuse::evenSplit(Two), (Split{512, 512}));
  std::vector<TuneMember> Three{{512, true}, {512, true}, {512, true}};
  // 32 warps shared by 3 kernels: the earlier kernels take the remainder.
  EXPECT_EQ(kfuse::evenSplit(Three), (Split{352, 352, 320}));
  std::vector<TuneMember> Fixed{{256, false}, {512, true}};
  EXPECT_EQ(kfuse::evenSplit(Fixed), (Split{256, 512}));
}

TEST(VariantSpace, EvenSplitIsMeasuredWhereTheStepMissesIt) {
  std::vector<TuneMember> Three{{512, true}, {512, true}, {512, true}};
  std::vector<kfuse::FusedLayout> V = kfuse::variantSpace(Three, 256);
  // Splits of 1024 in steps of 256: 3 of them, plus the even split, each
  // twice, the 3 of whole warpgroups also with registers per warpgroup,
  // then registers per warpgroup on the 3 splits of 512 threads and the 10
  // of 768 in steps of 128, and the vertical variant, one block and 4
  // blocks at a time.
  ASSERT_EQ(V.size(), 26u);
  EXPECT_EQ(V[6].name(), "h352-352-320");
  EXPECT_EQ(V[7].name(), "h352-352-320-rb");
  // Where the step hits it, it is not measured twice.
  EXPECT_EQ(kfuse::variantSpace({{512, true}, {512, true}}, 128).size(), 32u);
}

} // namespace
