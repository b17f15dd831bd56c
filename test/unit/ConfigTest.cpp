// Unit tests of the config reader: the schema, defaults, and where problems point.
#include "kfuse/Config/Config.h"

#include <gtest/gtest.h>

using kfuse::ConfigResult;
using kfuse::parseConfig;
using kfuse::diag::ID;

namespace {

const char *Valid = R"(kernels:
  - name: a
    file: k.cu
    kernel: ka
    block: [256]
    any_block_size: true
  - name: b
    file: ../src/k.cu
    kernel: ns::kb
    block: [16, 16]
fusions:
  - name: ab
    mode: horizontal
    kernels: [a, b]
    partition: [768, 256]
)";

/// The valid config with one piece of text replaced.
ConfigResult parseEdited(const std::string &From, const std::string &To) {
  std::string Text = Valid;
  Text.replace(Text.find(From), From.size(), To);
  return parseConfig(Text, "x.yaml");
}

TEST(Config, ReadsKernelsAndFusions) {
  ConfigResult R = parseConfig(Valid, "configs/x.yaml");
  ASSERT_TRUE(R.Value) << R.Problems.size() << " problems";
  const kfuse::Config &C = *R.Value;
  ASSERT_EQ(C.Kernels.size(), 2u);
  EXPECT_EQ(C.Kernels[0].ResolvedFile, "configs/k.cu");
  EXPECT_EQ(C.Kernels[1].ResolvedFile, "src/k.cu");
  EXPECT_TRUE(C.Kernels[0].AnyBlockSize);
  EXPECT_FALSE(C.Kernels[1].AnyBlockSize);
  EXPECT_EQ(C.Kernels[1].blockThreads(), 256u);
  EXPECT_EQ(C.Kernels[1].BlockRank, 2u);
  ASSERT_EQ(C.Fusions.size(), 1u);
  EXPECT_EQ(C.Fusions[0].Partition, (std::vector<unsigned>{768, 256}));
  EXPECT_EQ(C.Fusions[0].Position.Line, 12u);
}

TEST(Config, ReportsEveryProblemWithItsPosition) {
  ConfigResult R = parseConfig(R"(kernels:
  - name: a
    file: k.cu
    kernel: ka
    block: [0]
    colour: red
fusions:
  - name: f
    kernels: [a, zz]
)",
                               "x.yaml");
  EXPECT_FALSE(R.Value);
  ASSERT_EQ(R.Problems.size(), 3u);
  EXPECT_EQ(R.Problems[0].Id, ID::ConfigUnknownKey);
  EXPECT_EQ(R.Problems[0].Line, 6u);
  EXPECT_EQ(R.Problems[1].Id, ID::ConfigBadValue);
  EXPECT_EQ(R.Problems[1].Line, 5u);
  EXPECT_EQ(R.Problems[2].Id, ID::ConfigUnknownKernel);
  EXPECT_EQ(R.Problems[2].Line, 9u);
}

TEST(Config, RejectsMalformedYaml) {
  ConfigResult R = parseConfig("kernels: [a, b\nfusions: {", "x.yaml");
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, ID::ConfigSyntax);
  EXPECT_GT(R.Problems[0].Line, 0u);
}

TEST(Config, RefusesVerticalModeForNow) {
  ConfigResult R = parseEdited("horizontal", "vertical");
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, ID::ConfigUnsupportedMode);
}

TEST(Config, ResizableKernelsMustBeOneDimensional) {
  ConfigResult R = parseEdited("block: [16, 16]", "block: [16, 16]\n    any_block_size: true");
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, ID::ConfigBadValue);
  EXPECT_EQ(R.Problems[0].Args[0], "any_block_size");
}

TEST(Config, AFusionNamesEachEntryOnce) {
  ConfigResult R = parseEdited("[a, b]", "[a, a]");
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, ID::ConfigRepeatedKernel);
}

} // namespace
