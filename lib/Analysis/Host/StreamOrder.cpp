//===- StreamOrder.cpp - what a wait between two launches orders ----------===//

#include "kfuse/Analysis/Host/StreamOrder.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace kfuse {

using namespace clang;

bool isDoWhileZero(const Stmt *S) {
  const auto *D = dyn_cast_or_null<DoStmt>(S);
  const auto *Zero = D ? dyn_cast<IntegerLiteral>(D->getCond()->IgnoreParenImpCasts()) : nullptr;
  return Zero && Zero->getValue() == 0;
}

bool runsWith(const Stmt *Parent, const Stmt *Child) {
  if (isa<ExprWithCleanups, ImplicitCastExpr, ExplicitCastExpr, ParenExpr, ConstantExpr,
          MaterializeTemporaryExpr, CXXBindTemporaryExpr, CXXConstructExpr, DeclStmt,
          AttributedStmt, CompoundStmt>(Parent) ||
      isDoWhileZero(Parent))
    return true;
  if (const auto *C = dyn_cast<CallExpr>(Parent))
    return C->getCallee() != Child;
  if (const auto *U = dyn_cast<UnaryOperator>(Parent))
    return U->getOpcode() != UO_AddrOf;
  if (const auto *B = dyn_cast<BinaryOperator>(Parent))
    return !B->isLogicalOp() || B->getLHS() == Child;
  if (const auto *C = dyn_cast<ConditionalOperator>(Parent))
    return C->getCond() == Child;
  if (const auto *I = dyn_cast<IfStmt>(Parent))
    return I->getCond() == Child || I->getInit() == Child;
  if (const auto *Sw = dyn_cast<SwitchStmt>(Parent))
    return Sw->getCond() == Child || Sw->getInit() == Child;
  return false;
}

StatementPlace placeOf(const Stmt *S, const ParentMap &Parents) {
  StatementPlace Place;
  for (const Stmt *P = Parents.getParent(S); P; S = P, P = Parents.getParent(P)) {
    if (isa<ForStmt, WhileStmt, CXXForRangeStmt>(P) || (isa<DoStmt>(P) && !isDoWhileZero(P)))
      Place.InLoop = true;
    const auto *Block = dyn_cast<CompoundStmt>(P);
    bool InMacroBlock = Block && isDoWhileZero(Parents.getParent(P));
    if (!Place.Scope && !(Block && !InMacroBlock) && !runsWith(P, S))
      Place.Straight = false;
    if (!Block || Place.Scope || InMacroBlock)
      continue;
    Place.Scope = Block;
    Place.Position = std::find(Block->body_begin(), Block->body_end(), S) - Block->body_begin();
  }
  return Place;
}

bool StreamRef::same(const StreamRef &O) const {
  if (What == Unknown || O.What == Unknown || What != O.What)
    return false;
  return What == Default || Text == O.Text;
}

namespace {

const Expr *strip(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *X = dyn_cast<ExplicitCastExpr>(E))
      E = X->getSubExpr();
    else if (const auto *C = dyn_cast<ExprWithCleanups>(E))
      E = C->getSubExpr();
    else
      return E;
  }
  return E;
}

bool isStreamType(QualType T) {
  const auto *P = T.isNull() ? nullptr : T.getCanonicalType()->getAs<PointerType>();
  const RecordDecl *R = P ? P->getPointeeType()->getAsRecordDecl() : nullptr;
  return R && R->getIdentifier() && R->getName() == "CUstream_st";
}

/// The stream argument of a runtime call: the last one of type cudaStream_t.
StreamRef streamArgument(const CallExpr &C, ASTContext &Ctx) {
  for (unsigned I = C.getNumArgs(); I-- > 0;)
    if (isStreamType(C.getArg(I)->getType()))
      return streamOf(C.getArg(I), Ctx);
  return {};
}

