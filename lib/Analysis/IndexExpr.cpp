//===- IndexExpr.cpp - index expressions in a comparable normal form ------===//

#include "kfuse/Analysis/IndexExpr.h"

#include <algorithm>

namespace kfuse {

IndexExpr IndexExpr::constant(int64_t Value) {
  IndexExpr E;
  E.add({}, Value);
  return E;
}

IndexExpr IndexExpr::symbol(const std::string &Name) {
  IndexExpr E;
  E.add({Name}, 1);
  return E;
}

IndexExpr IndexExpr::opaque(const std::string &Text, unsigned Unique) {
  return symbol("?" + std::to_string(Unique) + ":" + Text);
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
    for (const std::string &S : M)
      if (!S.empty() && S[0] == '?')
        return false;
  return true;
}

bool IndexExpr::mentions(const std::string &Symbol) const {
  for (const auto &[M, C] : Terms)
    if (std::count(M.begin(), M.end(), Symbol))
      return true;
  return false;
}

std::optional<IndexExpr> IndexExpr::linearCoefficient(const std::string &Symbol) const {
  IndexExpr R;
  for (const auto &[M, C] : Terms) {
    auto N = std::count(M.begin(), M.end(), Symbol);
    if (N > 1)
      return std::nullopt;
    if (N == 1) {
      Monomial Rest = M;
      Rest.erase(std::find(Rest.begin(), Rest.end(), Symbol));
      R.add(Rest, C);
    }
  }
  return R;
}

IndexExpr
IndexExpr::renamed(const std::function<std::string(const std::string &)> &Rename) const {
  IndexExpr R;
  for (const auto &[M, C] : Terms) {
    Monomial N;
    for (const std::string &S : M)
      N.push_back(Rename(S));
    std::sort(N.begin(), N.end());
    R.add(N, C);
  }
  return R;
}

IndexExpr IndexExpr::substituted(const std::string &Symbol, const IndexExpr &Value) const {
  IndexExpr R;
  for (const auto &[M, C] : Terms) {
    IndexExpr Term = constant(C);
    for (const std::string &S : M)
      Term = Term * (S == Symbol ? Value : symbol(S));
    R = R + Term;
  }
  return R;
}

namespace {

std::string printSymbol(const std::string &S) {
  if (!S.empty() && S[0] == '?')
    return "(" + S.substr(S.find(':') + 1) + ")";
  return S;
}

} // namespace

std::string IndexExpr::str() const {
  if (Terms.empty())
    return "0";
  // Terms of higher degree first, then by name; the constant last.
  std::vector<std::pair<Monomial, int64_t>> Sorted(Terms.begin(), Terms.end());
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const auto &A, const auto &B) {
    return A.first.size() > B.first.size();
  });
  std::string Out;
  for (const auto &[M, C] : Sorted) {
    int64_t Abs = C < 0 ? -C : C;
    Out += Out.empty() ? (C < 0 ? "-" : "") : (C < 0 ? " - " : " + ");
    std::string Factors;
    for (const std::string &S : M)
      Factors += (Factors.empty() ? "" : "*") + printSymbol(S);
    if (Factors.empty())
      Out += std::to_string(Abs);
    else
      Out += (Abs == 1 ? "" : std::to_string(Abs) + "*") + Factors;
  }
  return Out;
}

std::string IndexCondition::str() const { return Known ? Expr.str() + " >= 0" : Text; }

void Facts::assume(const IndexCondition &C) {
  if (C.Known)
    Known.push_back(C.Expr);
}

void Facts::assumeRange(const std::string &Symbol, const IndexExpr &Bound) {
  NonNegative.insert(Symbol);
  Known.push_back(Bound - IndexExpr::symbol(Symbol) - IndexExpr::constant(1));
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
      for (const std::string &S : M)
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
      for (const std::string &S : M)
        Shares |= Bound.mentions(S);
    if (!Shares)
      return Bound;
  }
  return std::nullopt;
}

} // namespace kfuse
