//===- FusionLegality.cpp - can these kernels be fused safely? ------------===//
//
// Horizontal fusion gives each kernel a range of one block's threads and turns
// its barriers into partial barriers that count only that range. That is only
// equivalent to the original when every construct acting on "the whole
// block" is one kfuse rewrites, and when every thread of the range reaches
// each partial barrier. Whatever kfuse cannot prove is refused here.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Analysis/FusionLegality.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/ASTContext.h"

#include <map>

namespace kfuse {
namespace {

using diag::ID;

class MemberChecker {
public:
  MemberChecker(const FusionMember &M, Reporter &Diags)
      : M(M), Model(M.Model), SM(M.Unit->getSourceManager()), Diags(Diags) {}

  void run() {
    checkPlacement();
    checkPreprocessor();
    checkBarriers();
    checkCalls();
    checkReturns();
    checkDeviceVariables();
    if (Model.usesDynamicShared() && M.Spec->AnyBlockSize)
      report(Model.Decl->getLocation(), ID::DynamicSharedResizable) << Model.Name;
  }

private:
  const FusionMember &M;
  const KernelModel &Model;
  clang::SourceManager &SM;
  Reporter &Diags;

  clang::DiagnosticBuilder report(clang::SourceLocation Loc, ID Id) {
    return Diags.report(Loc, SM, Id);
  }

  void checkPlacement() {
    if (!Model.Decl->getDeclContext()->isTranslationUnit())
      report(Model.Decl->getLocation(), ID::KernelInNamespace) << Model.Name;
  }

  void checkPreprocessor() {
    if (!Model.SkippedBranches.empty())
      report(Model.SkippedBranches.front().getBegin(), ID::ConditionalInKernel) << Model.Name;
  }

  void checkBarriers() {
    for (const Barrier &B : Model.Barriers) {
      if (B.Kind != BarrierKind::SyncThreads)
        report(B.Call->getBeginLoc(), ID::UnsupportedBarrier) << B.Callee;
      else if (!B.IsStatement)
        report(B.Call->getBeginLoc(), ID::BarrierAsValue) << B.Callee;
    }
    for (const clang::GCCAsmStmt *Asm : Model.AsmBarriers)
      report(Asm->getBeginLoc(), ID::InlineAsmBarrier) << Model.Name;
    if (!Model.Gotos.empty() && !Model.Barriers.empty())
      report(Model.Gotos.front()->getBeginLoc(), ID::GotoWithBarrier) << Model.Name;
  }

  void checkCalls() {
    for (const CallSite &C : Model.Calls) {
      std::string Callee = C.Callee ? C.Callee->getQualifiedNameAsString() : "a function pointer";
      clang::SourceLocation Loc = C.Call->getBeginLoc();
      if (C.Effect.CooperativeGroups)
        report(Loc, ID::KernelThisThreadBlock) << Callee;
      else if (C.Effect.Synchronizes)
        report(Loc, ID::CallNeedsInlining) << Callee << "synchronizes the threads";
      else if (C.Effect.ReadsThreadIndex)
        report(Loc, ID::CallNeedsInlining) << Callee << "reads threadIdx or blockDim";
      else if (C.Effect.Unknown)
        report(Loc, ID::CallWithoutBody) << Callee;
    }
  }

  void checkReturns() {
    for (const auto &[R, B] : Model.returnsBeforeBarriers()) {
      report(R->Stmt->getBeginLoc(), ID::ReturnBeforeBarrier) << Model.Name;
      report(B->Call->getBeginLoc(), ID::NoteBarrierHere);
    }
  }

  void checkDeviceVariables() {
    for (const clang::VarDecl *V : Model.DeviceVariables)
      report(V->getLocation(), ID::DeviceVariable) << Model.Name << V->getName();
  }
};

const SharedVariable *dynamicShared(const KernelModel &Model) {
  for (const SharedVariable &S : Model.Shared)
    if (S.Dynamic)
      return &S;
  return nullptr;
}

/// Two kernels must not share memory that one fused block holds once.
void checkSharedAcrossMembers(const std::vector<FusionMember> &Members, Reporter &Diags) {
  const FusionMember *FirstDynamic = nullptr;
  std::map<std::pair<std::string, std::string>, const FusionMember *> FileScopeOwners;
  for (const FusionMember &M : Members) {
    clang::SourceManager &SM = M.Unit->getSourceManager();
    if (const SharedVariable *S = dynamicShared(M.Model)) {
      if (FirstDynamic) {
        const SharedVariable *First = dynamicShared(FirstDynamic->Model);
        Diags.report(S->Var->getLocation(), SM, ID::DynamicSharedAlias)
            << FirstDynamic->Model.Name << M.Model.Name;
        Diags.report(First->Var->getLocation(), FirstDynamic->Unit->getSourceManager(),
                     ID::NoteDynamicSharedHere)
            << FirstDynamic->Model.Name;
      } else {
        FirstDynamic = &M;
      }
    }
    for (const SharedVariable &S : M.Model.Shared) {
      if (!S.FileScope || S.Dynamic)
        continue;
      auto Key = std::make_pair(M.Spec->ResolvedFile, S.Var->getNameAsString());
      auto [It, New] = FileScopeOwners.emplace(Key, &M);
      if (!New)
        Diags.report(S.Var->getLocation(), SM, ID::SharedVariableAlias)
            << It->second->Model.Name << M.Model.Name << S.Var->getName();
    }
  }
}

} // namespace

bool checkHorizontalFusion(const std::vector<FusionMember> &Members, Reporter &Diags) {
  unsigned Before = Diags.errorCount();
  for (const FusionMember &M : Members)
    MemberChecker(M, Diags).run();
  checkSharedAcrossMembers(Members, Diags);
  return Diags.errorCount() == Before;
}

} // namespace kfuse
