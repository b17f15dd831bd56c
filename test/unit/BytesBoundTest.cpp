//===- BytesBoundTest.cpp - what a vertical chain can gain in bytes -------===//

#include "kfuse/Tuning/Evaluation.h"

#include <gtest/gtest.h>

using kfuse::BufferTraffic;
using kfuse::FlowSpec;

namespace {

FlowSpec flow(const char *FromKernel, const char *FromParam, const char *ToKernel,
              const char *ToParam, bool Temporary) {
  FlowSpec F;
  F.From.Kernel = FromKernel;
  F.From.Param = FromParam;
  F.To.Kernel = ToKernel;
  F.To.Param = ToParam;
  F.Temporary = Temporary;
  return F;
}

constexpr uint64_t N = 64 << 20; // A buffer's bytes.

} // namespace

// The Quick start's time step: flux reads u and writes f, update reads f
// and updates u. Both flows stay in memory: the fused kernel loads u once
// and stores u and f once (3N of the originals' 5N).
TEST(BytesBound, FlowsThroughMemory) {
  std::vector<BufferTraffic> T{{"flux", "u", N, true, false},
                               {"flux", "f", N, false, true},
                               {"update", "u", N, true, true},
                               {"update", "f", N, true, false}};
  auto B = kfuse::bytesBound(
      T, {flow("flux", "u", "update", "u", false), flow("flux", "f", "update", "f", false)});
  ASSERT_TRUE(B);
  EXPECT_EQ(B->Original, 5 * N);
  EXPECT_EQ(B->Fused, 3 * N);
}

// scale -> bias -> activate with both intermediates in registers: the
// fused kernel reads x and writes out (2N of 6N).
TEST(BytesBound, TemporariesMoveNothing) {
  std::vector<BufferTraffic> T{{"scale", "x", N, true, false}, {"scale", "y", N, false, true},
                               {"bias", "in", N, true, false}, {"bias", "out", N, false, true},
                               {"act", "in", N, true, false},  {"act", "out", N, false, true}};
  auto B = kfuse::bytesBound(
      T, {flow("scale", "y", "bias", "in", true), flow("bias", "out", "act", "in", true)});
  ASSERT_TRUE(B);
  EXPECT_EQ(B->Original, 6 * N);
  EXPECT_EQ(B->Fused, 2 * N);
  EXPECT_DOUBLE_EQ(B->ratio(), 3.0);
}

// Nothing moves: no bound.
TEST(BytesBound, NoTrafficNoBound) { EXPECT_FALSE(kfuse::bytesBound({}, {})); }
