//===- KernelAnalyzer.cpp - building the kernel model ---------------------===//

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"

#include "kfuse/Analysis/Kernel/CooperativeGroups.h"
#include "kfuse/Analysis/Kernel/DeviceVariables.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Lex/PreprocessingRecord.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/Regex.h"

#include <map>
#include <set>

namespace kfuse {

using namespace clang;

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

namespace {

/// __syncwarp and the builtin behind it: they wait for the lanes of the
/// caller's warp that their mask names.
bool isWarpSync(StringRef Callee) {
  return Callee == "__syncwarp" || Callee == "__nvvm_bar_warp_sync";
}

/// Warp intrinsics that wait for the lanes their first argument names.
bool takesLaneMask(StringRef Callee) {
  if (Callee.starts_with("__nvvm_"))
    return Callee == "__nvvm_bar_warp_sync" || Callee.starts_with("__nvvm_shfl_sync") ||
           ((Callee.starts_with("__nvvm_vote_") || Callee.starts_with("__nvvm_match_") ||
             Callee.starts_with("__nvvm_redux_")) &&
            Callee.contains("sync"));
  return Callee == "__syncwarp" ||
         (Callee.ends_with("_sync") &&
          (Callee.starts_with("__shfl") || Callee.starts_with("__ballot") ||
           Callee.starts_with("__match") || Callee.starts_with("__reduce_") ||
           llvm::is_contained({"__any_sync", "__all_sync", "__uni_sync"}, Callee)));
}

/// The warp collectives of CUDA before masks (sm_70 dropped them): they
/// name every lane of the warp.
bool namesWholeWarp(StringRef Callee) {
  return llvm::is_contained(
             {"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__any", "__all", "__ballot"},
             Callee) ||
         ((Callee.starts_with("__nvvm_shfl_") || Callee.starts_with("__nvvm_vote_")) &&
          !Callee.contains("sync"));
}

bool callsActiveMask(const Expr *E) {
  const auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
  return F && F->getIdentifier() &&
         (F->getName() == "__activemask" || F->getName() == "__nvvm_activemask");
}

std::optional<BarrierKind> barrierKind(StringRef Callee) {
  if (Callee == "__syncthreads")
    return BarrierKind::SyncThreads;
  if (Callee == "__syncthreads_count" || Callee == "__syncthreads_and" ||
      Callee == "__syncthreads_or")
    return BarrierKind::SyncThreadsCount;
  // bar.warp.sync waits for lanes of one warp, which a fused range keeps
  // whole: not a barrier of the block (isWarpSync).
  if (isWarpSync(Callee))
    return std::nullopt;
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

} // namespace

std::string threadEndingInstruction(const GCCAsmStmt &Asm) {
  llvm::SmallVector<StringRef, 8> Instructions;
  Asm.getAsmString()->getString().split(Instructions, ';');
  for (StringRef I : Instructions) {
    I = I.trim(" \t\r\n{}");
    StringRef Rest = I;
    while (true) {
      size_t Colon = Rest.find(':');
      size_t Space = Rest.find_first_of(" \t\r\n");
      if (Colon == StringRef::npos || (Space != StringRef::npos && Space < Colon))
        break;
      Rest = Rest.substr(Colon + 1).ltrim(" \t\r\n{}"); // A label.
    }
    if (Rest.starts_with("@"))
      Rest = Rest.drop_until([](char C) { return C == ' ' || C == '\t'; }).ltrim(" \t\r\n");
    StringRef Opcode = Rest.take_until([](char C) { return !llvm::isAlnum(C) && C != '_'; });
    if (Opcode == "exit" || Opcode == "ret")
      return I.str();
  }
  return "";
}

std::optional<WarpCollective> warpCollective(const CallExpr &Call, const ASTContext &Ctx) {
  const FunctionDecl *F = Call.getDirectCallee();
  StringRef Name = F && F->getIdentifier() ? F->getName() : StringRef();
  WarpCollective W;
  W.At = &Call;
  W.Name = Name.str();
  if (Name == "__activemask" || Name == "__nvvm_activemask") {
    W.Names = WarpCollective::Lanes::Reaching;
    return W;
  }
  if (namesWholeWarp(Name))
    return W;
  if (!takesLaneMask(Name))
    return std::nullopt;
  if (Call.getNumArgs() == 0) {
    W.Names = WarpCollective::Lanes::Mask;
    W.Mask = 0xffffffffu;
    return W;
  }
  const Expr *Mask = Call.getArg(0);
  Expr::EvalResult Value;
  if (!Mask->isValueDependent() && Mask->EvaluateAsInt(Value, Ctx)) {
    W.Names = WarpCollective::Lanes::Mask;
    W.Mask = Value.Val.getInt().getZExtValue() & 0xffffffffu;
  } else if (!Mask->isValueDependent()) {
    W.Names = WarpCollective::Lanes::Computed;
    W.MaskExpr = Mask;
    W.AST = &Ctx;
  }
  return W;
}

namespace {

/// Lanes the threads [First, Threads) of a 1-D block run with, by \p Cond;
/// nothing when some do and some do not (or kfuse cannot tell).
std::optional<bool> decideForThreads(const Expr *Cond, unsigned First, unsigned Threads,
                                     const ASTContext &Ctx) {
  const auto *B = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!B || !B->isComparisonOp())
    return std::nullopt;
  Expr::EvalResult Bound;
  const Expr *Index = B->getLHS();
  BinaryOperatorKind Op = B->getOpcode();
  if (!B->getRHS()->EvaluateAsInt(Bound, Ctx)) {
    if (!B->getLHS()->EvaluateAsInt(Bound, Ctx))
      return std::nullopt;
    Index = B->getRHS();
    Op = BinaryOperator::reverseComparisonOp(Op);
  }
  std::optional<std::pair<BuiltinVar, unsigned>> Builtin =
      builtinComponent(Index->IgnoreParenImpCasts());
  if (!Builtin || *Builtin != std::make_pair(BuiltinVar::ThreadIdx, 0u))
    return std::nullopt;
  int64_t C = Bound.Val.getInt().getSExtValue();
  auto Holds = [&](int64_t T) {
    switch (Op) {
    case BO_LT:
      return T < C;
    case BO_LE:
      return T <= C;
    case BO_GT:
      return T > C;
    case BO_GE:
      return T >= C;
    case BO_EQ:
      return T == C;
    default:
      return T != C;
    }
  };
  // Each comparison holds for a range of indices: the ends decide it.
  if (Op == BO_EQ || Op == BO_NE)
    return std::nullopt;
  bool Low = Holds(First), High = Holds(static_cast<int64_t>(Threads) - 1);
  return Low == High ? std::optional<bool>(Low) : std::nullopt;
}

/// The lanes \p E names for the threads [First, Threads) of a 1-D block:
/// __activemask() names none beyond those that reach it (0 here).
std::optional<uint64_t> lanesFor(const Expr *E, unsigned First, unsigned Threads,
                                 const ASTContext &Ctx, unsigned Depth = 0) {
  if (!E || Depth > 8 || E->isValueDependent())
    return std::nullopt;
  E = E->IgnoreParenCasts();
  Expr::EvalResult Value;
  if (E->EvaluateAsInt(Value, Ctx))
    return Value.Val.getInt().getZExtValue() & 0xffffffffu;
  if (callsActiveMask(E))
    return 0;
  if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(R->getDecl());
    // A constant local is its initializer wherever it is read.
    if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getType().isConstQualified())
      return lanesFor(V->getInit(), First, Threads, Ctx, Depth + 1);
    return std::nullopt;
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    if (std::optional<bool> Taken = decideForThreads(C->getCond(), First, Threads, Ctx))
      return lanesFor(*Taken ? C->getTrueExpr() : C->getFalseExpr(), First, Threads, Ctx,
                      Depth + 1);
    std::optional<uint64_t> A = lanesFor(C->getTrueExpr(), First, Threads, Ctx, Depth + 1),
                            B = lanesFor(C->getFalseExpr(), First, Threads, Ctx, Depth + 1);
    return A && B ? std::optional<uint64_t>(*A | *B) : std::nullopt;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_And) {
    std::optional<uint64_t> L = lanesFor(B->getLHS(), First, Threads, Ctx, Depth + 1),
                            R = lanesFor(B->getRHS(), First, Threads, Ctx, Depth + 1);
    if (L && R)
      return *L & *R;
    return L ? L : R; // Either side bounds what they name together.
  }
  return std::nullopt;
}

} // namespace

