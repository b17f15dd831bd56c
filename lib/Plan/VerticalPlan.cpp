//===- VerticalPlan.cpp - how a vertical chain's kernels share data -------===//

#include "kfuse/Plan/VerticalPlan.h"

namespace kfuse {

namespace {

bool pointsToConst(const MemberParam &P) {
  clang::QualType T = P.Param->getType();
  return T->isPointerType() && T->getPointeeType().isConstQualified();
}

/// The parameter the fused kernel declares for each alias group: the
/// first holder's, unless it points to const and another holder does not
/// (a later kernel writes the buffer an earlier one only read).
std::map<MemberParam, MemberParam> declarations(const std::map<MemberParam, MemberParam> &Aliases) {
  std::map<MemberParam, MemberParam> Result;
  for (const auto &[Holder, Source] : Aliases) {
    MemberParam Root = Source;
    for (auto It = Aliases.find(Root); It != Aliases.end(); It = Aliases.find(Root))
      Root = It->second;
    if (pointsToConst(Root) && !pointsToConst(Holder) && Holder.Param->getType()->isPointerType())
      Result.emplace(Root, Holder);
  }
  return Result;
}

} // namespace

VerticalPlan planVerticalChain(const ChainProof &Proof) {
  VerticalPlan Plan;
  Plan.WaitBefore.assign(Proof.Members, false);
  Plan.Aliases = Proof.SameValue;
  Plan.Aliases.insert(Proof.SameBuffer.begin(), Proof.SameBuffer.end());
  for (const ProvenFlow &Flow : Proof.Flows) {
    size_t Consumer = Flow.To.Member, Producer = Flow.From.Member;
    Plan.WaitBefore[Consumer] = Plan.WaitBefore[Consumer] || Flow.Barrier;
    Plan.SameGridAs.emplace(Consumer, Producer);
    Plan.UnitGrid[Consumer] = Proof.UnitGrid;
    Plan.UnitGrid[Producer] = Proof.UnitGrid;
    if (!Flow.Register)
      continue;
    // Neither end is a buffer any more: the register replaces both.
    Plan.Dropped.push_back(Flow.From);
    Plan.Dropped.push_back(Flow.To);
    Plan.Registers.push_back(*Flow.Register);
  }
  Plan.DeclaredAs = declarations(Plan.Aliases);
  // Loops in step take the first's header: every launch repeats its grid.
  if (!Proof.InStep.empty())
    Plan.InStep.push_back({0, Proof.InStep});
  for (size_t I = 1; I < Proof.InStep.size(); ++I)
    Plan.SameGridAs.emplace(I, 0);
  return Plan;
}

void addChain(VerticalPlan &Fusion, const VerticalPlan &Chain, size_t First) {
  auto Global = [&](MemberParam P) {
    P.Member += First;
    return P;
  };
  for (const auto &[From, To] : Chain.Aliases)
    Fusion.Aliases[Global(From)] = Global(To);
  for (const auto &[Root, Holder] : Chain.DeclaredAs)
    Fusion.DeclaredAs[Global(Root)] = Global(Holder);
  for (const MemberParam &P : Chain.Dropped)
    Fusion.Dropped.push_back(Global(P));
  for (RegisterTemporary R : Chain.Registers) {
    R.From = Global(R.From);
    R.To = Global(R.To);
    std::map<size_t, std::vector<const clang::Expr *>> Accesses;
    for (auto &[Member, Sites] : R.Accesses)
      Accesses[Member + First] = std::move(Sites);
    R.Accesses = std::move(Accesses);
    Fusion.Registers.push_back(std::move(R));
  }
  for (size_t I = 0; I < Chain.WaitBefore.size(); ++I)
    Fusion.WaitBefore[First + I] = Chain.WaitBefore[I];
  for (const auto &[Consumer, Producer] : Chain.SameGridAs)
    Fusion.SameGridAs.emplace(Consumer + First, Producer + First);
  for (const auto &[Member, Dims] : Chain.UnitGrid)
    Fusion.UnitGrid[Member + First] = Dims;
  for (StepGroup G : Chain.InStep) {
    G.First += First;
    Fusion.InStep.push_back(std::move(G));
  }
}

} // namespace kfuse