/// Copies and fills: which arguments they write and read.
struct CopyShape {
  const char *Name;
  int Written, Read; ///< Argument positions; -1 for none.
  bool Async;
};
constexpr CopyShape Copies[] = {
    {"cudaMemcpyAsync", 0, 1, true},
    {"cudaMemcpy2DAsync", 0, 2, true},
    {"cudaMemcpyPeerAsync", 0, 2, true},
    {"cudaMemsetAsync", 0, -1, true},
    {"cudaMemset2DAsync", 0, -1, true},
    {"cudaMemcpyToSymbolAsync", 0, 1, true},
    {"cudaMemcpyFromSymbolAsync", 0, 1, true},
    {"cudaMemPrefetchAsync", -1, 0, true},
    {"cudaFreeAsync", 0, -1, true},
    {"cudaMemcpy", 0, 1, false},
    {"cudaMemcpy2D", 0, 2, false},
    {"cudaMemcpyPeer", 0, 2, false},
    {"cudaMemset", 0, -1, false},
    {"cudaMemset2D", 0, -1, false},
    {"cudaMemcpyToSymbol", 0, 1, false},
    {"cudaMemcpyFromSymbol", 0, 1, false},
};

/// Runtime calls that queue work whose memory kfuse does not read from
/// their arguments.
bool queuesOpaqueWork(StringRef Name) {
  return llvm::is_contained({"cudaLaunchHostFunc", "cudaStreamAddCallback", "cudaGraphLaunch",
                             "cudaLaunchKernel", "cudaLaunchCooperativeKernel",
                             "cudaLaunchKernelEx", "cudaLaunchKernelExC"},
                            Name) ||
         ((Name.starts_with("cudaMemcpy") || Name.starts_with("cudaMemset")) &&
          !llvm::any_of(Copies, [&](const CopyShape &S) { return Name == S.Name; }));
}

bool inSystemHeader(const Decl &D) {
  return D.getASTContext().getSourceManager().isInSystemHeader(D.getLocation());
}

/// Finds the work a body queues, following the program's own functions.
class WorkFinder : public RecursiveASTVisitor<WorkFinder> {
public:
  WorkFinder(ASTContext &Ctx, HostAliases &Aliases, std::vector<QueuedWork> &Out, unsigned Depth)
      : Ctx(Ctx), Aliases(Aliases), Out(Out), Depth(Depth) {}

  bool shouldVisitLambdaBody() const { return false; }

  /// A lambda runs where it is called, which may be anywhere: its work is
  /// pending everywhere.
  bool TraverseLambdaExpr(LambdaExpr *L) {
    if (std::optional<std::string> Inner = queuedIn(L->getBody(), 0))
      Out.push_back(opaque(L, "a lambda that queues " + *Inner, /*Anywhere=*/true));
    return true;
  }

  bool VisitCallExpr(CallExpr *C) {
    if (std::optional<QueuedWork> W = queued(*C))
      Out.push_back(std::move(*W));
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    const CXXConstructorDecl *Ctor = C->getConstructor();
    const FunctionDecl *Def = nullptr;
    if (inSystemHeader(*Ctor) || !Ctor->hasBody(Def) || !Def)
      return true;
    if (std::optional<std::string> Inner = queuedIn(Def->getBody(), Depth + 1))
      Out.push_back(opaque(C, "the constructor of '" + Ctor->getParent()->getNameAsString() +
                                  "', which queues " + *Inner));
    return true;
  }

private:
  ASTContext &Ctx;
  HostAliases &Aliases;
  std::vector<QueuedWork> &Out;
  unsigned Depth;

  /// Work on a stream kfuse does not know that may use any buffer.
  static QueuedWork opaque(const Expr *At, std::string What, bool Anywhere = false) {
    QueuedWork W;
    W.At = At;
    W.What = std::move(What);
    W.Stream.What = StreamRef::Unknown;
    W.Touches.push_back(anyBuffer());
    W.Anywhere = Anywhere;
    return W;
  }

  static QueuedWork::Touch anyBuffer() {
    QueuedWork::Touch T;
    T.Roots.Any = true;
    T.Roots.Why = "kfuse cannot tell what it uses";
    return T;
  }

  /// What \p S queues, in words; nothing when it queues nothing.
  std::optional<std::string> queuedIn(const Stmt *S, unsigned Depth) const {
    if (!S)
      return std::nullopt;
    if (Depth > 3)
      return std::string("work kfuse does not follow further");
    std::vector<QueuedWork> Inner;
    WorkFinder Find(Ctx, Aliases, Inner, Depth);
    Find.TraverseStmt(const_cast<Stmt *>(S));
    if (Inner.empty())
      return std::nullopt;
    return Inner.front().What;
  }