bool WarpCollective::namesOnlyLiveLanes(unsigned Threads, bool OneDimensional) const {
  unsigned Live = Threads % 32;
  if (Live == 0)
    return true;
  switch (Names) {
  case Lanes::Mask:
    return (Mask >> Live) == 0;
  case Lanes::Reaching:
    return true;
  case Lanes::Tile:
    return TileSize > 0 && Live % TileSize == 0;
  case Lanes::Computed: {
    // The threads of the last, padded warp decide it; in a block of more
    // dimensions their threadIdx.x is not their place in it.
    if (!OneDimensional || !MaskExpr)
      return false;
    std::optional<uint64_t> Named = lanesFor(MaskExpr, Threads - Live, Threads, *AST);
    return Named && (*Named >> Live) == 0;
  }
  case Lanes::Any:
    break;
  }
  return false;
}

std::optional<WarpCollective> warpCollective(const GCCAsmStmt &Asm) {
  StringRef Text = Asm.getAsmString()->getString();
  for (StringRef Op : {"shfl.", "vote.", "match.", "redux.", "activemask"})
    if (size_t At = Text.find(Op); At != StringRef::npos) {
      WarpCollective W;
      W.At = &Asm;
      W.Name = Text.substr(At).take_until([](char C) { return isWhitespace(C) || C == ';'; }).str();
      if (Op == "activemask")
        W.Names = WarpCollective::Lanes::Reaching;
      return W;
    }
  return std::nullopt;
}

std::optional<WarpCollective> warpCollective(const CallExpr &Call, const GroupCall &Group) {
  if ((Group.Kind != GroupCallKind::WarpLocal && Group.Kind != GroupCallKind::Handle) ||
      Group.TileSize == 0)
    return std::nullopt;
  WarpCollective W;
  W.At = &Call;
  const FunctionDecl *F = Call.getDirectCallee();
  W.Name = F ? F->getNameAsString() : "a cooperative-groups call";
  W.Names = WarpCollective::Lanes::Tile;
  W.TileSize = Group.TileSize;
  return W;
}

bool isMutableStaticLocal(const VarDecl &V) {
  return V.isStaticLocal() && !V.hasAttr<CUDASharedAttr>() && !V.getType().isConstQualified() &&
         !V.isConstexpr() &&
         !V.getASTContext().getSourceManager().isInSystemHeader(V.getLocation());
}

namespace {

bool asmReadsBuiltins(const GCCAsmStmt &Asm) {
  StringRef Text = Asm.getAsmString()->getString();
  return Text.contains("%tid") || Text.contains("%ntid") || Text.contains("%ctaid") ||
         Text.contains("%nctaid");
}

/// The barrier instructions of \p Asm and the literal ids they name. PTX
/// spells them bar.sync a{, b}, bar.arrive a, b and bar.red.op d, a{, b}, c
/// (or barrier{.cta}...), where a is the id and b the thread count.
AsmBarrier parseAsmBarrier(const GCCAsmStmt &Asm) {
  AsmBarrier Result{&Asm, {}, true};
  StringRef Text = Asm.getAsmString()->getString();
  llvm::Regex Instruction("(bar|barrier)(\\.cta)?\\.(sync|arrive|red)[.a-z0-9]*[ \t]+([^;]*)");
  llvm::SmallVector<StringRef, 6> Match;
  while (Instruction.match(Text, &Match)) {
    llvm::SmallVector<StringRef, 4> Operands;
    Match[4].split(Operands, ',');
    bool Reduction = Match[3] == "red";
    size_t IdIndex = Reduction ? 1 : 0;
    size_t NeedOperands = Reduction ? 4 : 2; // With an explicit thread count.
    unsigned Id = 0;
    if (Operands.size() != NeedOperands || Operands[IdIndex].trim().getAsInteger(10, Id) || Id == 0)
      Result.Partial = false;
    else
      Result.Ids.push_back(Id);
    Text = Text.substr(Text.find(Match[0]) + Match[0].size());
  }
  return Result;
}

/// A read in a loop's condition that polls memory: an atomic operation, or a
/// volatile object that is no local variable. Null for none.
const Expr *pollingRead(const Stmt *Cond) {
  if (!Cond)
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(Cond))
    if (const FunctionDecl *F = Call->getDirectCallee()) {
      StringRef Name = F->getName();
      bool AtomicMember = isa<CXXMethodDecl>(F) && (Name == "load" || Name.starts_with("fetch_")) &&
                          cast<CXXMethodDecl>(F)->getParent()->getName().contains("atomic");
      if (Name.starts_with("atomic") || Name.starts_with("__atomic") || AtomicMember)
        return Call;
    }
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Cond);
      Cast && Cast->getCastKind() == CK_LValueToRValue &&
      Cast->getSubExpr()->getType().isVolatileQualified()) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Cast->getSubExpr()->IgnoreParens());
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var || !Var->isLocalVarDeclOrParm())
      return Cast->getSubExpr();
  }
  for (const Stmt *Child : Cond->children())
    if (const Expr *Found = pollingRead(Child))
      return Found;
  return nullptr;
}

