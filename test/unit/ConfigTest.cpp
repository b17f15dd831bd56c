// Unit tests of the config reader: the schema, defaults, and where problems point.
#include "kfuse/Config/Config.h"

#include <gtest/gtest.h>

#include <algorithm>

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

/// A config (by default the valid one) with one piece of text replaced.
ConfigResult parseEdited(const std::string &From, const std::string &To,
                         const std::string &Base = Valid) {
  std::string Text = Base;
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

TEST(Config, RefusesUnknownModes) {
  ConfigResult R = parseEdited("horizontal", "diagonal");
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, ID::ConfigUnsupportedMode);
}

TEST(Config, ReadsVerticalFlowsAndSameValues) {
  ConfigResult R = parseConfig(R"(kernels:
  - {name: a, file: k.cu, kernel: ka, block: [256]}
  - {name: b, file: k.cu, kernel: kb, block: [256]}
  - {name: c, file: k.cu, kernel: kc, block: [256]}
fusions:
  - name: ab
    mode: vertical
    kernels: [a, b]
    flows:
      - {from: a.out, to: b.in, temporary: true}
    same: [[a.n, b.count]]
  - name: beside
    kernels: [ab, c]
)",
                               "x.yaml");
  ASSERT_TRUE(R.Value) << R.Problems.size() << " problems";
  const kfuse::FusionSpec &AB = R.Value->Fusions[0];
  EXPECT_EQ(AB.Mode, kfuse::FusionMode::Vertical);
  ASSERT_EQ(AB.Flows.size(), 1u);
  EXPECT_EQ(AB.Flows[0].From.spelling(), "a.out");
  EXPECT_EQ(AB.Flows[0].To.spelling(), "b.in");
  EXPECT_TRUE(AB.Flows[0].Temporary);
  EXPECT_EQ(AB.Flows[0].To.Position.Line, 10u);
  ASSERT_EQ(AB.Same.size(), 1u);
  EXPECT_EQ(AB.Same[0][1].spelling(), "b.count");
  const kfuse::FusionSpec &Beside = R.Value->Fusions[1];
  EXPECT_EQ(Beside.Mode, kfuse::FusionMode::Horizontal);
  EXPECT_EQ(R.Value->kernelsOf(Beside), (std::vector<std::string>{"a", "b", "c"}));
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

const char *WithLaunch = R"(kernels:
  - name: a
    file: k.cu
    kernel: ka
    block: [256]
    launch:
      grid: [64, 2]
      shared_bytes: 1024
      args:
        - {buffer: float, count: 4096}
        - {buffer: int, count: 128, fill: zero}
        - {buffer: uint8, count: 16, fill: {uniform: [0, 4]}}
        - {buffer: double, count: 8, fill: {value: 2.5}}
        - {value: 4096}
        - {value: -0.5}
  - {name: b, file: k.cu, kernel: kb, block: [128]}
fusions:
  - name: ab
    kernels: [a, b]
    tune: {step: 64, samples: 40, tolerance: 0.001}
)";

ConfigResult parseLaunchEdited(const std::string &From, const std::string &To) {
  return parseEdited(From, To, WithLaunch);
}

// A number alone is a 1-D shape, as README says.
TEST(Config, ANumberAloneIsAOneDimensionalBlock) {
  ConfigResult R = parseEdited("block: [256]", "block: 256");
  ASSERT_TRUE(R.Value) << R.Problems.size();
  EXPECT_EQ(R.Value->Kernels[0].Block, (std::array<unsigned, 3>{256, 1, 1}));
  EXPECT_EQ(R.Value->Kernels[0].BlockRank, 1u);
}

// A key given twice is an error, not the first one winning.
TEST(Config, ADuplicateKeyIsAnError) {
  ConfigResult R = parseEdited("kernel: ka", "kernel: ka\n    kernel: kz");
  ASSERT_FALSE(R.Value);
  ASSERT_EQ(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems[0].Id, ID::ConfigDuplicateKey);
  EXPECT_EQ(R.Problems[0].Line, 5u);
}

