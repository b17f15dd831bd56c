//===- KernelModel.cpp - queries on the kernel model ----------------------===//

#include "kfuse/Analysis/Kernel/KernelModel.h"

#include "clang/Lex/Lexer.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace kfuse {

const char *spelling(BuiltinVar V) {
  switch (V) {
  case BuiltinVar::ThreadIdx:
    return "threadIdx";
  case BuiltinVar::BlockDim:
    return "blockDim";
  case BuiltinVar::BlockIdx:
    return "blockIdx";
  case BuiltinVar::GridDim:
    return "gridDim";
  }
  return "";
}

bool KernelModel::uses(BuiltinVar V) const {
  return std::any_of(Builtins.begin(), Builtins.end(),
                     [V](const BuiltinUse &U) { return U.Var == V; });
}

std::pair<const clang::VarDecl *, const clang::FunctionDecl *> KernelModel::dynamicShared() const {
  for (const SharedVariable &S : Shared)
    if (S.Dynamic)
      return {S.Var, nullptr};
  for (const CallSite &C : Calls)
    if (C.Effect.DynamicShared)
      return {C.Effect.DynamicShared, C.Callee};
  return {nullptr, nullptr};
}

uint64_t KernelModel::staticSharedBytes() const {
  uint64_t Bytes = 0;
  for (const SharedVariable &S : Shared)
    Bytes += S.Bytes;
  return Bytes;
}

std::vector<std::pair<const Return *, const Barrier *>> KernelModel::returnsBeforeBarriers() const {
  std::vector<std::pair<const Return *, const Barrier *>> Hazards;
  const clang::SourceManager &SM = Decl->getASTContext().getSourceManager();
  for (const Return &R : Returns) {
    for (const Barrier &B : Barriers) {
      bool After = SM.isBeforeInTranslationUnit(R.Stmt->getBeginLoc(), B.Call->getBeginLoc());
      bool SameLoop = std::any_of(R.Loops.begin(), R.Loops.end(), [&](const clang::Stmt *L) {
        return std::find(B.Loops.begin(), B.Loops.end(), L) != B.Loops.end();
      });
      if (After || SameLoop) {
        Hazards.push_back({&R, &B});
        break;
      }
    }
  }
  return Hazards;
}

bool KernelModel::synchronizes() const {
  return !Barriers.empty() || std::any_of(Calls.begin(), Calls.end(),
                                          [](const CallSite &C) { return C.Effect.Synchronizes; });
}

std::vector<unsigned> KernelModel::asmBarrierIds() const {
  std::vector<unsigned> Ids;
  for (const AsmBarrier &A : AsmBarriers)
    Ids.insert(Ids.end(), A.Ids.begin(), A.Ids.end());
  std::sort(Ids.begin(), Ids.end());
  Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
  return Ids;
}

CallLowering CallSite::lowering() const {
  if (Position == CallPosition::Unsupported || DeclaresShared ||
      (Callee && Callee->getReturnType()->isReferenceType()))
    return CallLowering::SectionCopy;
  return CallLowering::Inline;
}

bool KernelModel::keepsName(const clang::VarDecl *V) const {
  const clang::ASTContext &AST = Decl->getASTContext();
  auto Editable = [&](clang::SourceLocation Loc) {
    return clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(Loc, Loc),
                                           AST.getSourceManager(), AST.getLangOpts())
        .isValid();
  };
  if (!Editable(V->getLocation()))
    return true;
  return std::any_of(LocalRefs.begin(), LocalRefs.end(), [&](const clang::DeclRefExpr *Ref) {
    return Ref->getDecl() == V && !Editable(Ref->getLocation());
  });
}

std::vector<const CallSite *> KernelModel::callsToInline() const {
  std::vector<const CallSite *> Result;
  for (const CallSite &C : Calls)
    if (C.Callee && C.Effect.touchesBlock())
      Result.push_back(&C);
  // In evaluation order: a call's arguments, and the calls in them, first.
  const clang::SourceManager &SM = Decl->getASTContext().getSourceManager();
  auto Offset = [&](clang::SourceLocation L) { return SM.getFileOffset(SM.getExpansionLoc(L)); };
  std::stable_sort(Result.begin(), Result.end(), [&](const CallSite *A, const CallSite *B) {
    unsigned EndA = Offset(A->Call->getEndLoc()), EndB = Offset(B->Call->getEndLoc());
    if (EndA != EndB)
      return EndA < EndB;
    return Offset(A->Call->getBeginLoc()) > Offset(B->Call->getBeginLoc());
  });
  return Result;
}

std::vector<const clang::VarDecl *> KernelModel::reachedDeviceVariables() const {
  std::set<const clang::VarDecl *> Found(DeviceVariables.begin(), DeviceVariables.end());
  for (const CallSite &C : Calls)
    Found.insert(C.Effect.DeviceVariables.begin(), C.Effect.DeviceVariables.end());
  std::vector<const clang::VarDecl *> Result(Found.begin(), Found.end());
  if (Result.empty())
    return Result;
  const clang::SourceManager &SM = Result.front()->getASTContext().getSourceManager();
  std::sort(Result.begin(), Result.end(), [&](const clang::VarDecl *A, const clang::VarDecl *B) {
    return SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
  });
  return Result;
}

} // namespace kfuse