/// The condition of a loop statement; null for others.
const Stmt *loopCondition(const Stmt *S) {
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return W->getCond();
  if (const auto *D = dyn_cast<DoStmt>(S))
    return D->getCond();
  if (const auto *F = dyn_cast<ForStmt>(S))
    return F->getCond();
  return nullptr;
}

/// Summarises what called functions do, following calls through their bodies.
class EffectFinder {
public:
  explicit EffectFinder(const RejectedCode &Rejected) : Rejected(Rejected) {}

  CalleeEffect effectOf(const FunctionDecl *F) {
    auto It = Memo.find(F);
    if (It != Memo.end())
      return It->second;
    Memo[F] = CalleeEffect(); // Recursion adds nothing new.
    CalleeEffect E = compute(F);
    Memo[F] = E;
    return E;
  }

  /// What constructing \p C's object does, and destroying it later.
  CalleeEffect lifetimeEffect(const CXXConstructExpr &C);

private:
  const RejectedCode &Rejected;
  std::map<const FunctionDecl *, CalleeEffect> Memo;

  CalleeEffect compute(const FunctionDecl *F);
};

class BodyEffectVisitor : public RecursiveASTVisitor<BodyEffectVisitor> {
public:
  BodyEffectVisitor(EffectFinder &Finder, CalleeEffect &Effect) : Finder(Finder), Effect(Effect) {}

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (builtinVar(E->getDecl()))
      Effect.ReadsBuiltins = true;
    else if (E->getDecl()->hasAttr<CUDASharedAttr>())
      noteShared(cast<VarDecl>(E->getDecl()));
    else if (const auto *V = dyn_cast<VarDecl>(E->getDecl()); V && isMutableDeviceVariable(*V))
      Effect.DeviceVariables.insert(V->getCanonicalDecl());
    return true;
  }
  bool VisitVarDecl(VarDecl *D) {
    if (D->hasAttr<CUDASharedAttr>())
      noteShared(D);
    if (!Effect.StaticLocal && isMutableStaticLocal(*D))
      Effect.StaticLocal = D;
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee) {
      Effect.Unknown = true;
      return true;
    }
    StringRef Name = calleeName(Callee);
    // A collective's lanes are what its call names, not its body's.
    if (std::optional<WarpCollective> W = warpCollective(*Call, Callee->getASTContext())) {
      addCollective(*W);
      Effect.WarpSync |= isWarpSync(Name);
      return true;
    }
    GroupCall Group = classifyGroupCall(*Call);
    switch (Group.Kind) {
    case GroupCallKind::BlockSync:
      Effect.Synchronizes = true;
      return true;
    case GroupCallKind::BlockQuery:
      Effect.ReadsBuiltins = true;
      return true;
    case GroupCallKind::GridSync:
    case GroupCallKind::Unsupported:
      if (!Effect.GroupCall)
        Effect.GroupCall = Call, Effect.Group = Group;
      return true;
    case GroupCallKind::Handle:
    case GroupCallKind::WarpLocal:
      if (std::optional<WarpCollective> W = warpCollective(*Call, Group))
        addCollective(*W);
      return true;
    case GroupCallKind::None:
      break;
    }
    if (isWarpSync(Name))
      Effect.WarpSync = true;
    else if (barrierKind(Name))
      Effect.Synchronizes = true;
    else if (readsThreadRegister(Name))
      Effect.ReadsBuiltins = true;
    else if (!isBuiltinGetter(Callee))
      merge(Finder.effectOf(Callee));
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *Asm) {
    if (std::optional<WarpCollective> W = warpCollective(*Asm))
      addCollective(*W);
    Effect.Synchronizes |= asmSynchronizes(*Asm);
    Effect.ReadsBuiltins |= asmReadsBuiltins(*Asm);
    if (!Effect.EndsThread && !threadEndingInstruction(*Asm).empty())
      Effect.EndsThread = Asm;
    return true;
  }
  /// A constructor runs its member initializers and body, and the object's
  /// destructor runs later: both are calls too.
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    merge(Finder.lifetimeEffect(*C));
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *D) {
    if (const CXXRecordDecl *R = D->getDestroyedType()->getAsCXXRecordDecl())
      if (const CXXDestructorDecl *Dtor = R->getDestructor(); Dtor && !Dtor->isTrivial())
        merge(Finder.effectOf(Dtor));
    return true;
  }
  bool VisitStmt(Stmt *S) {
    if (!Effect.SpinWait)
      Effect.SpinWait = pollingRead(loopCondition(S));
    return true;
  }

private:
  EffectFinder &Finder;
  CalleeEffect &Effect;

  void addCollective(const WarpCollective &W) {
    if (llvm::none_of(Effect.WarpCollectives,
                      [&](const WarpCollective &Known) { return Known.At == W.At; }))
      Effect.WarpCollectives.push_back(W);
  }

  void noteShared(const VarDecl *V) {
    Effect.UsesShared = true;
    if (!Effect.DynamicShared && V->getType()->isIncompleteArrayType())
      Effect.DynamicShared = V;
  }

public:
  void mergeEffect(const CalleeEffect &E) { merge(E); }

private:
  void merge(const CalleeEffect &E) {
    Effect.ReadsBuiltins |= E.ReadsBuiltins;
    Effect.Synchronizes |= E.Synchronizes;
    Effect.WarpSync |= E.WarpSync;
    Effect.UsesShared |= E.UsesShared;
    if (!Effect.DynamicShared)
      Effect.DynamicShared = E.DynamicShared;
    Effect.Unknown |= E.Unknown;
    if (!Effect.EndsThread)
      Effect.EndsThread = E.EndsThread;
    if (!Effect.SpinWait)
      Effect.SpinWait = E.SpinWait;
    if (!Effect.GroupCall)
      Effect.GroupCall = E.GroupCall, Effect.Group = E.Group;
    Effect.DeviceVariables.insert(E.DeviceVariables.begin(), E.DeviceVariables.end());
    for (const WarpCollective &W : E.WarpCollectives)
      addCollective(W);
    if (!Effect.StaticLocal)
      Effect.StaticLocal = E.StaticLocal;
    if (!Effect.Rejected) {
      Effect.Rejected = E.Rejected;
      Effect.RejectedFunction = E.RejectedFunction;
    }
  }
};

