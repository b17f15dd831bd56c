//===- KernelAnalyzer.cpp - building the kernel model ---------------------===//

#include "kfuse/Analysis/KernelAnalyzer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/PreprocessingRecord.h"
#include "clang/Lex/Preprocessor.h"

#include <map>
#include <set>

namespace kfuse {
namespace {

using namespace clang;

/// The built-in variable \p D stands for, if it is one. Clang declares them
/// as objects of the __cuda_builtin_*_t types.
std::optional<BuiltinVar> builtinVar(const ValueDecl *D) {
  const auto *Var = dyn_cast_or_null<VarDecl>(D);
  if (!Var || !Var->hasGlobalStorage())
    return std::nullopt;
  const CXXRecordDecl *Record = Var->getType()->getAsCXXRecordDecl();
  if (!Record || !Record->getIdentifier())
    return std::nullopt;
  StringRef Type = Record->getName();
  if (Type == "__cuda_builtin_threadIdx_t")
    return BuiltinVar::ThreadIdx;
  if (Type == "__cuda_builtin_blockDim_t")
    return BuiltinVar::BlockDim;
  if (Type == "__cuda_builtin_blockIdx_t")
    return BuiltinVar::BlockIdx;
  if (Type == "__cuda_builtin_gridDim_t")
    return BuiltinVar::GridDim;
  return std::nullopt;
}

std::optional<BarrierKind> barrierKind(StringRef Callee) {
  if (Callee == "__syncthreads")
    return BarrierKind::SyncThreads;
  if (Callee == "__syncthreads_count" || Callee == "__syncthreads_and" ||
      Callee == "__syncthreads_or")
    return BarrierKind::SyncThreadsCount;
  if (Callee.starts_with("__barrier_sync") || Callee.starts_with("__nvvm_bar") ||
      Callee.starts_with("__nvvm_barrier"))
    return BarrierKind::Named;
  return std::nullopt;
}

StringRef calleeName(const FunctionDecl *F) {
  return F && F->getIdentifier() ? F->getName() : StringRef();
}

/// The getters behind threadIdx.x and friends; the variable itself is what counts.
bool isBuiltinGetter(const FunctionDecl *F) {
  const auto *M = dyn_cast_or_null<CXXMethodDecl>(F);
  return M && M->getParent()->getIdentifier() &&
         M->getParent()->getName().starts_with("__cuda_builtin_");
}

bool readsThreadRegister(StringRef Callee) {
  return Callee.starts_with("__nvvm_read_ptx_sreg_tid") ||
         Callee.starts_with("__nvvm_read_ptx_sreg_ntid");
}

bool asmSynchronizes(const GCCAsmStmt &Asm) {
  StringRef Text = Asm.getAsmString()->getString();
  return Text.contains("bar.") || Text.contains("barrier");
}

bool asmReadsThreadIndex(const GCCAsmStmt &Asm) {
  StringRef Text = Asm.getAsmString()->getString();
  return Text.contains("%tid") || Text.contains("%ntid");
}

bool isCooperativeGroups(const FunctionDecl *F) {
  return StringRef(F->getQualifiedNameAsString()).starts_with("cooperative_groups::");
}

/// Summarises what called functions do, following calls through their bodies.
class EffectFinder {
public:
  CalleeEffect effectOf(const FunctionDecl *F) {
    auto It = Memo.find(F);
    if (It != Memo.end())
      return It->second;
    Memo[F] = CalleeEffect(); // Recursion adds nothing new.
    CalleeEffect E = compute(F);
    Memo[F] = E;
    return E;
  }

private:
  std::map<const FunctionDecl *, CalleeEffect> Memo;

  CalleeEffect compute(const FunctionDecl *F);
};

class BodyEffectVisitor : public RecursiveASTVisitor<BodyEffectVisitor> {
public:
  BodyEffectVisitor(EffectFinder &Finder, CalleeEffect &Effect) : Finder(Finder), Effect(Effect) {}

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    std::optional<BuiltinVar> V = builtinVar(E->getDecl());
    if (V == BuiltinVar::ThreadIdx || V == BuiltinVar::BlockDim)
      Effect.ReadsThreadIndex = true;
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee) {
      Effect.Unknown = true;
      return true;
    }
    StringRef Name = calleeName(Callee);
    if (barrierKind(Name))
      Effect.Synchronizes = true;
    else if (readsThreadRegister(Name))
      Effect.ReadsThreadIndex = true;
    else if (!isBuiltinGetter(Callee))
      merge(Finder.effectOf(Callee));
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *Asm) {
    Effect.Synchronizes |= asmSynchronizes(*Asm);
    Effect.ReadsThreadIndex |= asmReadsThreadIndex(*Asm);
    return true;
  }

private:
  EffectFinder &Finder;
  CalleeEffect &Effect;