  QueuedWork::Touch touch(const Expr *E, ParamUse Use) const {
    QueuedWork::Touch T;
    T.Use = Use;
    const Expr *S = strip(E);
    // A __device__ variable named as a copy's symbol is its own buffer.
    if (const auto *R = dyn_cast_or_null<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(R->getDecl());
          V && (V->hasAttr<CUDADeviceAttr>() || V->hasAttr<CUDAConstantAttr>())) {
        T.Roots.Names.insert(V->getQualifiedNameAsString());
        return T;
      }
    if (!E->getType()->isPointerType() && !E->getType()->isArrayType())
      return anyBuffer();
    T.Roots = Aliases.rootsOf(E);
    return T;
  }

  std::optional<QueuedWork> queued(const CallExpr &C) const {
    QueuedWork W;
    W.At = &C;
    if (const auto *K = dyn_cast<CUDAKernelCallExpr>(&C)) {
      const CallExpr *Config = K->getConfig();
      W.Stream = Config->getNumArgs() > 3 ? streamOf(Config->getArg(3), Ctx) : StreamRef{};
      const FunctionDecl *Kernel = K->getDirectCallee();
      W.What = "the launch of '" + (Kernel ? Kernel->getNameAsString() : std::string("?")) + "'";
      for (const Expr *Arg : K->arguments())
        if (Arg->getType()->isPointerType())
          W.Touches.push_back(touch(Arg, ParamUse::Unknown));
      if (!Kernel)
        W.Touches.push_back(anyBuffer());
      return W;
    }
    const FunctionDecl *F = C.getDirectCallee();
    if (!F) {
      W.What = "a call through a pointer";
      W.Stream.What = StreamRef::Unknown;
      W.Touches.push_back(anyBuffer());
      return W;
    }
    std::string Name = F->getIdentifier() ? F->getName().str() : F->getNameAsString();
    W.What = "'" + Name + "'";
    for (const CopyShape &S : Copies)
      if (Name == S.Name) {
        W.Stream = S.Async ? streamArgument(C, Ctx) : StreamRef{};
        for (int I : {S.Written, S.Read})
          if (I >= 0 && static_cast<unsigned>(I) < C.getNumArgs())
            W.Touches.push_back(
                touch(C.getArg(I), I == S.Written ? ParamUse::Written : ParamUse::Read));
        return W;
      }
    if (queuesOpaqueWork(Name) ||
        (StringRef(Name).starts_with("cuda") && StringRef(Name).ends_with("Async"))) {
      W.Stream = streamArgument(C, Ctx);
      W.Touches.push_back(anyBuffer());
      return W;
    }
    std::string Qualified = F->getQualifiedNameAsString();
    bool Library = StringRef(Qualified).starts_with("thrust::") ||
                   StringRef(Qualified).starts_with("cub::") ||
                   (StringRef(Name).starts_with("cu") && !StringRef(Name).starts_with("cuda"));
    if (inSystemHeader(*F) || F->getBuiltinID()) {
      if (!Library)
        return std::nullopt;
      // Libraries queue on streams they were given elsewhere.
      W.Stream.What = StreamRef::Unknown;
      W.Touches.push_back(anyBuffer());
      return W;
    }
    const FunctionDecl *Def = nullptr;
    if (!F->hasBody(Def) || !Def) {
      W.What += ", whose body kfuse cannot see,";
      W.Stream.What = StreamRef::Unknown;
      W.Touches.push_back(anyBuffer());
      return W;
    }
    std::vector<QueuedWork> Inner;
    if (Depth >= 3) {
      Inner.push_back(opaque(&C, "work kfuse does not follow further"));
    } else {
      WorkFinder Find(Ctx, Aliases, Inner, Depth + 1);
      Find.TraverseStmt(Def->getBody());
    }
    if (Inner.empty())
      return std::nullopt;
    W.What += ", which queues " + Inner.front().What + ",";
    W.Stream.What = StreamRef::Unknown;
    // What the callee's work uses it names by the callee's own names: any
    // buffer, unless none of it uses memory at all (a delay, a timer).
    if (llvm::any_of(Inner, [](const QueuedWork &I) { return !I.Touches.empty(); }))
      W.Touches.push_back(anyBuffer());
    return W;
  }
};

/// Waits: device-wide, or for one stream.
struct Wait {
  const CallExpr *Call;
  bool DeviceWide;
  StreamRef Stream; ///< For a stream's wait.
};

bool isDeviceWideWait(StringRef Name) {
  return Name == "cudaDeviceSynchronize" || Name == "cudaThreadSynchronize";
}