CalleeEffect EffectFinder::lifetimeEffect(const CXXConstructExpr &C) {
  CalleeEffect E;
  BodyEffectVisitor Merger(*this, E);
  const CXXConstructorDecl *Ctor = C.getConstructor();
  if (!Ctor->isTrivial())
    Merger.mergeEffect(effectOf(Ctor));
  if (const CXXDestructorDecl *Dtor = Ctor->getParent()->getDestructor();
      Dtor && !Dtor->isTrivial())
    Merger.mergeEffect(effectOf(Dtor));
  return E;
}

CalleeEffect EffectFinder::compute(const FunctionDecl *F) {
  CalleeEffect E;
  // A collective intrinsic's lanes are what each call names (warpCollective).
  StringRef Name = calleeName(F);
  if (F->getBuiltinID() != 0 || takesLaneMask(Name) || namesWholeWarp(Name) ||
      Name == "__activemask")
    return E;
  const SourceManager &SM = F->getASTContext().getSourceManager();
  E.InSystemHeader = SM.isInSystemHeader(F->getLocation());
  // A constructor's member initializers run before its body, and a defaulted
  // special member (no body of its own) runs only those of its members.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(F)) {
    BodyEffectVisitor Visitor(*this, E);
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->getInit())
        Visitor.TraverseStmt(Init->getInit());
    if (Ctor->isDefaulted() && !Ctor->getBody())
      return E;
  }
  if (const auto *Dtor = dyn_cast<CXXDestructorDecl>(F)) {
    BodyEffectVisitor Visitor(*this, E);
    for (const FieldDecl *Field : Dtor->getParent()->fields())
      if (const CXXRecordDecl *R =
              Field->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl())
        if (const CXXDestructorDecl *Member = R->getDestructor(); Member && !Member->isTrivial())
          Visitor.mergeEffect(effectOf(Member));
    if (Dtor->isDefaulted() && !Dtor->getBody())
      return E;
  }
  const FunctionDecl *Definition = F->getDefinition();
  if (!Definition) {
    // Functions the toolkit declares without a body (libdevice, the runtime)
    // neither read thread indices nor synchronize; a user's might.
    E.Unknown = !E.InSystemHeader;
    return E;
  }
  if ((E.Rejected = Rejected.of(*Definition)))
    E.RejectedFunction = Definition;
  BodyEffectVisitor Visitor(*this, E);
  Visitor.TraverseStmt(Definition->getBody());
  return E;
}

/// Whether \p F's own body (lambdas in it included) declares a static
/// __shared__ variable; an extern one only names dynamic shared memory.
bool declaresStaticShared(const FunctionDecl &F) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    bool Found = false;
    bool VisitVarDecl(VarDecl *D) {
      Found |= D->hasAttr<CUDASharedAttr>() && !D->hasExternalStorage();
      return !Found;
    }
  } Search;
  const FunctionDecl *Definition = F.getDefinition();
  if (Definition && Definition->hasBody())
    Search.TraverseStmt(Definition->getBody());
  return Search.Found;
}

/// The operands of \p Parent that C++17 evaluates before its operand
/// \p Child: the right of an assignment, the left of a shift, an array
/// before its index, a callee (and the object of a member call) before its
/// arguments, for built-in and overloaded operators alike.
std::vector<const Expr *> sequencedBefore(const Stmt *Parent, const Stmt *Child) {
  if (const auto *B = dyn_cast<BinaryOperator>(Parent)) {
    if (B->isAssignmentOp() && B->getLHS() == Child)
      return {B->getRHS()};
    if ((B->getOpcode() == BO_Shl || B->getOpcode() == BO_Shr) && B->getRHS() == Child)
      return {B->getLHS()};
    return {};
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent)) {
    OverloadedOperatorKind K = Op->getOperator();
    if (Op->getNumArgs() != 2)
      return {};
    bool Assigns = K == OO_Equal || (K >= OO_PlusEqual && K <= OO_PipeEqual) ||
                   K == OO_LessLessEqual || K == OO_GreaterGreaterEqual;
    if (Assigns && Op->getArg(0) == Child)
      return {Op->getArg(1)};
    if ((K == OO_LessLess || K == OO_GreaterGreater || K == OO_Subscript || K == OO_ArrowStar) &&
        Op->getArg(1) == Child)
      return {Op->getArg(0)};
    return {};
  }
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(Parent))
    return A->getRHS() == Child ? std::vector<const Expr *>{A->getLHS()}
                                : std::vector<const Expr *>{};
  if (const auto *C = dyn_cast<CallExpr>(Parent); C && C->getCallee() != Child)
    return {C->getCallee()};
  return {};
}

bool writesMemory(const FunctionDecl *F, unsigned Depth);

/// Whether \p S may change state: an assignment or increment (but of the
/// function's own by-value locals, when \p Owner is given), a call that
/// may, inline assembly, new, delete or throw.
bool changesState(const Stmt *S, const FunctionDecl *Owner, unsigned Depth) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const FunctionDecl *Owner;
    unsigned Depth;
    bool Found = false;
    bool ownLocal(const Expr *E) const {
      const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
      return Owner && V && V->hasLocalStorage() && !V->getType()->isReferenceType() &&
             V->getDeclContext() == Owner;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      Found |= B->isAssignmentOp() && !ownLocal(B->getLHS());
      return !Found;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      Found |= U->isIncrementDecrementOp() && !ownLocal(U->getSubExpr());
      return !Found;
    }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      Found |= !F || (!isBuiltinGetter(F) && writesMemory(F, Depth + 1));
      return !Found;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      Found |= !C->getConstructor()->isTrivial() && !C->getConstructor()->isConstexpr();
      return !Found;
    }
    bool VisitStmt(Stmt *S) {
      Found |= isa<AsmStmt, CXXNewExpr, CXXDeleteExpr, CXXThrowExpr>(S);
      return !Found;
    }
  } Find;
  Find.Owner = Owner;
  Find.Depth = Depth;
  Find.TraverseStmt(const_cast<Stmt *>(S));
  return Find.Found;
}

/// Whether a call of \p F may write memory or otherwise change state: its
/// body does (the toolkit's functions without one: atomics, stores,
/// printing, barriers and the like do).
bool writesMemory(const FunctionDecl *F, unsigned Depth) {
  if (Depth > 8)
    return true;
  const FunctionDecl *Def = F->getDefinition();
  if (!Def || !Def->hasBody()) {
    if (!F->getASTContext().getSourceManager().isInSystemHeader(F->getLocation()) &&
        !F->getBuiltinID())
      return true;
    StringRef Name = calleeName(F);
    return Name.contains("atomic") || Name.contains("atom_") || Name.contains("sync") ||
           Name.contains("fence") || Name.contains("printf") || Name.contains("assert") ||
           Name.starts_with("__st") || Name.contains("_st_") || Name.contains("trap") ||
           Name.contains("sleep") || Name.contains("barrier") || Name.contains("bar_");
  }
  return changesState(Def->getBody(), Def, Depth);
}

