//===- Elementwise.cpp - kernels whose threads each touch one element -----===//

#include "kfuse/Analysis/Elementwise.h"

#include "kfuse/Analysis/Mutations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace kfuse {
namespace {

/// blockIdx.x * B + threadIdx.x.
IndexExpr elementIndex(unsigned B) {
  return IndexExpr::symbol(Symbol::builtin("blockIdx.x")) * IndexExpr::constant(B) +
         IndexExpr::symbol(Symbol::builtin("threadIdx.x"));
}

/// The statement \p E belongs to in the compound statement around it.
std::pair<const Stmt *, const CompoundStmt *> statementOf(const Expr *E, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*E);
  for (;;) {
    DynTypedNodeList Parents = AST.getParents(Node);
    if (Parents.size() != 1)
      return {nullptr, nullptr};
    if (const auto *C = Parents[0].get<CompoundStmt>())
      return {Node.get<Stmt>(), C};
    Node = Parents[0];
  }
}

/// Whether \p Inner lies inside \p Outer.
bool within(const Stmt *Inner, const Stmt *Outer, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*Inner);
  for (;;) {
    if (Node.get<Stmt>() == Outer)
      return true;
    DynTypedNodeList Parents = AST.getParents(Node);
    if (Parents.size() != 1)
      return false;
    Node = Parents[0];
  }
}

/// Whether the read \p Read happens before the store of \p Write: it is in
/// an earlier statement of the same block, or in the right side of the
/// assignment that stores.
bool readsBefore(const Expr *Read, const Expr *Write, ASTContext &AST) {
  auto [ReadStmt, ReadBlock] = statementOf(Read, AST);
  auto [WriteStmt, WriteBlock] = statementOf(Write, AST);
  if (!ReadStmt || !WriteStmt || ReadBlock != WriteBlock)
    return false;
  if (ReadStmt != WriteStmt) {
    for (const Stmt *S : ReadBlock->body()) {
      if (S == ReadStmt)
        return true;
      if (S == WriteStmt)
        return false;
    }
    return false;
  }
  DynTypedNodeList Parents = AST.getParents(*Write);
  const auto *Assign = Parents.size() == 1 ? Parents[0].get<BinaryOperator>() : nullptr;
  return Assign && Assign->isAssignmentOp() && Assign->getLHS()->IgnoreParens() == Write &&
         within(Read, Assign->getRHS(), AST);
}

/// Parameters the body may change.
std::set<const ParmVarDecl *> changedParams(const FunctionDecl &F) {
  std::set<const ParmVarDecl *> Changed;
  forEachMutation(F.getBody(), [&](const Expr *E) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
        Changed.insert(P);
  });
  return Changed;
}

/// The scalar parameter n of the single guard n - i - 1 >= 0.
const ParmVarDecl *boundOf(const std::vector<IndexCondition> &Guards, const IndexExpr &Index,
                           const FunctionDecl &F) {
  if (Guards.size() != 1 || !Guards[0].Known)
    return nullptr;
  IndexExpr Rest = Guards[0].Expr + Index + IndexExpr::constant(1);
  const auto &Terms = Rest.terms();
  if (Terms.size() != 1 || Terms.begin()->second != 1 || Terms.begin()->first.size() != 1)
    return nullptr;
  const Symbol &S = Terms.begin()->first.front();
  if (S.kind() != SymbolKind::Param)
    return nullptr;
  for (const ParmVarDecl *P : F.parameters())
    if (P->getName() == S.name() && P->getType()->isIntegerType() &&
        (P->getType()->isSignedIntegerType() || F.getASTContext().getTypeSize(P->getType()) <= 32))
      return P;
  return nullptr;
}

/// Whether \p Site's value is loaded where it stands: converted to an rvalue,
/// not bound to a reference or addressed, which would read it later.
bool loadsValue(const Expr *Site, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*Site);
  for (;;) {
    DynTypedNodeList Parents = AST.getParents(Node);
    if (Parents.size() != 1)
      return false;
    if (const auto *Paren = Parents[0].get<ParenExpr>()) {
      Node = DynTypedNode::create(*static_cast<const Expr *>(Paren));
      continue;
    }
    const auto *Cast = Parents[0].get<ImplicitCastExpr>();
    return Cast && Cast->getCastKind() == CK_LValueToRValue;
  }
}