  void merge(const CalleeEffect &E) {
    Effect.ReadsThreadIndex |= E.ReadsThreadIndex;
    Effect.Synchronizes |= E.Synchronizes;
    Effect.Unknown |= E.Unknown;
    Effect.CooperativeGroups |= E.CooperativeGroups;
  }
};

CalleeEffect EffectFinder::compute(const FunctionDecl *F) {
  CalleeEffect E;
  if (isCooperativeGroups(F))
    E.CooperativeGroups = true;
  if (F->getBuiltinID() != 0)
    return E;
  const FunctionDecl *Definition = F->getDefinition();
  if (!Definition) {
    // Functions the toolkit declares without a body (libdevice, the runtime)
    // neither read thread indices nor synchronize; a user's might.
    const SourceManager &SM = F->getASTContext().getSourceManager();
    E.Unknown = !SM.isInSystemHeader(F->getLocation());
    return E;
  }
  BodyEffectVisitor Visitor(*this, E);
  Visitor.TraverseStmt(Definition->getBody());
  return E;
}

class KernelVisitor : public RecursiveASTVisitor<KernelVisitor> {
public:
  KernelVisitor(KernelModel &Model, ASTContext &Ctx) : Model(Model), Ctx(Ctx) {}

  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseForStmt(ForStmt *S) { return inLoop(S, [&] { return Base::TraverseForStmt(S); }); }
  bool TraverseWhileStmt(WhileStmt *S) {
    return inLoop(S, [&] { return Base::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) { return inLoop(S, [&] { return Base::TraverseDoStmt(S); }); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return inLoop(S, [&] { return Base::TraverseCXXForRangeStmt(S); });
  }
  bool TraverseLambdaExpr(LambdaExpr *E) {
    ++LambdaDepth;
    bool Result = Base::TraverseLambdaExpr(E);
    --LambdaDepth;
    return Result;
  }

  bool VisitVarDecl(VarDecl *D) {
    if (isa<ParmVarDecl>(D) || !D->getIdentifier())
      return true;
    Model.Locals.push_back(D);
    if (D->hasAttr<CUDASharedAttr>())
      addShared(D, /*FileScope=*/false);
    return true;
  }
  bool VisitLabelStmt(LabelStmt *S) {
    Model.LabelStmts.push_back(S);
    Model.Labels.push_back(S->getDecl());
    return true;
  }
  bool VisitGotoStmt(GotoStmt *S) {
    Model.Gotos.push_back(S);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *S) {
    if (LambdaDepth == 0)
      Model.Returns.push_back({S, Loops});
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    if (asmSynchronizes(*S))
      Model.AsmBarriers.push_back(S);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (!SeenRefs.insert(E).second)
      return true; // Pseudo-objects show the same reference twice.
    const ValueDecl *D = E->getDecl();
    if (std::optional<BuiltinVar> V = builtinVar(D)) {
      Model.Builtins.push_back({*V, E});
      return true;
    }
    const auto *Var = dyn_cast<VarDecl>(D);
    if (!Var)
      return true;
    if (isKernelLocal(Var))
      Model.LocalRefs.push_back(E);
    else if (Var->hasGlobalStorage() && !Var->isStaticLocal())
      noteGlobal(Var);
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    StringRef Name = calleeName(Callee);
    if (std::optional<BarrierKind> Kind = barrierKind(Name)) {
      Model.Barriers.push_back({Call, *Kind, Name.str(), standsAlone(Call), Loops});
      return true;
    }
    if (Callee && (isBuiltinGetter(Callee) || isLocalLambda(Callee)))
      return true;
    CalleeEffect Effect;
    if (!Callee)
      Effect.Unknown = true;
    else if (readsThreadRegister(Name))
      Effect.ReadsThreadIndex = true;
    else
      Effect = Effects.effectOf(Callee);
    Model.Calls.push_back({Call, Callee, Effect});
    return true;
  }

private:
  using Base = RecursiveASTVisitor<KernelVisitor>;
  KernelModel &Model;
  ASTContext &Ctx;
  EffectFinder Effects;
  std::vector<const Stmt *> Loops;
  std::set<const DeclRefExpr *> SeenRefs;
  std::set<const VarDecl *> SeenGlobals;
  unsigned LambdaDepth = 0;

  template <typename Fn> bool inLoop(const Stmt *S, Fn Traverse) {
    Loops.insert(Loops.begin(), S);
    bool Result = Traverse();
    Loops.erase(Loops.begin());
    return Result;
  }

  bool isKernelLocal(const VarDecl *Var) const {
    if (const auto *P = dyn_cast<ParmVarDecl>(Var))
      return P->getDeclContext() == Model.Decl;
    // Lexically: a block-scope extern (extern __shared__ T s[];) belongs
    // semantically to the enclosing namespace but is spelled in the kernel.
    return Var->isLocalVarDecl() &&
           Var->getParentFunctionOrMethod(/*LexicalParent=*/true) == Model.Decl;
  }

  bool isLocalLambda(const FunctionDecl *F) const {
    const auto *M = dyn_cast<CXXMethodDecl>(F);
    return M && M->getParent()->isLambda() &&
           M->getParent()->getParentFunctionOrMethod() == Model.Decl;
  }

  void noteGlobal(const VarDecl *Var) {
    if (!SeenGlobals.insert(Var).second)
      return;
    if (Var->hasAttr<CUDASharedAttr>()) {
      addShared(Var, /*FileScope=*/true);
      return;
    }
    bool OnDevice = Var->hasAttr<CUDADeviceAttr>() || Var->hasAttr<CUDAConstantAttr>();
    if (OnDevice && !Var->getType().isConstQualified())
      Model.DeviceVariables.push_back(Var);
  }

  void addShared(const VarDecl *Var, bool FileScope) {
    QualType T = Var->getType();
    bool Dynamic = T->isIncompleteArrayType();
    uint64_t Bytes = Dynamic || T->isDependentType() ? 0 : Ctx.getTypeSizeInChars(T).getQuantity();
    Model.Shared.push_back({Var, Dynamic, FileScope, Bytes});
  }

  /// True when \p Call is a statement of its own, not part of an expression.
  bool standsAlone(const CallExpr *Call) const {
    DynTypedNodeList Parents = Ctx.getParents(*Call);
    if (Parents.empty())
      return false;
    const Stmt *Parent = Parents[0].get<Stmt>();
    if (!Parent)
      return false;
    if (isa<CompoundStmt, LabelStmt, CaseStmt, DefaultStmt>(Parent))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      return If->getThen() == Call || If->getElse() == Call;
    if (const auto *For = dyn_cast<ForStmt>(Parent))
      return For->getBody() == Call;
    if (const auto *While = dyn_cast<WhileStmt>(Parent))
      return While->getBody() == Call;
    if (const auto *Do = dyn_cast<DoStmt>(Parent))
      return Do->getBody() == Call;
    return false;
  }
};

bool isDefinedKernel(const FunctionDecl *F, const SourceManager &SM) {
  return F->hasAttr<CUDAGlobalAttr>() && F->isThisDeclarationADefinition() &&
         !F->isTemplateInstantiation() && !SM.isInSystemHeader(F->getLocation());
}

class KernelCollector : public RecursiveASTVisitor<KernelCollector> {
public:
  explicit KernelCollector(const SourceManager &SM) : SM(SM) {}
  bool VisitFunctionDecl(FunctionDecl *F) {
    if (isDefinedKernel(F, SM))
      Kernels.push_back(F);
    return true;
  }
  std::vector<const FunctionDecl *> Kernels;

private:
  const SourceManager &SM;
};

std::vector<SourceRange> skippedBranchesIn(ASTUnit &Unit, SourceRange Body) {
  std::vector<SourceRange> Result;
  PreprocessingRecord *Record = Unit.getPreprocessor().getPreprocessingRecord();
  if (!Record)
    return Result;
  const SourceManager &SM = Unit.getSourceManager();
  for (SourceRange R : Record->getSkippedRanges())
    if (SM.isBeforeInTranslationUnit(Body.getBegin(), R.getBegin()) &&
        SM.isBeforeInTranslationUnit(R.getEnd(), Body.getEnd()))
      Result.push_back(R);
  return Result;
}

} // namespace

std::vector<const FunctionDecl *> findKernels(ASTUnit &Unit) {
  KernelCollector Collector(Unit.getSourceManager());
  Collector.TraverseDecl(Unit.getASTContext().getTranslationUnitDecl());
  return Collector.Kernels;
}

const FunctionDecl *findKernel(ASTUnit &Unit, llvm::StringRef Name) {
  for (const FunctionDecl *F : findKernels(Unit))
    if (F->getQualifiedNameAsString() == Name || F->getNameAsString() == Name)
      return F;
  return nullptr;
}

KernelModel analyzeKernel(ASTUnit &Unit, const FunctionDecl &Kernel) {
  KernelModel Model;
  Model.Decl = &Kernel;
  Model.Name = Kernel.getQualifiedNameAsString();
  Model.Params.assign(Kernel.param_begin(), Kernel.param_end());
  ASTContext &Ctx = Unit.getASTContext();
  KernelVisitor Visitor(Model, Ctx);
  Visitor.TraverseStmt(Kernel.getBody());
  Model.SkippedBranches = skippedBranchesIn(Unit, Kernel.getBody()->getSourceRange());
  if (const auto *Bounds = Kernel.getAttr<CUDALaunchBoundsAttr>()) {
    Expr::EvalResult Result;
    if (Bounds->getMaxThreads() && Bounds->getMaxThreads()->EvaluateAsInt(Result, Ctx))
      Model.LaunchBoundsMaxThreads = Result.Val.getInt().getZExtValue();
  }
  return Model;
}

} // namespace kfuse
