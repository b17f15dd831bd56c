//===- HostEffects.cpp - what host statements may change ------------------===//

#include "kfuse/Analysis/Host/HostEffects.h"

#include "kfuse/Analysis/Host/KernelLaunches.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace kfuse {

using namespace clang;

std::string otherNames(const VarDecl &V, const Stmt &Body) {
  if (!V.hasLocalStorage())
    return "it is not a local of the function";
  if (V.getType()->isReferenceType())
    return "it is a reference";
  if (V.getType()->isArrayType())
    return "it is an array";
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl &V;
    ParentMap Parents;
    std::string Escapes;
    Finder(const VarDecl &V, const Stmt &Body) : V(V), Parents(const_cast<Stmt *>(&Body)) {}
    /// A lambda holding a reference to it writes it wherever it is called.
    bool VisitLambdaExpr(LambdaExpr *L) {
      for (const LambdaCapture &C : L->captures())
        if (C.capturesVariable() && C.getCapturedVar() == &V && C.getCaptureKind() == LCK_ByRef)
          Escapes = "a lambda captures it by reference";
      return Escapes.empty();
    }
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (R->getDecl() != &V)
        return true;
      const Stmt *P = Parents.getParent(R);
      // Parentheses and const-qualifying conversions (a class value passed by
      // value binds as const) change nothing.
      while (P && (isa<ParenExpr>(P) || (isa<ImplicitCastExpr>(P) &&
                                         cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp)))
        P = Parents.getParent(P);
      const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(P);
      const auto *B = dyn_cast_or_null<BinaryOperator>(P);
      const auto *U = dyn_cast_or_null<UnaryOperator>(P);
      const auto *Copy = dyn_cast_or_null<CXXConstructExpr>(P);
      const auto *Member = dyn_cast_or_null<MemberExpr>(P);
      const Stmt *MemberUse = Member ? Parents.getParent(Member) : nullptr;
      const auto *MemberRead = dyn_cast_or_null<ImplicitCastExpr>(MemberUse);
      bool Plain = (Cast && Cast->getCastKind() == CK_LValueToRValue) ||
                   // A copy of a class value (dim3 grid), or a field read.
                   (Copy && Copy->getConstructor()->isCopyOrMoveConstructor() &&
                    Copy->getConstructor()->isTrivial()) ||
                   (Member && !Member->isArrow() && MemberRead &&
                    MemberRead->getCastKind() == CK_LValueToRValue) ||
                   (B && B->isAssignmentOp() && B->getLHS()->IgnoreParens() == R) ||
                   (U && U->isIncrementDecrementOp()) ||
                   (U && U->getOpcode() == UO_AddrOf && allocatedThrough(U));
      if (!Plain)
        Escapes = U && U->getOpcode() == UO_AddrOf ? "its address is taken"
                  : isa_and_nonnull<DeclStmt>(P)   ? "a reference is bound to it"
                  : isa_and_nonnull<CallExpr, CXXConstructExpr>(P)
                      ? "a function is given a reference to it"
                  : Member ? "a member of it is called"
                           : "it is used other than by value";
      return Escapes.empty();
    }
    /// `cudaMalloc(&p, ...)`: the runtime stores the new buffer, and keeps
    /// no address of p.
    bool allocatedThrough(const UnaryOperator *U) {
      const Stmt *P = Parents.getParent(U);
      while (P && isa<ParenExpr, ImplicitCastExpr, CStyleCastExpr, CXXReinterpretCastExpr,
                      CXXStaticCastExpr>(P))
        P = Parents.getParent(P);
      const auto *C = dyn_cast_or_null<CallExpr>(P);
      const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
      return F && F->getIdentifier() &&
             llvm::is_contained({"cudaMalloc", "cudaMallocManaged", "cudaMallocHost",
                                 "cudaHostAlloc", "cudaMallocAsync", "cudaMallocPitch",
                                 "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaEventCreate",
                                 "cudaEventCreateWithFlags"},
                                F->getName());
    }
  } F(V, Body);
  F.TraverseStmt(const_cast<Stmt *>(&Body));
  return F.Escapes;
}

bool privateLocal(const VarDecl &V, const Stmt &Body) { return otherNames(V, Body).empty(); }

std::string indirectWrite(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::string Found;
    bool direct(const Expr *E) {
      const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParens());
      const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
      return V && V->hasLocalStorage() && !V->getType()->isReferenceType();
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->isAssignmentOp() && !direct(B->getLHS()))
        Found = "a store through a pointer, a reference or a member";
      return Found.empty();
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->isIncrementDecrementOp() && !direct(U->getSubExpr()))
        Found = "a store through a pointer, a reference or a member";
      return Found.empty();
    }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      const auto *Method = dyn_cast_or_null<CXXMethodDecl>(F);
      if (Method && Method->getParent()->isLambda())
        Found = "the call of a lambda";
      else if (!F || !F->getIdentifier() || !inertHostCall(F->getName()))
        Found = F ? "the call of '" + F->getNameAsString() + "'" : "a call through a pointer";
      return Found.empty();
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      if (!C->getConstructor()->isTrivial() && !C->getConstructor()->isConstexpr())
        Found = "a constructor of '" + C->getConstructor()->getParent()->getNameAsString() + "'";
      return Found.empty();
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

} // namespace kfuse