/// A comparison of the bound in a type of the other sign: \p Bound signed,
/// compared as unsigned (`unsigned i < int n` takes every thread for n < 0,
/// where the loads ahead, which compare the values, would take none).
const BinaryOperator *comparesAcrossSigns(const FunctionDecl &F, const ParmVarDecl &Bound) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const ParmVarDecl *Bound;
    const BinaryOperator *Found = nullptr;
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (!B->isComparisonOp() || Found)
        return true;
      for (const Expr *Side : {B->getLHS(), B->getRHS()})
        if (const auto *Ref = dyn_cast<DeclRefExpr>(Side->IgnoreParenImpCasts());
            Ref && Ref->getDecl() == Bound && Bound->getType()->isSignedIntegerType() &&
            Side->getType()->isUnsignedIntegerType())
          Found = B;
      return true;
    }
  } Finder;
  Finder.Bound = &Bound;
  Finder.TraverseStmt(F.getBody());
  return Finder.Found;
}

/// Why an access keeps the kernel from being elementwise; empty if it does not.
std::string refusal(const MemoryAccess &A, const IndexExpr &Index) {
  if (A.Kind == AccessKind::Atomic || A.Kind == AccessKind::Unknown)
    return "'" + A.Text + "' " + spelling(A.Kind) + " memory";
  if (!A.precise() || A.Partial)
    return "'" + A.Text + "' touches more or less than one element";
  if (A.InLoop || A.Helper)
    return "'" + A.Text + "' is in a loop or a called function";
  if (A.Index != Index)
    return "'" + A.Text + "' touches element " + A.Index.str() + ", not " + Index.str();
  return "";
}

} // namespace

ElementwiseResult findElementwise(const KernelModel &Model, const KernelAccesses &Accesses,
                                  const std::array<unsigned, 3> &Block) {
  auto No = [](std::string Why) { return ElementwiseResult{std::nullopt, std::move(Why)}; };
  const FunctionDecl &F = *Model.Decl;
  if (Block[1] != 1 || Block[2] != 1)
    return No("its block is not 1-D");
  if (Model.synchronizes() || !Model.Shared.empty() || !Model.AsmBarriers.empty() ||
      !Model.GridSyncs.empty() || !Model.WarpSyncs.empty())
    return No("it synchronizes or uses shared memory");
  if (!Model.Gotos.empty() || !Model.LabelStmts.empty())
    return No("it jumps");
  if (!Accesses.Other.empty())
    return No(Accesses.Other.front().describe() + " is no buffer of a pointer parameter");
  IndexExpr Index = elementIndex(Block[0]);
  std::set<const ParmVarDecl *> Changed = changedParams(F);
  ElementwiseKernel K;
  K.BlockStride = Block[0];
  std::vector<const MemoryAccess *> Writes;
  for (const MemoryAccesses &Buffer : Accesses.Buffers) {
    if (Buffer.Accesses.empty())
      continue;
    if (Changed.count(Buffer.Param))
      return No("it changes pointer '" + Buffer.Param->getName().str() + "'");
    for (const MemoryAccess &A : Buffer.Accesses) {
      if (std::string Why = refusal(A, Index); !Why.empty())
        return No(Why);
      const ParmVarDecl *Bound = boundOf(A.Guards, Index, F);
      if (!Bound || Changed.count(Bound) || (K.Bound && K.Bound != Bound))
        return No("'" + A.Text + "' runs under another condition than " + Index.str() +
                  " < n for a parameter n");
      K.Bound = Bound;
      if (A.writes())
        Writes.push_back(&A);
    }
    K.Buffers.push_back({Buffer.Param, Buffer.writes()});
  }
  if (K.Buffers.empty())
    return No("it touches no buffer");
  if (comparesAcrossSigns(F, *K.Bound))
    return No("it compares '" + K.Bound->getName().str() + "' as an unsigned value");
  ASTContext &AST = F.getASTContext();
  for (const MemoryAccesses &Buffer : Accesses.Buffers)
    for (const MemoryAccess &A : Buffer.Accesses) {
      const auto *Site = dyn_cast<ArraySubscriptExpr>(A.Site);
      if (A.Kind != AccessKind::Read || !Site || !Site->getBeginLoc().isFileID() ||
          !Site->getEndLoc().isFileID() || !loadsValue(Site, AST) ||
          Site->getType().isVolatileQualified())
        continue;
      QualType Element = Site->getType().getUnqualifiedType().getCanonicalType();
      QualType Pointee = Buffer.Param->getType()->getPointeeType().getUnqualifiedType();
      if (!Element->isArithmeticType() || !Element->isBuiltinType() ||
          Element != Pointee.getCanonicalType())
        continue;
      if (std::all_of(Writes.begin(), Writes.end(),
                      [&](const MemoryAccess *W) { return readsBefore(Site, W->Site, AST); }))
        K.Ahead.push_back({Site, Buffer.Param, Element});
    }
  if (K.Ahead.empty())
    return No("no load comes before every store");
  return {std::move(K), ""};
}

} // namespace kfuse
