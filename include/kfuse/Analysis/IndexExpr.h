//===- IndexExpr.h - index expressions in a comparable normal form -*- C++ -*-===//
//
// The element a memory access touches, as a polynomial with integer
// coefficients over symbols: the built-in variables, the kernel's scalar
// parameters and the iteration counts of its loops. Two kernels' accesses
// are compared in this form after macros are expanded and locals are
// replaced by what they hold. A part that is no polynomial (a call, a
// division, a value read from memory) becomes an opaque symbol that equals
// nothing but itself, so a comparison that meets one proves nothing.
// Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_INDEXEXPR_H
#define KFUSE_ANALYSIS_INDEXEXPR_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

class IndexExpr {
public:
  /// Symbols multiplied together, sorted; empty for the constant term.
  using Monomial = std::vector<std::string>;

  IndexExpr() = default;
  static IndexExpr constant(int64_t Value);
  static IndexExpr symbol(const std::string &Name);
  /// A symbol that stands for source text kfuse cannot put in this form.
  /// Opaque symbols start with '?'; \p Unique keeps two of them apart.
  static IndexExpr opaque(const std::string &Text, unsigned Unique);

  IndexExpr operator+(const IndexExpr &O) const;
  IndexExpr operator-(const IndexExpr &O) const;
  IndexExpr operator*(const IndexExpr &O) const;
  bool operator==(const IndexExpr &O) const { return Terms == O.Terms; }
  bool operator!=(const IndexExpr &O) const { return !(*this == O); }

  std::optional<int64_t> asConstant() const;
  /// Whether no opaque symbol occurs.
  bool isPolynomial() const;
  bool mentions(const std::string &Symbol) const;
  /// The coefficient of \p Symbol in the terms of degree one in it: the
  /// expression is Result * Symbol + (terms without Symbol) when it is linear in it.
  std::optional<IndexExpr> linearCoefficient(const std::string &Symbol) const;
  /// Every symbol renamed by \p Rename (which returns the name unchanged to keep it).
  IndexExpr renamed(const std::function<std::string(const std::string &)> &Rename) const;
  /// Every occurrence of \p Symbol replaced by \p Value.
  IndexExpr substituted(const std::string &Symbol, const IndexExpr &Value) const;
  const std::map<Monomial, int64_t> &terms() const { return Terms; }

  /// "256*blockIdx.x + threadIdx.x - 1"; opaque symbols print their text.
  std::string str() const;

private:
  std::map<Monomial, int64_t> Terms; ///< Never holds a zero coefficient.
  void add(const Monomial &M, int64_t C);
};

/// A condition an access runs under, as Expr >= 0 over integers; or a
/// condition kfuse cannot put in that form, kept as its source text.
struct IndexCondition {
  IndexExpr Expr;
  bool Known = true;
  std::string Text;
  std::string str() const;
};

/// What is known to hold: conditions and the ranges of the symbols.
class Facts {
public:
  void assume(const IndexCondition &C);
  /// 0 <= Symbol < Bound.
  void assumeRange(const std::string &Symbol, const IndexExpr &Bound);
  void assumeNonNegative(const std::string &Symbol) { NonNegative.insert(Symbol); }
  /// Whether Expr >= 0 follows: Expr is a known fact plus a constant of at
  /// least zero, or a sum of symbols with known ranges and positive
  /// coefficients plus a constant of at least zero.
  bool proves(const IndexExpr &Expr) const;
  bool proves(const IndexCondition &C) const { return C.Known && proves(C.Expr); }
  /// Known upper bound U of \p E (E < U), from the facts.
  std::optional<IndexExpr> boundOf(const IndexExpr &E) const;

private:
  std::vector<IndexExpr> Known; ///< Each >= 0.
  std::set<std::string> NonNegative;
};

} // namespace kfuse

#endif
