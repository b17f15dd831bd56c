// The CPU references of the evaluation kernels (test/gpu/eval/reference.h)
// against published known answers: the GPU check trusts them to judge the
// kernels, so they are checked here where no GPU is needed.
#include "../gpu/eval/reference.h"

#include <gtest/gtest.h>

using namespace eval_ref;

namespace {

Bytes text(const char *S) { return Bytes(S, S + std::strlen(S)); }

TEST(EvalReferenceTest, Sha256MatchesFips180Example) {
  EXPECT_EQ(hex(sha256(text("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(EvalReferenceTest, Sha256dOfBitcoinGenesisHeader) {
  // Block 0's header; its hash, as block explorers print it byte-reversed, is
  // 000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f.
  Bytes Header = fromHex("01000000000000000000000000000000000000000000000000000000000000000000"
                         "00003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a"
                         "29ab5f49ffff001d1dac2b7c");
  ASSERT_EQ(Header.size(), 80u);
  EXPECT_EQ(hex(sha256(sha256(Header))),
            "6fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000");
}

TEST(EvalReferenceTest, Blake256MatchesSpecificationVectors) {
  EXPECT_EQ(hex(blake256(Bytes{0})),
            "0ce8d4ef4dd7cd8d62dfded9d4edb0a774ae6a41929a74da23109e8f11139c87");
  EXPECT_EQ(hex(blake256(Bytes(72, 0))),
            "d419bad32d504fb7d44d460c42c5593fe544fa4c135dec31e21bd9abdcc22d41");
}

TEST(EvalReferenceTest, Blake2bMatchesRfc7693) {
  EXPECT_EQ(hex(blake2b(text("abc"))),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  EXPECT_EQ(hex(blake2b(Bytes{})),
            "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
            "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce");
}

TEST(EvalReferenceTest, DeepLearningReferencesOnSmallCases) {
  std::vector<double> Mean, Var;
  batchNormStats({1, 2, 3, 4, 5, 6, 7, 8}, 2, 2, 2, Mean, Var); // Channel 0: 1 2 5 6.
  EXPECT_DOUBLE_EQ(Mean[0], 3.5);
  EXPECT_DOUBLE_EQ(Var[0], 4.25);
  EXPECT_EQ(histogram({0.0f, 0.5f, 1.0f, 2.0f, 0.25f}, 4, 0, 1),
            (std::vector<unsigned>{1, 1, 1, 1}));
  std::vector<float> Out;
  std::vector<int> Where;
  maxPool({1, 9, 3, 4, 5, 6, 7, 8, 2}, 1, 3, 3, 2, 2, Out, Where);
  EXPECT_EQ(Out, (std::vector<float>{9, 9, 8, 8}));
  EXPECT_EQ(Where, (std::vector<int>{1, 1, 7, 7}));
  EXPECT_EQ(upsampleBilinear({0, 4}, 1, 1, 2, 1, 4), (std::vector<double>{0, 1, 3, 4}));
  EXPECT_EQ(im2col({1, 2, 3, 4}, 1, 2, 2, 2, 2, 0, 1, 1, 1), (std::vector<float>{1, 2, 3, 4}));
}

} // namespace