/// Whether \p E reads anything a call could change: a variable other than
/// a constant or a built-in index, or memory through a pointer.
bool readsState(const Expr *E) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      const auto *V = dyn_cast<VarDecl>(R->getDecl());
      Found |= V && !builtinVar(V) && !V->isConstexpr() &&
               !(V->getType().isConstQualified() && V->hasLocalStorage());
      return !Found;
    }
    bool VisitCallExpr(CallExpr *C) {
      Found |= !isBuiltinGetter(C->getDirectCallee());
      return !Found;
    }
  } Find;
  Find.TraverseStmt(const_cast<Expr *>(E));
  return Find.Found;
}

/// Why \p Call cannot run before \p Before, which C++17 evaluates first;
/// null when it can.
const char *sequencingHazard(const Expr &Before, const CallExpr &Call) {
  if (changesState(&Before, nullptr, 0))
    return "C++17 evaluates an operand with side effects before it (the right of an assignment, "
           "the left of a shift, an array before its index, a callee before its arguments), "
           "and an inlined body runs before the whole statement";
  bool CallChanges = changesState(&Call, nullptr, 0);
  if (CallChanges && readsState(&Before))
    return "it may change what an operand C++17 evaluates before it reads (the right of an "
           "assignment, the left of a shift, an array before its index, a callee before its "
           "arguments), and an inlined body runs before the whole statement";
  return nullptr;
}

