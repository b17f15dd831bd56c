// Unit tests of the grid mode kfuse chooses when the config names none.
#include "kfuse/Plan/GridChoice.h"

#include <gtest/gtest.h>

#include <string>

using kfuse::chooseGrid;
using kfuse::Config;
using kfuse::GridChoice;
using kfuse::GridMode;

namespace {

/// A config of kernels a (any grid), b (any grid) and c (its own grid),
/// fusing \p Kernels with the fusion's text \p Extra appended.
Config configOf(const std::string &Kernels, const std::string &Extra = "") {
  std::string Text = "kernels:\n"
                     "  - {name: a, file: k.cu, kernel: ka, block: [64], any_grid: true}\n"
                     "  - {name: b, file: k.cu, kernel: kb, block: [64], any_grid: true}\n"
                     "  - {name: c, file: k.cu, kernel: kc, block: [64]}\n"
                     "fusions:\n"
                     "  - {name: f, kernels: [" +
                     Kernels + "]" + Extra + "}\n";
  kfuse::ConfigResult R = kfuse::parseConfig(Text, "x.yaml");
  EXPECT_TRUE(R.Problems.empty());
  return *R.Value;
}

TEST(GridChoice, PersistentWhenEveryKernelWorksWithAnyGrid) {
  Config C = configOf("a, b");
  GridChoice G = chooseGrid(C, C.Fusions[0]);
  EXPECT_EQ(G.Mode, GridMode::Persistent);
  EXPECT_TRUE(G.Default);
}

TEST(GridChoice, AsLaunchedWhenOneKernelNeedsItsGrid) {
  Config C = configOf("a, c");
  GridChoice G = chooseGrid(C, C.Fusions[0]);
  EXPECT_EQ(G.Mode, GridMode::AsLaunched);
  EXPECT_TRUE(G.Default);
}

// A kernel that waits for another block keeps the grid as launched, even
// where every kernel works with any grid.
TEST(GridChoice, AsLaunchedWhenAKernelWaitsForAnotherBlock) {
  Config C = configOf("a, b");
  GridChoice G = chooseGrid(C, C.Fusions[0], /*BlocksWait=*/true);
  EXPECT_EQ(G.Mode, GridMode::AsLaunched);
  EXPECT_TRUE(G.Default);
}

TEST(GridChoice, AsLaunchedForAVerticalFusion) {
  Config C = configOf("a, b", ", mode: vertical");
  EXPECT_EQ(chooseGrid(C, C.Fusions[0]).Mode, GridMode::AsLaunched);
}

TEST(GridChoice, TheConfigsGridWins) {
  Config C = configOf("a, b", ", grid: dynamic");
  GridChoice G = chooseGrid(C, C.Fusions[0]);
  EXPECT_EQ(G.Mode, GridMode::Dynamic);
  EXPECT_FALSE(G.Default);
}

} // namespace
