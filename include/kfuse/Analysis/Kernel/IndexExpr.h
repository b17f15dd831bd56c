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
#include <tuple>
#include <vector>

namespace kfuse {

/// What a symbol of an index expression stands for.
enum class SymbolKind {
  Param,     ///< A scalar parameter ("n"), or one shared by a chain ("scale.n").
  Opaque,    ///< Source text kfuse cannot put in this form.
  Loop,      ///< The iteration count of one canonical loop of one kernel.
  Builtin,   ///< threadIdx.x, blockIdx.y, blockDim.z, gridDim.x, ...
  ChainLoop, ///< A loop of a vertical chain, known by its start and step.
};

/// One symbol: its kind and what tells it apart from others of that kind.
class Symbol {
public:
  static Symbol builtin(std::string Name) { return {SymbolKind::Builtin, std::move(Name)}; }
  static Symbol param(std::string Name) { return {SymbolKind::Param, std::move(Name)}; }
  /// The \p Number th canonical loop of a kernel, over \p Variable.
  static Symbol loop(std::string Variable, unsigned Number) {
    return {SymbolKind::Loop, std::move(Variable), Number};
  }
  /// A chain's loop; \p Shape prints its start and step ("0 step blockDim.x").
  static Symbol chainLoop(std::string Shape) { return {SymbolKind::ChainLoop, std::move(Shape)}; }
  /// Text kfuse cannot put in this form; \p Unique keeps two of them apart.
  static Symbol opaque(std::string Text, unsigned Unique) {
    return {SymbolKind::Opaque, std::move(Text), Unique};
  }

  SymbolKind kind() const { return Kind; }
  const std::string &name() const { return Name; }
  /// A loop's iteration count, of one kernel or of a chain.
  bool isIteration() const { return Kind == SymbolKind::Loop || Kind == SymbolKind::ChainLoop; }
  /// As a user reads it: "n", "iter(i)", "(f(x))".
  std::string str() const;

  bool operator<(const Symbol &O) const {
    return std::tie(Kind, Name, Number) < std::tie(O.Kind, O.Name, O.Number);
  }
  bool operator==(const Symbol &O) const {
    return Kind == O.Kind && Name == O.Name && Number == O.Number;
  }
  bool operator!=(const Symbol &O) const { return !(*this == O); }

private:
  Symbol(SymbolKind Kind, std::string Name, unsigned Number = 0)
      : Kind(Kind), Name(std::move(Name)), Number(Number) {}
  SymbolKind Kind;
  std::string Name;
  unsigned Number;
};

class IndexExpr {
public:
  /// Symbols multiplied together, sorted; empty for the constant term.
  using Monomial = std::vector<Symbol>;

  IndexExpr() = default;
  static IndexExpr constant(int64_t Value);
  static IndexExpr symbol(const Symbol &S);

  IndexExpr operator+(const IndexExpr &O) const;
  IndexExpr operator-(const IndexExpr &O) const;
  IndexExpr operator*(const IndexExpr &O) const;
  bool operator==(const IndexExpr &O) const { return Terms == O.Terms; }
  bool operator!=(const IndexExpr &O) const { return !(*this == O); }

  std::optional<int64_t> asConstant() const;
  /// Whether no opaque symbol occurs.
  bool isPolynomial() const;
  bool mentions(const Symbol &S) const;
  /// The coefficient of \p Symbol in the terms of degree one in it: the
  /// expression is Result * Symbol + (terms without Symbol) when it is linear in it.
  std::optional<IndexExpr> linearCoefficient(const Symbol &S) const;
  /// Every symbol replaced by \p Rename's (which returns it unchanged to keep it).
  IndexExpr renamed(const std::function<Symbol(const Symbol &)> &Rename) const;
  /// Every occurrence of \p S replaced by \p Value.
  IndexExpr substituted(const Symbol &S, const IndexExpr &Value) const;
  const std::map<Monomial, int64_t> &terms() const { return Terms; }

  /// "256*blockIdx.x + threadIdx.x - 1", as a user reads it: terms of
  /// higher degree first, then in the order of their printed symbols.
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
  void assumeRange(const Symbol &S, const IndexExpr &Bound);
  void assumeNonNegative(const Symbol &S) { NonNegative.insert(S); }
  /// Whether Expr >= 0 follows: Expr is a known fact plus a constant of at
  /// least zero, or a sum of symbols with known ranges and positive
  /// coefficients plus a constant of at least zero.
  bool proves(const IndexExpr &Expr) const;
  bool proves(const IndexCondition &C) const { return C.Known && proves(C.Expr); }
  /// Known upper bound U of \p E (E < U), from the facts.
  std::optional<IndexExpr> boundOf(const IndexExpr &E) const;

private:
  std::vector<IndexExpr> Known; ///< Each >= 0.
  std::set<Symbol> NonNegative;
};

} // namespace kfuse

#endif
