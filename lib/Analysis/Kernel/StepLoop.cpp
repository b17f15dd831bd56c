//===- StepLoop.cpp - grid-stride loops that may run in step --------------===//

#include "kfuse/Analysis/Kernel/StepLoop.h"

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/Mutations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace kfuse {
namespace {

std::string lineOf(const Stmt &S, const ASTContext &AST) {
  const SourceManager &SM = AST.getSourceManager();
  return std::to_string(SM.getExpansionLineNumber(S.getBeginLoc()));
}

/// The first call in \p S that may change state (or that kfuse cannot
/// name; with \p Once, any call but the built-in variables' getters, whose
/// value may differ from one run to the next, as clock64's), or an
/// assignment or increment when \p Once; null if none.
const Stmt *firstChange(const Stmt *S, bool Once) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Once;
    const Stmt *Found = nullptr;
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      if (!F || callMayChangeState(*F) || (Once && !isBuiltinVariableGetter(*F)))
        Found = C;
      return !Found;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (Once && B->isAssignmentOp())
        Found = B;
      return !Found;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (Once && U->isIncrementDecrementOp())
        Found = U;
      return !Found;
    }
    bool VisitStmt(Stmt *S) {
      if (isa<AsmStmt, CXXNewExpr, CXXDeleteExpr, CXXThrowExpr, LambdaExpr>(S))
        Found = S;
      return !Found;
    }
  } Find;
  Find.Once = Once;
  Find.TraverseStmt(const_cast<Stmt *>(S));
  return Find.Found;
}

/// Why \p S, before the loop, is more than a declaration of values; empty
/// if it is one.
std::string notValues(const Stmt &S, const ASTContext &AST) {
  std::string Where = "the statement at line " + lineOf(S, AST) + " runs before its loop, ";
  const auto *D = dyn_cast<DeclStmt>(&S);
  if (!D)
    return Where + "and only declarations of values may";
  for (const Decl *Each : D->decls()) {
    const auto *V = dyn_cast<VarDecl>(Each);
    QualType T = V ? V->getType().getCanonicalType() : QualType();
    if (!V || !V->hasLocalStorage() || !T->isScalarType() || T.isVolatileQualified())
      return Where + "and declares something other than a local value";
  }
  if (const Stmt *Change = firstChange(&S, /*Once=*/true))
    return Where + "and calls or assigns at line " + lineOf(*Change, AST) +
           ", which running again in every iteration may not repeat";
  return "";
}

/// Why an iteration of \p Loop may carry a value to the next, or change
/// state other than memory at its element; empty if none may.
std::string carriesState(const ForStmt &Loop, const ASTContext &AST) {
  const SourceManager &SM = AST.getSourceManager();
  const Stmt *Body = Loop.getBody();
  SourceLocation Begin = SM.getExpansionLoc(Body->getBeginLoc()),
                 End = SM.getExpansionLoc(Body->getEndLoc());
  std::string Why;
  forEachMutation(Body, [&](const Expr *E) {
    const VarDecl *V = ownedVariable(E);
    if (!Why.empty() || !V || SM.isPointWithin(SM.getExpansionLoc(V->getLocation()), Begin, End))
      return;
    Why = "its loop's body changes '" + V->getName().str() + "' (line " +
          std::to_string(SM.getExpansionLineNumber(E->getExprLoc())) +
          "), declared outside it, so an iteration carries a value to the next";
  });
  if (!Why.empty())
    return Why;
  if (const Stmt *Change = firstChange(Body, /*Once=*/false))
    return "its loop's body may change state at line " + lineOf(*Change, AST) +
           " other than its element, which would happen in another order";
  return "";
}

} // namespace

StepLoopResult findStepLoop(const KernelModel &Model, const KernelAccesses &Accesses,
                            std::array<unsigned, 3> Block) {
  auto No = [](std::string Why) { return StepLoopResult{std::nullopt, std::move(Why)}; };
  ElementwiseResult E = findElementwiseForm(Model, Accesses, Block);
  if (!E.Kernel)
    return No(E.WhyNot);
  if (!E.Kernel->Loop)
    return No("it has no grid-stride loop");
  const ASTContext &AST = Model.Decl->getASTContext();
  if (!Model.Returns.empty())
    return No("it returns");
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Model.Decl->getBody());
  const ForStmt *Loop = E.Kernel->Loop->Loop;
  bool Seen = false;
  for (const Stmt *S : Body ? Body->body() : llvm::ArrayRef<Stmt *>()) {
    if (S == Loop) {
      Seen = true;
    } else if (isa<NullStmt>(S)) {
      continue;
    } else if (Seen) {
      return No("the statement at line " + lineOf(*S, AST) + " runs after its loop");
    } else if (std::string Why = notValues(*S, AST); !Why.empty()) {
      return No(Why);
    }
  }
  if (!Seen)
    return No("its loop is not a statement of the kernel's body itself");
  if (std::string Why = carriesState(*Loop, AST); !Why.empty())
    return No(Why);
  return {StepLoop{*E.Kernel->Loop, E.Kernel->Bound}, ""};
}

} // namespace kfuse
