//===- IndexExpr.cpp - index expressions in a comparable normal form ------===//

#include "kfuse/Analysis/Kernel/IndexExpr.h"

#include <algorithm>

namespace kfuse {

IndexExpr IndexExpr::constant(int64_t Value) {
  IndexExpr E;
  E.add({}, Value);
  return E;
}

IndexExpr IndexExpr::symbol(const Symbol &S) {
  IndexExpr E;
  E.add({S}, 1);
  return E;
}

std::string Symbol::str() const {
  switch (Kind) {
  case SymbolKind::Opaque:
    return "(" + Name + ")";
  case SymbolKind::Loop:
  case SymbolKind::ChainLoop:
    return "iter(" + Name + ")";
  case SymbolKind::Param:
  case SymbolKind::Builtin:
    break;
  }
  return Name;
}

void IndexExpr::add(const Monomial &M, int64_t C) {
  if (C == 0)
    return;
  int64_t &Slot = Terms[M];
  Slot += C;
  if (Slot == 0)
    Terms.erase(M);
}

IndexExpr IndexExpr::operator+(const IndexExpr &O) const {
  IndexExpr R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, C);
  return R;
}

IndexExpr IndexExpr::operator-(const IndexExpr &O) const {
  IndexExpr R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, -C);
  return R;
}

IndexExpr IndexExpr::operator*(const IndexExpr &O) const {
  IndexExpr R;
  for (const auto &[A, CA] : Terms)
    for (const auto &[B, CB] : O.Terms) {
      Monomial M = A;
      M.insert(M.end(), B.begin(), B.end());
      std::sort(M.begin(), M.end());
      R.add(M, CA * CB);
    }
  return R;
}

std::optional<int64_t> IndexExpr::asConstant() const {
  if (Terms.empty())
    return 0;
  if (Terms.size() == 1 && Terms.begin()->first.empty())
    return Terms.begin()->second;
  return std::nullopt;
}

bool IndexExpr::isPolynomial() const {
  for (const auto &[M, C] : Terms)
    for (const Symbol &S : M)
      if (S.kind() == SymbolKind::Opaque)
        return false;
  return true;
}

bool IndexExpr::mentions(const Symbol &S) const {
  for (const auto &[M, C] : Terms)
    if (std::count(M.begin(), M.end(), S))
      return true;
  return false;
}

std::optional<IndexExpr> IndexExpr::linearCoefficient(const Symbol &S) const {
  IndexExpr R;
  for (const auto &[M, C] : Terms) {
    auto N = std::count(M.begin(), M.end(), S);
    if (N > 1)
      return std::nullopt;
    if (N == 1) {
      Monomial Rest = M;
      Rest.erase(std::find(Rest.begin(), Rest.end(), S));
      R.add(Rest, C);
    }
  }
  return R;
}

IndexExpr IndexExpr::renamed(const std::function<Symbol(const Symbol &)> &Rename) const {
  IndexExpr R;
  for (const auto &[M, C] : Terms) {
    Monomial N;
    for (const Symbol &S : M)
      N.push_back(Rename(S));
    std::sort(N.begin(), N.end());
    R.add(N, C);
  }
  return R;
}

IndexExpr IndexExpr::substituted(const Symbol &Old, const IndexExpr &Value) const {
  IndexExpr R;
  for (const auto &[M, C] : Terms) {
    IndexExpr Term = constant(C);
    for (const Symbol &S : M)
      Term = Term * (S == Old ? Value : symbol(S));
    R = R + Term;
  }
  return R;
}

std::string IndexExpr::str() const {
  if (Terms.empty())
    return "0";
  // Each term's factors as printed, in order; terms of higher degree
  // first, then by those factors; the constant last.
  std::vector<std::pair<std::vector<std::string>, int64_t>> Printed;
  for (const auto &[M, C] : Terms) {
    std::vector<std::string> Factors;
    for (const Symbol &S : M)
      Factors.push_back(S.str());
    std::sort(Factors.begin(), Factors.end());
    Printed.push_back({std::move(Factors), C});
  }
  std::sort(Printed.begin(), Printed.end(), [](const auto &A, const auto &B) {
    if (A.first.size() != B.first.size())
      return A.first.size() > B.first.size();
    return A.first < B.first;
  });
  std::string Out;
  for (const auto &[Factors, C] : Printed) {
    int64_t Abs = C < 0 ? -C : C;
    Out += Out.empty() ? (C < 0 ? "-" : "") : (C < 0 ? " - " : " + ");
    std::string Product;
    for (const std::string &F : Factors)
      Product += (Product.empty() ? "" : "*") + F;
    if (Product.empty())
      Out += std::to_string(Abs);
    else
      Out += (Abs == 1 ? "" : std::to_string(Abs) + "*") + Product;
  }
  return Out;
}

std::string IndexCondition::str() const { return Known ? Expr.str() + " >= 0" : Text; }

void Facts::assume(const IndexCondition &C) {
  if (C.Known)
    Known.push_back(C.Expr);
}

void Facts::assumeRange(const Symbol &S, const IndexExpr &Bound) {
  NonNegative.insert(S);
  Known.push_back(Bound - IndexExpr::symbol(S) - IndexExpr::constant(1));
}

bool Facts::proves(const IndexExpr &Expr) const {
  auto Provable = [&](const IndexExpr &E) {
    for (const auto &[M, C] : E.terms()) {
      if (M.empty()) {
        if (C < 0)
          return false;
        continue;
      }
      if (C < 0)
        return false;
      for (const Symbol &S : M)
        if (!NonNegative.count(S))
          return false;
    }
    return true;
  };
  if (Provable(Expr))
    return true;
  return std::any_of(Known.begin(), Known.end(),
                     [&](const IndexExpr &K) { return Provable(Expr - K); });
}

std::optional<IndexExpr> Facts::boundOf(const IndexExpr &E) const {
  for (const IndexExpr &K : Known) {
    IndexExpr Bound = K + E + IndexExpr::constant(1);
    bool Shares = false;
    for (const auto &[M, C] : E.terms())
      for (const Symbol &S : M)
        Shares |= Bound.mentions(S);
    if (!Shares)
      return Bound;
  }
  return std::nullopt;
}

} // namespace kfuse