class KernelVisitor : public RecursiveASTVisitor<KernelVisitor> {
public:
  KernelVisitor(KernelModel &Model, ASTContext &Ctx, const RejectedCode &Rejected)
      : Model(Model), Ctx(Ctx), Effects(Rejected) {}

  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseForStmt(ForStmt *S) {
    return inLoop(S, [&] { return Base::TraverseForStmt(S); });
  }
  bool VisitStmt(Stmt *S) {
    if (const Expr *Read = LambdaDepth == 0 ? pollingRead(loopCondition(S)) : nullptr)
      Model.SpinWaits.push_back(Read);
    return true;
  }
  bool TraverseWhileStmt(WhileStmt *S) {
    return inLoop(S, [&] { return Base::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) {
    return inLoop(S, [&] { return Base::TraverseDoStmt(S); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return inLoop(S, [&] { return Base::TraverseCXXForRangeStmt(S); });
  }
  // A call in an unevaluated operand (sizeof, alignof, noexcept, decltype)
  // never runs: it stays as written, and the function it names stays
  // declared in the fused file. (Device code has no typeid.)
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *E) {
    return unevaluated([&] { return Base::TraverseUnaryExprOrTypeTraitExpr(E); });
  }
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr *E) {
    return unevaluated([&] { return Base::TraverseCXXNoexceptExpr(E); });
  }
  bool TraverseDecltypeTypeLoc(DecltypeTypeLoc TL) {
    return unevaluated([&] { return Base::TraverseDecltypeTypeLoc(TL); });
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
    if (isMutableStaticLocal(*D))
      Model.StaticLocals.push_back(D);
    return true;
  }
  bool VisitIfStmt(IfStmt *S) {
    if (!S->isConstexpr() || !Model.Decl->isTemplateInstantiation())
      return true;
    for (const Stmt *Branch : {S->getThen(), S->getElse()})
      if (const auto *C = dyn_cast_or_null<CompoundStmt>(Branch); C && C->body_empty())
        Model.DiscardedBranches.push_back(C);
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
  bool VisitCXXThisExpr(CXXThisExpr *E) {
    if (LambdaDepth == 0 && !E->isImplicit())
      Model.ExplicitThis.push_back(E);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    const auto *This = dyn_cast<CXXThisExpr>(E->getBase()->IgnoreParenImpCasts());
    if (LambdaDepth == 0 && This && This->isImplicit())
      Model.ImplicitMembers.push_back(E);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *S) {
    if (LambdaDepth == 0)
      Model.Returns.push_back({S, Loops});
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    if (std::optional<WarpCollective> W = warpCollective(*S))
      Model.WarpCollectives.push_back(*W);
    if (asmSynchronizes(*S))
      Model.AsmBarriers.push_back(parseAsmBarrier(*S));
    if (!threadEndingInstruction(*S).empty())
      Model.AsmExits.push_back(S);
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
    if (UnevaluatedDepth)
      return true;
    const FunctionDecl *Callee = Call->getDirectCallee();
    StringRef Name = calleeName(Callee);
    if (std::optional<WarpCollective> W = warpCollective(*Call, Ctx))
      Model.WarpCollectives.push_back(*W);
    if (isWarpSync(Name)) {
      Model.WarpSyncs.push_back(Call);
      return true;
    }
    if (std::optional<BarrierKind> Kind = barrierKind(Name)) {
      Model.Barriers.push_back({Call, *Kind, Name.str(), standsAlone(Call), Loops});
      return true;
    }
    GroupCall Group = classifyGroupCall(*Call);
    switch (Group.Kind) {
    case GroupCallKind::BlockSync:
      Model.Barriers.push_back(
          {Call, BarrierKind::GroupSync, Name.str(), standsAlone(Call), Loops});
      return true;
    case GroupCallKind::GridSync:
      Model.GridSyncs.push_back(Call);
      return true;
    case GroupCallKind::BlockQuery:
      Model.GroupQueries.push_back({Call, Group.Query, Group.TileSize});
      return true;
    case GroupCallKind::Unsupported:
      Model.GroupRefusals.push_back({Call, Group.Why});
      return true;
    case GroupCallKind::Handle:
    case GroupCallKind::WarpLocal:
      if (std::optional<WarpCollective> W = warpCollective(*Call, Group))
        Model.WarpCollectives.push_back(*W);
      return true;
    case GroupCallKind::None:
      break;
    }
    if (Callee && (isBuiltinGetter(Callee) || isLocalLambda(Callee)))
      return true;
    CalleeEffect Effect;
    if (!Callee)
      Effect.Unknown = true;
    else if (readsThreadRegister(Name))
      Effect.ReadsBuiltins = true;
    else
      Effect = Effects.effectOf(Callee);
    CallSite Site{Call, Callee, Effect};
    placeCall(Site);
    Site.NotCopyable = copyObstacle(Site);
    Site.DeclaresShared = Callee && declaresStaticShared(*Callee);
    Model.Calls.push_back(Site);
    return true;
  }

  /// Constructions kfuse does not inline: each is kept when its constructor
  /// or the destructor that runs later does something.
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    if (UnevaluatedDepth)
      return true;
    CalleeEffect Effect = Effects.lifetimeEffect(*C);
    if (Effect.touchesBlock() || Effect.Unknown || Effect.GroupCall || Effect.Rejected ||
        Effect.WarpSync)
      Model.SpecialCalls.push_back({C, C->getBeginLoc(), C->getConstructor(), Effect});
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
  unsigned UnevaluatedDepth = 0;

  template <typename Fn> bool unevaluated(Fn Traverse) {
    ++UnevaluatedDepth;
    bool Result = Traverse();
    --UnevaluatedDepth;
    return Result;
  }

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
    if (!Var->isLocalVarDecl())
      return false;
    // A local of a lambda the kernel defines is renamed with the kernel's.
    const DeclContext *DC = Var->getParentFunctionOrMethod(/*LexicalParent=*/true);
    while (const auto *M = dyn_cast_or_null<CXXMethodDecl>(DC)) {
      if (!M->getParent()->isLambda())
        break;
      DC = M->getParent()->getParentFunctionOrMethod(/*LexicalParent=*/true);
    }
    return DC == Model.Decl;
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
    if (isMutableDeviceVariable(*Var))
      Model.DeviceVariables.push_back(Var->getCanonicalDecl());
  }

  void addShared(const VarDecl *Var, bool FileScope) {
    QualType T = Var->getType();
    bool Dynamic = T->isIncompleteArrayType();
    uint64_t Bytes = Dynamic || T->isDependentType() ? 0 : Ctx.getTypeSizeInChars(T).getQuantity();
    Model.Shared.push_back({Var, Dynamic, FileScope, Bytes});
  }

  /// True when \p S is a statement of its own, not part of an expression.
  bool standsAlone(const Stmt *S) const {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    if (Parents.empty())
      return false;
    const Stmt *Parent = Parents[0].get<Stmt>();
    if (!Parent)
      return false;
    if (isa<CompoundStmt, LabelStmt, CaseStmt, DefaultStmt>(Parent))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      return If->getThen() == S || If->getElse() == S;
    if (const auto *For = dyn_cast<ForStmt>(Parent))
      return For->getBody() == S;
    if (const auto *While = dyn_cast<WhileStmt>(Parent))
      return While->getBody() == S;
    if (const auto *Do = dyn_cast<DoStmt>(Parent))
      return Do->getBody() == S;
    return false;
  }

  /// The call with the implicit nodes around it (conversions, temporaries).
  const Stmt *outermost(const Stmt *S) const {
    while (true) {
      DynTypedNodeList Parents = Ctx.getParents(*S);
      const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
      if (!Parent || !isa<ImplicitCastExpr, ExprWithCleanups, MaterializeTemporaryExpr,
                          CXXBindTemporaryExpr, ParenExpr, CXXConstructExpr>(Parent))
        return S;
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(Parent);
          Construct && Construct->getNumArgs() != 1)
        return S;
      S = Parent;
    }
  }

  const Stmt *parentOf(const Stmt &S) const {
    DynTypedNodeList Parents = Ctx.getParents(S);
    if (Parents.empty())
      return nullptr;
    if (const auto *Var = Parents[0].get<VarDecl>()) {
      DynTypedNodeList Up = Ctx.getParents(*Var);
      return Up.empty() ? nullptr : Up[0].get<DeclStmt>();
    }
    return Parents[0].get<Stmt>();
  }

  /// The lambdas whose bodies hold \p S, innermost first, up to the function
  /// being analyzed. A lambda's body hangs off its call operator, not off
  /// the lambda expression.
  std::vector<const CXXRecordDecl *> lambdasAround(const Stmt &S) const {
    std::vector<const CXXRecordDecl *> Found;
    DynTypedNodeList Parents = Ctx.getParents(S);
    while (!Parents.empty()) {
      const DynTypedNode &Up = Parents[0];
      if (const auto *Method = Up.get<CXXMethodDecl>();
          Method && Method->getParent()->isLambda() &&
          (Found.empty() || Found.back() != Method->getParent()))
        Found.push_back(Method->getParent());
      else if (const auto *F = Up.get<FunctionDecl>(); F && !isa<CXXMethodDecl>(F))
        break;
      else if (const auto *Lambda = Up.get<LambdaExpr>();
               Lambda && (Found.empty() || Found.back() != Lambda->getLambdaClass()))
        Found.push_back(Lambda->getLambdaClass());
      Parents = Ctx.getParents(Up);
    }
    return Found;
  }

  /// Walks from the call up to the statement it belongs to, noting whether
  /// that statement evaluates it exactly once, before what depends on it.
  void placeCall(CallSite &Site) const {
    const Expr *Whole = cast<Expr>(outermost(Site.Call));
    Site.Whole = Whole;
    // An inlined body cannot land in a lambda's statements: the lambda may
    // not capture the section's view of the block, and its returns are its own.
    if (!lambdasAround(*Whole).empty()) {
      Site.NotHoistable = "it is inside a lambda";
      return;
    }
    if (standsAlone(Whole)) {
      Site.Position = CallPosition::Statement;
      Site.Site = Whole;
      return;
    }
    const Stmt *Child = Whole;
    for (const Stmt *Parent = parentOf(*Child); Parent; Child = Parent, Parent = parentOf(*Child)) {
      // The inlined body runs before the whole statement: nothing C++17
      // evaluates before the call may change what it reads, or read what it
      // changes. Such a call stays in place, as a call of the section's copy.
      for (const Expr *Before : sequencedBefore(Parent, Child))
        if (const char *Why = sequencingHazard(*Before, *Site.Call)) {
          Site.NotHoistable = Why;
          return;
        }
      if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
        if ((Op->isLogicalOp() || Op->isCommaOp()) && Op->getRHS() == Child) {
          Site.NotHoistable = "it is evaluated only after the left operand of '&&', '||' or ','";
          return;
        }
      } else if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(Parent)) {
        if (Cond->getCond() != Child) {
          Site.NotHoistable = "it is one branch of a conditional operator";
          return;
        }
      } else if (isa<ForStmt, WhileStmt, DoStmt>(Parent)) {
        const auto *For = dyn_cast<ForStmt>(Parent);
        if (For && For->getInit() == Child)
          return hoist(Site, For);
        Site.NotHoistable = "a loop evaluates it again on every iteration";
        return;
      } else if (isa<IfStmt, SwitchStmt, ReturnStmt>(Parent)) {
        return hoist(Site, Parent);
      } else if (const auto *Decl = dyn_cast<DeclStmt>(Parent)) {
        if (isa_and_nonnull<ForStmt>(parentOf(*Decl)) && Decl->isSingleDecl())
          continue; // for (T x = f(a); ...) hoists out of the loop's initialization.
        if (!standsAlone(Decl) || !Decl->isSingleDecl()) {
          Site.NotHoistable = "it initializes one of several variables declared together";
          return;
        }
        return hoist(Site, Decl);
      } else if (!isa<Expr>(Parent)) {
        if (standsAlone(Child))
          return hoist(Site, Child);
        Site.NotHoistable = "kfuse cannot find the statement to hoist it out of";
        return;
      }
    }
  }

  /// Why the section could not call a copy of the callee in place of this
  /// call: a lambda around it that would not capture the copy, or an object
  /// whose address the copy cannot take.
  const char *copyObstacle(const CallSite &Site) const {
    for (const CXXRecordDecl *Lambda : lambdasAround(*Site.Call))
      if (Lambda->getLambdaCaptureDefault() == LCD_None)
        return "it is inside a lambda that captures nothing by default, so it cannot call a "
               "copy of the function the kernel's section defines";
    const Expr *Object = nullptr;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Site.Call)) {
      const auto *Callee = dyn_cast<MemberExpr>(Member->getCallee()->IgnoreParens());
      if (!Callee || !Callee->isArrow())
        Object = Member->getImplicitObjectArgument();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Site.Call);
               Op && isa_and_nonnull<CXXMethodDecl>(Site.Callee) && Op->getNumArgs() > 0) {
      Object = Op->getArg(0);
    }
    if (Object && !isa<CXXThisExpr>(Object->IgnoreParenImpCasts()) && !Object->isLValue())
      return "its object is a temporary, whose address a copy of the function cannot take";
    return "";
  }

  static void hoist(CallSite &Site, const Stmt *Statement) {
    Site.Position = CallPosition::Hoisted;
    Site.Site = Statement;
  }
};

