//===- Mutations.cpp - what a body may change ------------------------------===//

#include "kfuse/Analysis/Mutations.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace kfuse {

using namespace clang;

namespace {

class MutationFinder : public RecursiveASTVisitor<MutationFinder> {
public:
  explicit MutationFinder(llvm::function_ref<void(const Expr *)> Mutated) : Mutated(Mutated) {}

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
  llvm::function_ref<void(const Expr *)> Mutated;
};

} // namespace

void forEachMutation(const Stmt *Body, llvm::function_ref<void(const Expr *)> Mutated) {
  MutationFinder(Mutated).TraverseStmt(const_cast<Stmt *>(Body));
}

} // namespace kfuse