/// Calls after which the host, or a stream, waits for what was queued
/// before: the synchronizations, a stream waiting for an event, and the
/// copies, fills and frees the runtime runs in order with the default stream.
bool waits(StringRef Name) {
  return isDeviceWideWait(Name) ||
         llvm::is_contained({"cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent",
                             "cudaFree", "cudaFreeHost", "cudaFreeArray", "cudaMemcpyToSymbol",
                             "cudaMemcpyFromSymbol", "cudaMemcpy2D", "cudaMemcpy3D",
                             "cudaMemcpyPeer", "cudaMemcpy", "cudaMemset", "cudaMemset2D",
                             "cudaMemset3D", "cudaDeviceReset"},
                            Name);
}

const CallExpr *waitIn(const Stmt *S, unsigned Depth) {
  struct Finder : RecursiveASTVisitor<Finder> {
    unsigned Depth;
    const CallExpr *Found = nullptr;
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      if (!F)
        return true;
      if (F->getIdentifier() && waits(F->getName())) {
        Found = C;
        return false;
      }
      const FunctionDecl *Def = nullptr;
      // A wait in a function of the program waits where it is called.
      if (Depth < 3 && !inSystemHeader(*F) && F->hasBody(Def) && Def &&
          waitIn(Def->getBody(), Depth + 1))
        Found = C;
      return !Found;
    }
  } Find;
  Find.Depth = Depth;
  Find.TraverseStmt(const_cast<Stmt *>(S));
  return Find.Found;
}

/// Whether every call of \p F (of the program) waits for the whole device:
/// a statement of its body, before any return, runs cudaDeviceSynchronize.
bool alwaysWaitsForDevice(const FunctionDecl &F, unsigned Depth = 0) {
  const FunctionDecl *Def = nullptr;
  if (Depth > 3 || inSystemHeader(F) || !F.hasBody(Def) || !Def)
    return false;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body)
    return false;
  ParentMap Parents(const_cast<CompoundStmt *>(Body));
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const CallExpr *> Calls;
    bool Returns = false;
    bool shouldVisitLambdaBody() const { return false; }
    bool VisitCallExpr(CallExpr *C) {
      Calls.push_back(C);
      return true;
    }
    bool VisitStmt(Stmt *S) {
      Returns |= isa<ReturnStmt, GotoStmt, CXXThrowExpr, BreakStmt, ContinueStmt>(S);
      return true;
    }
  };
  for (const Stmt *S : Body->body()) {
    Finder Find;
    Find.TraverseStmt(const_cast<Stmt *>(S));
    for (const CallExpr *C : Find.Calls) {
      const FunctionDecl *Callee = C->getDirectCallee();
      if (!Callee || placeOf(C, Parents).Scope != Body || !placeOf(C, Parents).Straight)
        continue;
      if ((Callee->getIdentifier() && isDeviceWideWait(Callee->getName())) ||
          alwaysWaitsForDevice(*Callee, Depth + 1))
        return true;
    }
    if (Find.Returns)
      return false;
  }
  return false;
}

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, CXXForRangeStmt>(S) || (isa<DoStmt>(S) && !isDoWhileZero(S));
}

} // namespace

StreamRef streamOf(const Expr *E, ASTContext &Ctx) {
  if (!E || isa<CXXDefaultArgExpr>(E))
    return {};
  const Expr *S = strip(E);
  if (!S || S->isValueDependent())
    return {StreamRef::Unknown, ""};
  if (S->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull)
    return {};
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, Ctx.getLangOpts());
  std::string Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
  if (Text.empty())
    return {StreamRef::Unknown, ""};
  return {StreamRef::Named, Text};
}

const CallExpr *waitIn(const Stmt *S) { return waitIn(S, 0); }

struct StreamOrder::Facts {
  const Stmt *Body = nullptr;
  std::unique_ptr<ParentMap> Parents;
  std::vector<QueuedWork> Work;
  std::vector<Wait> Waits;
  /// Labels or gotos: a path may reach a launch around a wait.
  bool Jumps = false;
};