bool isDefinedKernel(const FunctionDecl *F, const SourceManager &SM) {
  return F->hasAttr<CUDAGlobalAttr>() && F->isThisDeclarationADefinition() &&
         !F->isTemplateInstantiation() && !SM.isInSystemHeader(F->getLocation());
}

class KernelCollector : public RecursiveASTVisitor<KernelCollector> {
public:
  explicit KernelCollector(const SourceManager &SM) : SM(SM) {}
  /// The toolkit's headers define no kernel kfuse reads, and are most of
  /// the unit: suggest looks kernels up once per launch.
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) && SM.isInSystemHeader(D->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *F) {
    if (isDefinedKernel(F, SM))
      Kernels.push_back(F);
    return true;
  }
  std::vector<const FunctionDecl *> Kernels;

private:
  const SourceManager &SM;
};

} // namespace

bool callMayChangeState(const FunctionDecl &F) {
  return !isBuiltinGetter(&F) && writesMemory(&F, 0);
}

bool isBuiltinVariableGetter(const FunctionDecl &F) { return isBuiltinGetter(&F); }

std::vector<const FunctionDecl *> findKernels(ASTUnit &Unit) {
  KernelCollector Collector(Unit.getSourceManager());
  Collector.TraverseDecl(Unit.getASTContext().getTranslationUnitDecl());
  return Collector.Kernels;
}

namespace {

/// Whether a config's kernel name \p Name, qualified or not, names \p F.
bool namedBy(const FunctionDecl &F, StringRef Name) {
  return F.getQualifiedNameAsString() == Name || F.getNameAsString() == Name;
}

} // namespace

const FunctionDecl *findKernel(ASTUnit &Unit, llvm::StringRef Name) {
  std::vector<const FunctionDecl *> All = kernelsNamed(Unit, Name);
  return All.empty() ? nullptr : All.front();
}

std::vector<const FunctionDecl *> kernelsNamed(ASTUnit &Unit, llvm::StringRef Name) {
  std::vector<const FunctionDecl *> Found;
  for (const FunctionDecl *F : findKernels(Unit))
    if (namedBy(*F, Name))
      Found.push_back(F);
  return Found;
}

namespace {

/// A kernel as both sides of a compilation see it: its qualified name,
/// template arguments and parameter types.
std::string signatureOf(const FunctionDecl &F) {
  std::string S = instantiationName(F) + "(";
  for (const ParmVarDecl *P : F.parameters())
    S += P->getType().getCanonicalType().getUnqualifiedType().getAsString() + ",";
  return S + ")";
}

} // namespace

KernelIndex::KernelIndex(ASTUnit &Unit) {
  // Every kernel with a body, instantiations included (findSameKernel's),
  // and among them those findKernels gives.
  struct Collector : RecursiveASTVisitor<Collector> {
    const SourceManager *SM = nullptr;
    KernelIndex *Index = nullptr;
    bool shouldVisitTemplateInstantiations() const { return true; }
    // A kernel of the toolkit's headers is not one kfuse reads (as
    // findKernels); skipping them saves most of the unit.
    bool TraverseDecl(Decl *D) {
      if (D && !isa<TranslationUnitDecl>(D) && SM->isInSystemHeader(D->getLocation()))
        return true;
      return RecursiveASTVisitor::TraverseDecl(D);
    }
    bool VisitFunctionDecl(FunctionDecl *F) {
      if (F->hasAttr<CUDAGlobalAttr>() && F->doesThisDeclarationHaveABody() &&
          !F->isDependentContext())
        Index->BySignature.emplace(signatureOf(*F), F);
      if (isDefinedKernel(F, *SM))
        Index->Defined.push_back(F);
      return true;
    }
  } C;
  C.SM = &Unit.getSourceManager();
  C.Index = this;
  C.TraverseDecl(Unit.getASTContext().getTranslationUnitDecl());
}

const FunctionDecl *KernelIndex::same(const FunctionDecl &Declared) const {
  auto It = BySignature.find(signatureOf(Declared));
  return It == BySignature.end() ? nullptr : It->second;
}

size_t KernelIndex::countNamed(StringRef Name) const {
  return llvm::count_if(Defined, [&](const FunctionDecl *F) { return namedBy(*F, Name); });
}

const FunctionDecl *findSameKernel(ASTUnit &Unit, const FunctionDecl &Declared) {
  return KernelIndex(Unit).same(Declared);
}

