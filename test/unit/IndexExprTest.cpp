// Index expressions keep one normal form, so two kernels' indices compare
// equal exactly when they are the same polynomial; facts prove the bounds
// the vertical legality proof needs and nothing more.
#include "kfuse/Analysis/Kernel/IndexExpr.h"

#include <gtest/gtest.h>

namespace kfuse {
namespace {

// Built-in variables by their CUDA names; anything else is a parameter.
Symbol name(const std::string &S) {
  return S.find('.') != std::string::npos ? Symbol::builtin(S) : Symbol::param(S);
}
IndexExpr sym(const std::string &S) { return IndexExpr::symbol(name(S)); }
IndexExpr num(int64_t V) { return IndexExpr::constant(V); }

TEST(IndexExprTest, SumsAndProductsHaveOneNormalForm) {
  IndexExpr A = sym("blockIdx.x") * num(256) + sym("threadIdx.x");
  IndexExpr B = sym("threadIdx.x") + num(128) * sym("blockIdx.x") * num(2);
  EXPECT_EQ(A, B);
  EXPECT_EQ(A.str(), "256*blockIdx.x + threadIdx.x");
  EXPECT_EQ((A - A).asConstant(), 0);
  IndexExpr Row = (sym("r") + num(1)) * sym("W");
  EXPECT_EQ(Row.str(), "W*r + W");
  EXPECT_NE(Row, sym("W") * sym("r"));
}

TEST(IndexExprTest, OpaqueSymbolsEqualOnlyThemselves) {
  IndexExpr A = IndexExpr::symbol(Symbol::opaque("f(i)", 0));
  IndexExpr B = IndexExpr::symbol(Symbol::opaque("f(i)", 1));
  EXPECT_NE(A, B);
  EXPECT_FALSE(A.isPolynomial());
  EXPECT_TRUE((sym("i") * num(2)).isPolynomial());
  EXPECT_EQ((A + num(1)).str(), "(f(i)) + 1");
}

TEST(IndexExprTest, LinearCoefficientAndSubstitution) {
  IndexExpr E = sym("W") * sym("ty") + sym("tx") + num(3);
  EXPECT_EQ(*E.linearCoefficient(name("ty")), sym("W"));
  EXPECT_EQ(*E.linearCoefficient(name("tx")), num(1));
  EXPECT_EQ(*E.linearCoefficient(name("bx")), IndexExpr());
  EXPECT_FALSE((sym("tx") * sym("tx")).linearCoefficient(name("tx")));
  EXPECT_EQ(E.substituted(name("tx"), sym("tx") + num(1)), E + num(1));
  EXPECT_EQ(E.renamed([](const Symbol &S) { return S == name("W") ? name("H") : S; }),
            sym("H") * sym("ty") + sym("tx") + num(3));
}

TEST(IndexExprTest, FactsProveShiftsInsideKnownRanges) {
  Facts F;
  F.assumeRange(name("tx"), num(256));
  // threadIdx.x > 0 and threadIdx.x < 255, as tx - 1 >= 0 and 254 - tx >= 0.
  F.assume({sym("tx") - num(1), true, "tx > 0"});
  F.assume({num(254) - sym("tx"), true, "tx < 255"});
  EXPECT_TRUE(F.proves(sym("tx") - num(1)));              // tx - 1 stays in the block
  EXPECT_TRUE(F.proves(num(255) - (sym("tx") + num(1)))); // and so does tx + 1
  EXPECT_FALSE(F.proves(num(255) - (sym("tx") + num(2))));
  EXPECT_FALSE(F.proves(sym("tx") - num(2)));
  EXPECT_TRUE(F.proves(sym("tx") * num(3) + num(1))); // non-negative symbols
  EXPECT_FALSE(F.proves({IndexExpr(), false, "f(x) > 0"}));
}

TEST(IndexExprTest, BoundsComeFromGuardsNotFromTheExpressionItself) {
  Facts F;
  F.assumeRange(name("bx"), sym("gridDim.x"));
  IndexExpr Col = num(16) * sym("bx") + sym("tx");
  F.assume({sym("W") - Col - num(1), true, "col < W"});
  ASSERT_TRUE(F.boundOf(Col));
  EXPECT_EQ(*F.boundOf(Col), sym("W"));
  EXPECT_FALSE(F.boundOf(sym("ty")));
}

TEST(IndexExprTest, SymbolsOfDifferentKindsNeverMeet) {
  // A parameter named like a loop's variable, and two loops over one
  // variable, are different symbols: kinds are no prefixes to collide.
  EXPECT_NE(IndexExpr::symbol(Symbol::param("i")), IndexExpr::symbol(Symbol::loop("i", 0)));
  EXPECT_NE(IndexExpr::symbol(Symbol::loop("i", 0)), IndexExpr::symbol(Symbol::loop("i", 1)));
  EXPECT_EQ(IndexExpr::symbol(Symbol::loop("i", 0)).str(), "iter(i)");
  EXPECT_EQ(IndexExpr::symbol(Symbol::chainLoop("0 step blockDim.x")).str(),
            "iter(0 step blockDim.x)");
  EXPECT_TRUE(Symbol::chainLoop("0 step 1").isIteration());
  EXPECT_FALSE(Symbol::param("iter").isIteration());
  // Printed in the order a reader scans them, whatever the kinds.
  IndexExpr E = sym("threadIdx.x") + IndexExpr::symbol(Symbol::loop("c", 0)) * sym("blockDim.x") +
                sym("cols") * sym("blockIdx.x");
  EXPECT_EQ(E.str(), "blockDim.x*iter(c) + blockIdx.x*cols + threadIdx.x");
}

} // namespace
} // namespace kfuse
