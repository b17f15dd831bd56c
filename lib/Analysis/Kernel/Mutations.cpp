//===- Mutations.cpp - what a body may change ------------------------------===//

#include "kfuse/Analysis/Kernel/Mutations.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <functional>

namespace kfuse {

using namespace clang;

namespace {

/// Calls \p Mutated with each place a store into \p E reaches: through
/// casts to references, both arms of `?:` and the right of a comma, so
/// `(int &)j = 0` and `(b ? n : m) = 0` change j, n and m.
void forEachStoredPlace(const Expr *E, llvm::function_ref<void(const Expr *)> Mutated) {
  E = E->IgnoreParens();
  if (const auto *Cast = dyn_cast<CastExpr>(E);
      Cast && Cast->isGLValue() && Cast->getSubExpr()->isGLValue())
    return forEachStoredPlace(Cast->getSubExpr(), Mutated);
  if (const auto *C = dyn_cast<AbstractConditionalOperator>(E)) {
    forEachStoredPlace(C->getTrueExpr(), Mutated);
    return forEachStoredPlace(C->getFalseExpr(), Mutated);
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_Comma)
    return forEachStoredPlace(B->getRHS(), Mutated);
  Mutated(E);
}

class MutationFinder : public RecursiveASTVisitor<MutationFinder> {
public:
  explicit MutationFinder(llvm::function_ref<void(const Expr *)> Found)
      : Mutated([Found](const Expr *E) { forEachStoredPlace(E, Found); }) {}

  /// Inline assembly's outputs ("=r", "+r") are stored into.
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    for (unsigned I = 0; I < S->getNumOutputs(); ++I)
      Mutated(S->getOutputExpr(I));
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      Mutated(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      Mutated(U->getSubExpr());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->isAssignmentOp() && C->getNumArgs() > 0)
      Mutated(C->getArg(0));
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *C) {
    const CXXMethodDecl *M = C->getMethodDecl();
    if (M && !M->isConst() && C->getImplicitObjectArgument())
      Mutated(C->getImplicitObjectArgument());
    return true;
  }
  /// `T &r = x;` lets every store through r change x.
  bool VisitVarDecl(VarDecl *V) {
    QualType T = V->getType();
    if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified() && V->getInit())
      Mutated(V->getInit());
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    // A member operator's object is its first argument, not a parameter.
    unsigned Object = 0;
    if (const auto *M = dyn_cast_or_null<CXXMethodDecl>(F);
        M && isa<CXXOperatorCallExpr>(C) && M->isInstance()) {
      Object = 1;
      if (!M->isConst() && C->getNumArgs() > 0)
        Mutated(C->getArg(0));
    }
    for (unsigned I = Object; F && I < C->getNumArgs() && I - Object < F->getNumParams(); ++I) {
      QualType T = F->getParamDecl(I - Object)->getType();
      if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified())
        Mutated(C->getArg(I));
    }
    return true;
  }

private:
  std::function<void(const Expr *)> Mutated;
};

} // namespace

void forEachMutation(const Stmt *Body, llvm::function_ref<void(const Expr *)> Mutated) {
  MutationFinder(Mutated).TraverseStmt(const_cast<Stmt *>(Body));
}

const VarDecl *ownedVariable(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MemberExpr>(E); M && !M->isArrow())
      E = M->getBase();
    else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E);
             A && A->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
      E = A->getBase();
    else
      break;
  }
  const auto *R = dyn_cast<DeclRefExpr>(E);
  return R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
}

std::set<const ParmVarDecl *> changedParams(const FunctionDecl &Kernel) {
  std::set<const ParmVarDecl *> Changed;
  forEachMutation(Kernel.getBody(), [&](const Expr *E) {
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(ownedVariable(E));
        P && P->getDeclContext() == &Kernel)
      Changed.insert(P);
  });
  return Changed;
}

} // namespace kfuse