std::string kernelNameKey(StringRef Text) {
  std::string Out;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == ' ' || C == '\t')
      continue;
    if ((C == 'u' || C == 'U') && I > 0 && isDigit(Text[I - 1]) &&
        (I + 1 == Text.size() || !isAlphanumeric(Text[I + 1])))
      continue;
    Out += C;
  }
  return Out;
}

std::string instantiationName(const FunctionDecl &F) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  PrintingPolicy Policy = F.getASTContext().getPrintingPolicy();
  F.getNameForDiagnostic(OS, Policy, /*Qualified=*/true);
  return Name;
}

namespace {

std::string parameterTypes(const FunctionDecl &F) {
  std::string S;
  for (const ParmVarDecl *P : F.parameters())
    S += (S.empty() ? "" : ", ") + P->getType().getAsString(F.getASTContext().getPrintingPolicy());
  return S;
}

std::string withoutBlanks(StringRef Text) {
  std::string Out;
  for (char C : Text)
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
  return Out;
}

} // namespace

std::string overloadName(const FunctionDecl &F) {
  return instantiationName(F) + "(" + parameterTypes(F) + ")";
}

std::pair<std::string, std::optional<std::string>> splitOverloadName(StringRef Text) {
  Text = Text.trim();
  size_t Open = Text.find('(');
  if (Open == StringRef::npos || !Text.ends_with(")"))
    return {Text.str(), std::nullopt};
  return {Text.take_front(Open).rtrim().str(), Text.drop_front(Open + 1).drop_back().trim().str()};
}

const FunctionDecl *findOverload(ASTUnit &Unit, StringRef Name, StringRef Params) {
  for (const FunctionDecl *F : kernelsNamed(Unit, Name))
    if (withoutBlanks(parameterTypes(*F)) == withoutBlanks(Params))
      return F;
  return nullptr;
}

const FunctionDecl *findDeclaredOnlyKernel(ASTUnit &Unit, StringRef Name) {
  for (const Decl *D : Unit.getASTContext().getTranslationUnitDecl()->decls()) {
    const auto *F = dyn_cast<FunctionDecl>(D);
    if (F && F->hasAttr<CUDAGlobalAttr>() && !F->isDefined() && namedBy(*F, Name))
      return F;
  }
  return nullptr;
}

KernelLookup lookUpKernel(ASTUnit &Unit, StringRef Name) {
  KernelLookup Result;
  StringRef Base = Name.take_until([](char C) { return C == '<'; }).trim();
  const FunctionDecl *Found = findKernel(Unit, Base);
  if (!Found)
    return Result;
  const FunctionTemplateDecl *Template = Found->getDescribedFunctionTemplate();
  if (!Template) {
    if (Base.size() == Name.size())
      Result.Kernel = Found;
    return Result;
  }
  Result.Template = Found;
  std::string Wanted = kernelNameKey(Name.drop_front(Base.size()));
  for (const FunctionDecl *Spec : Template->specializations()) {
    if (!Spec->isDefined())
      continue;
    std::string Spelled = instantiationName(*Spec);
    Result.Instantiations.push_back(Spelled);
    StringRef Args = StringRef(Spelled).drop_until([](char C) { return C == '<'; });
    if (!Wanted.empty() && kernelNameKey(Args) == Wanted)
      Result.Kernel = Spec->getDefinition();
  }
  return Result;
}

KernelModel analyzeKernel(ASTUnit &Unit, const FunctionDecl &Kernel, const RejectedCode &Rejected) {
  KernelModel Model;
  Model.Decl = &Kernel;
  Model.Name = instantiationName(Kernel);
  Model.Params.assign(Kernel.param_begin(), Kernel.param_end());
  Model.Rejected = Rejected.of(Kernel);
  ASTContext &Ctx = Unit.getASTContext();
  KernelVisitor Visitor(Model, Ctx, Rejected);
  Visitor.TraverseStmt(Kernel.getBody());
  Model.Conditionals = findConditionals(Unit, Kernel.getBody()->getSourceRange());
  Model.TreeReductions = findTreeReductions(Kernel, Ctx);
  if (const auto *Bounds = Kernel.getAttr<CUDALaunchBoundsAttr>()) {
    Expr::EvalResult Result;
    if (Bounds->getMaxThreads() && Bounds->getMaxThreads()->EvaluateAsInt(Result, Ctx))
      Model.LaunchBoundsMaxThreads = Result.Val.getInt().getZExtValue();
  }
  return Model;
}

std::optional<std::pair<BuiltinVar, unsigned>> builtinComponent(const Expr *E) {
  const auto *PO = dyn_cast<PseudoObjectExpr>(E);
  const auto *Prop =
      PO ? dyn_cast<MSPropertyRefExpr>(PO->getSyntacticForm()->IgnoreParens()) : nullptr;
  const Expr *BaseExpr = Prop ? Prop->getBaseExpr()->IgnoreParenImpCasts() : nullptr;
  if (const auto *Opaque = dyn_cast_or_null<OpaqueValueExpr>(BaseExpr))
    BaseExpr = Opaque->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Base = dyn_cast_or_null<DeclRefExpr>(BaseExpr);
  std::optional<BuiltinVar> Var = Base ? builtinVar(Base->getDecl()) : std::nullopt;
  if (!Var)
    return std::nullopt;
  StringRef Dim = Prop->getPropertyDecl()->getName();
  if (Dim != "x" && Dim != "y" && Dim != "z")
    return std::nullopt;
  return std::make_pair(*Var, static_cast<unsigned>(Dim[0] - 'x'));
}

static bool reachesTreeReduction(const KernelModel &Model, FunctionModels &Helpers,
                                 unsigned Depth) {
  if (!Model.TreeReductions.empty())
    return true;
  // Recursion is refused before this is asked; the depth only bounds it.
  if (Depth == 0)
    return false;
  for (const CallSite *C : Model.callsToInline())
    if (const FunctionDecl *Def = C->Callee->getDefinition(); Def && Def->hasBody())
      if (reachesTreeReduction(Helpers.of(*Def), Helpers, Depth - 1))
        return true;
  return false;
}

bool reachesTreeReduction(const KernelModel &Model, FunctionModels &Helpers) {
  return reachesTreeReduction(Model, Helpers, 16);
}

const KernelModel &FunctionModels::of(const FunctionDecl &F) {
  const FunctionDecl *Definition = F.getDefinition();
  std::unique_ptr<KernelModel> &Model = Models[Definition];
  if (!Model)
    Model = std::make_unique<KernelModel>(analyzeKernel(Unit, *Definition, Rejected));
  return *Model;
}

} // namespace kfuse