TEST(ConfigLaunch, ReadsGridSharedMemoryBuffersAndValues) {
  ConfigResult R = parseConfig(WithLaunch, "x.yaml");
  ASSERT_TRUE(R.Value) << R.Problems.size() << " problems";
  const kfuse::KernelSpec &A = R.Value->Kernels[0];
  ASSERT_TRUE(A.Launch);
  EXPECT_EQ(A.Launch->Grid, (std::array<unsigned, 3>{64, 2, 1}));
  EXPECT_EQ(A.Launch->SharedBytes, 1024u);
  ASSERT_EQ(A.Launch->Args.size(), 6u);
  const auto &Args = A.Launch->Args;
  EXPECT_TRUE(Args[0].IsBuffer);
  EXPECT_EQ(Args[0].Type, kfuse::ElementType::F32);
  EXPECT_EQ(Args[0].Count, 4096u);
  EXPECT_EQ(Args[0].Fill.How, kfuse::BufferFill::Uniform);
  EXPECT_EQ(Args[0].Fill.Low, -1.0);
  EXPECT_EQ(Args[1].Type, kfuse::ElementType::I32);
  EXPECT_EQ(Args[1].Fill.How, kfuse::BufferFill::Constant);
  EXPECT_EQ(Args[1].Fill.Low, 0.0);
  EXPECT_EQ(Args[2].Fill.High, 4.0);
  EXPECT_EQ(Args[3].Fill.Low, 2.5);
  EXPECT_FALSE(Args[4].IsBuffer);
  EXPECT_EQ(Args[4].Value, "4096");
  EXPECT_EQ(Args[5].Value, "-0.5");
  EXPECT_FALSE(R.Value->Kernels[1].Launch);
  const kfuse::TuneSpec &T = R.Value->Fusions[0].Tune;
  EXPECT_EQ(T.Step, 64u);
  EXPECT_EQ(T.Samples, 40u);
  EXPECT_DOUBLE_EQ(T.Tolerance, 0.001);
}

TEST(ConfigLaunch, IntegerBuffersDefaultToSmallWholeNumbers) {
  ConfigResult R =
      parseLaunchEdited("{buffer: float, count: 4096}", "{buffer: int64, count: 4096}");
  ASSERT_TRUE(R.Value);
  const kfuse::BufferFill &F = R.Value->Kernels[0].Launch->Args[0].Fill;
  EXPECT_EQ(F.Low, 0.0);
  EXPECT_EQ(F.High, 100.0);
}

TEST(ConfigLaunch, ReportsEachBadArgument) {
  struct Case {
    const char *From, *To, *Key;
    ID Id;
  } Cases[] = {
      {"{buffer: float, count: 4096}", "{buffer: half, count: 4096}", "buffer", ID::ConfigBadValue},
      {"{buffer: float, count: 4096}", "{buffer: float, count: 0}", "count", ID::ConfigBadValue},
      {"{buffer: float, count: 4096}", "{buffer: float}", "a buffer argument",
       ID::ConfigMissingKey},
      {"{buffer: float, count: 4096}", "{buffer: float, count: 4, value: 1}", "an argument",
       ID::ConfigBadValue},
      {"{value: 4096}", "{value: lots}", "value", ID::ConfigBadValue},
      {"fill: zero", "fill: ones", "fill", ID::ConfigBadValue},
      {"{uniform: [0, 4]}", "{uniform: [4, 0]}", "fill", ID::ConfigBadValue},
      {"grid: [64, 2]", "grid: [64, 0]", "grid", ID::ConfigBadValue},
      {"grid: [64, 2]", "grid: [1, 2, 3, 4]", "grid", ID::ConfigBadValue},
      {"shared_bytes: 1024", "shared_bytes: -1", "shared_bytes", ID::ConfigBadValue},
      {"shared_bytes: 1024", "colour: red", "colour", ID::ConfigUnknownKey},
      {"step: 64", "step: 100", "step", ID::ConfigBadValue},
      {"samples: 40", "samples: 5", "samples", ID::ConfigBadValue},
      {"tolerance: 0.001", "tolerance: -1", "tolerance", ID::ConfigBadValue},
  };
  for (const Case &C : Cases) {
    ConfigResult R = parseLaunchEdited(C.From, C.To);
    EXPECT_FALSE(R.Value) << C.To;
    ASSERT_EQ(R.Problems.size(), 1u) << C.To;
    EXPECT_EQ(R.Problems[0].Id, C.Id) << C.To;
    const std::vector<std::string> &Args = R.Problems[0].Args;
    EXPECT_TRUE(std::find(Args.begin(), Args.end(), C.Key) != Args.end()) << C.To;
    EXPECT_GT(R.Problems[0].Line, 5u) << C.To;
  }
}

TEST(ConfigLaunch, LaunchNeedsArgs) {
  ConfigResult R = parseLaunchEdited("      args:\n", "      argz:\n");
  EXPECT_FALSE(R.Value);
  ASSERT_GE(R.Problems.size(), 1u);
  EXPECT_EQ(R.Problems.back().Id, ID::ConfigMissingKey);
}

} // namespace