StreamOrder::StreamOrder(ASTContext &Ctx, const FunctionDecl &Caller, HostAliases &Aliases)
    : Ctx(Ctx), F(std::make_unique<Facts>()) {
  F->Body = Caller.getBody();
  F->Parents = std::make_unique<ParentMap>(const_cast<Stmt *>(F->Body));
  WorkFinder(Ctx, Aliases, F->Work, 0).TraverseStmt(const_cast<Stmt *>(F->Body));
  struct Finder : RecursiveASTVisitor<Finder> {
    ASTContext &Ctx;
    Facts &F;
    Finder(ASTContext &Ctx, Facts &F) : Ctx(Ctx), F(F) {}
    bool shouldVisitLambdaBody() const { return false; }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *Fn = C->getDirectCallee();
      if (!Fn)
        return true;
      if ((Fn->getIdentifier() && isDeviceWideWait(Fn->getName())) || alwaysWaitsForDevice(*Fn))
        F.Waits.push_back({C, true, {}});
      else if (Fn->getIdentifier() && Fn->getName() == "cudaStreamSynchronize" &&
               C->getNumArgs() == 1)
        F.Waits.push_back({C, false, streamOf(C->getArg(0), Ctx)});
      return true;
    }
    bool VisitStmt(Stmt *S) {
      F.Jumps |= isa<LabelStmt, GotoStmt, IndirectGotoStmt>(S);
      return true;
    }
  } Find(Ctx, *F);
  Find.TraverseStmt(const_cast<Stmt *>(F->Body));
}

StreamOrder::~StreamOrder() = default;

bool StreamOrder::before(const Stmt *A, const Stmt *B) const {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A->getBeginLoc()),
                                      SM.getExpansionLoc(B->getBeginLoc()));
}

bool StreamOrder::dominates(const CallExpr *Wait, const Expr *Launch) const {
  if (F->Jumps)
    return false;
  StatementPlace W = placeOf(Wait, *F->Parents);
  if (!W.Straight || !W.Scope)
    return false;
  // The launch's statement in the wait's block comes after the wait's, with
  // no case label between them that a switch could enter by.
  const Stmt *S = Launch;
  for (const Stmt *P = F->Parents->getParent(S); P; S = P, P = F->Parents->getParent(P)) {
    if (P != W.Scope)
      continue;
    const auto *Block = cast<CompoundStmt>(P);
    unsigned At = std::find(Block->body_begin(), Block->body_end(), S) - Block->body_begin();
    if (At <= W.Position)
      return false;
    for (unsigned I = W.Position + 1; I <= At && I < Block->size(); ++I)
      if (isa<SwitchCase>(Block->body_begin()[I]))
        return false;
    return true;
  }
  return false;
}

bool StreamOrder::inLoopWith(const Stmt *S, const Expr *Launch, const Stmt *Other) const {
  auto Contains = [&](const Stmt *Loop, const Stmt *X) {
    for (const Stmt *P = F->Parents->getParent(X); P; P = F->Parents->getParent(P))
      if (P == Loop)
        return true;
    return false;
  };
  for (const Stmt *P = F->Parents->getParent(S); P; P = F->Parents->getParent(P))
    if (isLoop(P) && Contains(P, Launch) && (!Other || Contains(P, Other)))
      return true;
  return false;
}

bool StreamOrder::waitedFor(const QueuedWork &W, const Expr *First) const {
  if (W.Anywhere)
    return false;
  for (const Wait &Wt : F->Waits) {
    if (!Wt.DeviceWide && !Wt.Stream.same(W.Stream))
      continue;
    if (!dominates(Wt.Call, First))
      continue;
    // Queued before the wait, or after the launches in a loop whose next
    // iteration passes the wait first.
    if (before(W.At, Wt.Call) || inLoopWith(W.At, First, Wt.Call))
      return true;
  }
  return false;
}

std::vector<const QueuedWork *> StreamOrder::pendingBetween(const Expr *First, const Expr *Second,
                                                            const StreamRef &Stream) const {
  std::vector<const QueuedWork *> Pending;
  for (const QueuedWork &W : F->Work) {
    if (W.At == First || W.At == Second || Stream.same(W.Stream))
      continue;
    bool Before = before(W.At, First), After = before(Second, W.At);
    // Work queued between the launches is host code between them, which
    // suggest relates to each launch by itself.
    if (!W.Anywhere && !Before && !After)
      continue;
    if (!W.Anywhere && After && !inLoopWith(W.At, First))
      continue;
    if (!waitedFor(W, First))
      Pending.push_back(&W);
  }
  return Pending;
}

bool StreamOrder::callersWaitedFor(const Expr *First) const {
  return llvm::any_of(F->Waits,
                      [&](const Wait &W) { return W.DeviceWide && dominates(W.Call, First); });
}

} // namespace kfuse
