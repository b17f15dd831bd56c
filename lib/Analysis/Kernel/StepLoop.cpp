//===- StepLoop.cpp - grid-stride loops that may run in step --------------===//

#include "kfuse/Analysis/Kernel/StepLoop.h"

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/Mutations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <vector>

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
/// state other than memory at its element; empty if none may. \p Before
/// holds the statements before the loop: a pointer or reference they bind
/// to a variable would let the body change it unnamed.
std::string carriesState(const ForStmt &Loop, const std::vector<const Stmt *> &Before,
                         const ASTContext &AST) {
  const SourceManager &SM = AST.getSourceManager();
  const Stmt *Body = Loop.getBody();
  SourceLocation Begin = SM.getExpansionLoc(Body->getBeginLoc()),
                 End = SM.getExpansionLoc(Body->getEndLoc());
  std::string Why;
  auto Outside = [&](const Expr *E) {
    const VarDecl *V = ownedVariable(E);
    if (!Why.empty() || !V || SM.isPointWithin(SM.getExpansionLoc(V->getLocation()), Begin, End))
      return;
    Why = "'" + V->getName().str() + "', declared outside its loop's body, is changed or bound " +
          "to a pointer or reference at line " +
          std::to_string(SM.getExpansionLineNumber(E->getExprLoc())) +
          ", so an iteration may carry a value to the next";
  };
  for (const Stmt *S : Before)
    forEachMutation(S, Outside);
  forEachMutation(Body, Outside);
  if (!Why.empty())
    return Why;
  if (const Stmt *Change = firstChange(Body, /*Once=*/false))
    return "its loop's body may change state at line " + lineOf(*Change, AST) +
           " other than its element, which would happen in another order";
  return "";
}

/// \p E, a grid-stride loop's start or step (built-in variables, integer
/// literals, casts to integer types, arithmetic: Elementwise.h), spelled
/// so that it means the same anywhere: every type by its builtin name (no
/// typedef, decltype or macro of the kernel's file), every operation in
/// parentheses; nothing for another form.
std::optional<std::string> contextFree(const Expr *E) {
  if (auto Builtin = builtinComponent(E))
    return std::string(spelling(Builtin->first)) + "." + "xyz"[Builtin->second];
  if (const auto *L = dyn_cast<IntegerLiteral>(E)) {
    const auto *T = L->getType()->getAs<BuiltinType>();
    const char *Suffix = !T                                       ? nullptr
                         : T->getKind() == BuiltinType::Int       ? ""
                         : T->getKind() == BuiltinType::UInt      ? "u"
                         : T->getKind() == BuiltinType::Long      ? "l"
                         : T->getKind() == BuiltinType::ULong     ? "ul"
                         : T->getKind() == BuiltinType::LongLong  ? "ll"
                         : T->getKind() == BuiltinType::ULongLong ? "ull"
                                                                  : nullptr;
    if (!Suffix)
      return std::nullopt;
    return llvm::toString(L->getValue(), 10, /*Signed=*/false) + Suffix;
  }
  if (const auto *P = dyn_cast<ParenExpr>(E))
    return contextFree(P->getSubExpr());
  if (const auto *C = dyn_cast<ImplicitCastExpr>(E))
    return contextFree(C->getSubExpr());
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
    QualType T = C->getType().getCanonicalType().getUnqualifiedType();
    std::optional<std::string> Sub = contextFree(C->getSubExpr());
    if (!Sub || !T->isBuiltinType() || !T->isIntegerType())
      return std::nullopt;
    return "static_cast<" + T.getAsString() + ">(" + *Sub + ")";
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    std::optional<std::string> L = contextFree(B->getLHS()), R = contextFree(B->getRHS());
    if (!L || !R || B->isAssignmentOp() || B->isCommaOp())
      return std::nullopt;
    return "(" + *L + " " + B->getOpcodeStr().str() + " " + *R + ")";
  }
  return std::nullopt;
}

} // namespace

StepLoopResult findStepLoop(const KernelModel &Model, const KernelAccesses &Accesses,
                            std::optional<std::array<unsigned, 3>> Block) {
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
  std::vector<const Stmt *> Before;
  for (const Stmt *S : Body ? Body->body() : llvm::ArrayRef<Stmt *>()) {
    if (S == Loop) {
      Seen = true;
    } else if (isa<NullStmt>(S)) {
      continue;
    } else if (Seen) {
      return No("the statement at line " + lineOf(*S, AST) + " runs after its loop");
    } else if (std::string Why = notValues(*S, AST); !Why.empty()) {
      return No(Why);
    } else {
      Before.push_back(S);
    }
  }
  if (!Seen)
    return No("its loop is not a statement of the kernel's body itself");
  if (std::string Why = carriesState(*Loop, Before, AST); !Why.empty())
    return No(Why);
  std::optional<std::string> Init = contextFree(E.Kernel->Loop->Init),
                             Step = contextFree(E.Kernel->Loop->Step);
  if (!Init || !Step)
    return No("its loop's start or step has a form kfuse cannot spell outside the kernel");
  return {StepLoop{*E.Kernel->Loop, E.Kernel->Bound, *Init, *Step}, ""};
}

} // namespace kfuse
