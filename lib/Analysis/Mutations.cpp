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
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    for (unsigned I = 0; F && I < C->getNumArgs() && I < F->getNumParams(); ++I) {
      QualType T = F->getParamDecl(I)->getType();
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
