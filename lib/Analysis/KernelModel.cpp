//===- KernelModel.cpp - queries on the kernel model ----------------------===//

#include "kfuse/Analysis/KernelModel.h"

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

bool KernelModel::usesDynamicShared() const {
  return std::any_of(Shared.begin(), Shared.end(),
                     [](const SharedVariable &S) { return S.Dynamic; });
}

uint64_t KernelModel::staticSharedBytes() const {
  uint64_t Bytes = 0;
  for (const SharedVariable &S : Shared)
    Bytes += S.Bytes;
  return Bytes;
}

std::vector<std::pair<const Return *, const Barrier *>>
KernelModel::returnsBeforeBarriers() const {
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

} // namespace kfuse
