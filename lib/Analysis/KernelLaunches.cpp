//===- KernelLaunches.cpp - the kernel launches of a program's host code --===//

#include "kfuse/Analysis/KernelLaunches.h"

#include "kfuse/Analysis/KernelAnalyzer.h"
#include "kfuse/Analysis/MemoryAccess.h"
#include "kfuse/Analysis/Mutations.h"
#include "kfuse/Frontend/RejectedCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <map>
#include <set>

namespace kfuse {

using namespace clang;

const char *spelling(LaunchSyntax S) {
  switch (S) {
  case LaunchSyntax::Chevrons:
    return "<<<>>>";
  case LaunchSyntax::LaunchKernel:
    return "cudaLaunchKernel";
  case LaunchSyntax::LaunchKernelEx:
    return "cudaLaunchKernelEx";
  }
  return "";
}

namespace {

/// Looks through what does not change a value: parentheses, conversions,
/// temporaries, default arguments.
const Expr *strip(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExprWithCleanups>(E))
      E = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
      E = D->getExpr();
    else if (const auto *X = dyn_cast<ExplicitCastExpr>(E))
      E = X->getSubExpr();
    else
      return E;
  }
  return E;
}

/// Expressions Clang could not finish (in a body it rejects) have no value
/// to read, and may have no type.
bool unreadable(const Expr *E) {
  return !E || E->getType().isNull() || E->containsErrors() || E->isValueDependent();
}

const VarDecl *variableOf(const Expr *E) {
  const auto *R = dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  return R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
}

/// The variable an lvalue expression stores into: x, x.f, x[i], x->f.
const VarDecl *storedVariable(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MemberExpr>(E))
      E = M->getBase();
    else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      E = A->getBase();
    else
      return variableOf(E);
  }
  return nullptr;
}

/// Variables \p S may change, by the variable an lvalue stores into.
std::set<const VarDecl *> writtenIn(const Stmt *S) {
  std::set<const VarDecl *> Written;
  forEachMutation(S, [&](const Expr *E) {
    if (const VarDecl *V = storedVariable(E))
      Written.insert(V);
  });
  return Written;
}

/// Every variable \p S names.
std::set<const VarDecl *> namedIn(const Stmt *S) {
  struct Names : RecursiveASTVisitor<Names> {
    std::set<const VarDecl *> Found;
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
        Found.insert(V);
      return true;
    }
  } N;
  N.TraverseStmt(const_cast<Stmt *>(S));
  return std::move(N.Found);
}

const char *const WaitingCalls[] = {"cudaDeviceSynchronize",
                                    "cudaStreamSynchronize",
                                    "cudaEventSynchronize",
                                    "cudaMemcpy",
                                    "cudaMemcpy2D",
                                    "cudaMemcpyToSymbol",
                                    "cudaMemcpyFromSymbol",
                                    "cudaMemset",
                                    "cudaFree",
                                    "cudaThreadSynchronize"};

/// The first call in \p S that makes the host wait for the GPU.
const CallExpr *waitingCall(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const CallExpr *Found = nullptr;
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      if (F && F->getIdentifier() && llvm::is_contained(WaitingCalls, F->getName()))
        Found = C;
      return !Found;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

bool isDoWhileZero(const Stmt *S) {
  const auto *D = dyn_cast_or_null<DoStmt>(S);
  const auto *Zero = D ? dyn_cast<IntegerLiteral>(D->getCond()->IgnoreParenImpCasts()) : nullptr;
  return Zero && Zero->getValue() == 0;
}

/// Reads launches in one host function.
class LaunchReader {
public:
  LaunchReader(ASTContext &Ctx, const FunctionDecl &Caller)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Caller(Caller), Body(Caller.getBody()),
        Parents(const_cast<Stmt *>(Body)), Written(writtenIn(Body)) {}

  std::optional<KernelLaunch> read(const Expr *Site) {
    KernelLaunch L;
    L.Site = Site;
    L.Loc = SM.getExpansionLoc(Site->getBeginLoc());
    L.Caller = &Caller;
    StreamExpr = nullptr;
    bool Found = false;
    if (const auto *K = dyn_cast<CUDAKernelCallExpr>(Site))
      Found = readChevrons(*K, L);
    else if (const auto *C = dyn_cast<CallExpr>(Site))
      Found = readCall(*C, L);
    if (!Found)
      return std::nullopt;
    if (L.Kernel)
      L.KernelName = instantiationName(*L.Kernel);
    L.DefaultStream = isDefaultStream(L.Stream);
    place(L);
    return L;
  }

private:
  ASTContext &Ctx;
  SourceManager &SM;
  const FunctionDecl &Caller;
  const Stmt *Body;
  ParentMap Parents;
  std::set<const VarDecl *> Written;
  const Expr *StreamExpr = nullptr;

  std::string text(const Expr *E) const {
    if (!E || isa<CXXDefaultArgExpr>(E))
      return "";
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM, Ctx.getLangOpts());
    if (Range.isInvalid())
      Range = SM.getExpansionRange(E->getSourceRange());
    return Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
  }

  /// A local variable whose value is its initializer wherever it is read.
  const Expr *constantInit(const VarDecl *V) const {
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || Written.count(V) || !V->hasInit())
      return nullptr;
    return V->getInit();
  }

  std::optional<int64_t> evalInt(const Expr *E, unsigned Depth = 0) const {
    if (unreadable(E) || Depth > 8)
      return std::nullopt;
    Expr::EvalResult R;
    if (E->getType()->isIntegralOrEnumerationType() && E->EvaluateAsInt(R, Ctx))
      return R.Val.getInt().getExtValue();
    E = strip(E);
    if (const Expr *Init = constantInit(variableOf(E)))
      return evalInt(Init, Depth + 1);
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_Minus)
      if (auto V = evalInt(U->getSubExpr(), Depth + 1))
        return -*V;
    if (const auto *C = dyn_cast<ConditionalOperator>(E))
      if (auto Cond = evalInt(C->getCond(), Depth + 1))
        return evalInt(*Cond ? C->getTrueExpr() : C->getFalseExpr(), Depth + 1);
    const auto *B = dyn_cast<BinaryOperator>(E);
    if (!B)
      return std::nullopt;
    auto L = evalInt(B->getLHS(), Depth + 1), Rhs = evalInt(B->getRHS(), Depth + 1);
    if (!L || !Rhs)
      return std::nullopt;
    switch (B->getOpcode()) {
    case BO_Add:
      return *L + *Rhs;
    case BO_Sub:
      return *L - *Rhs;
    case BO_Mul:
      return *L * *Rhs;
    case BO_Div:
      return *Rhs ? std::optional<int64_t>(*L / *Rhs) : std::nullopt;
    case BO_Rem:
      return *Rhs ? std::optional<int64_t>(*L % *Rhs) : std::nullopt;
    case BO_Shl:
      return *Rhs >= 0 && *Rhs < 63 ? std::optional<int64_t>(*L << *Rhs) : std::nullopt;
    case BO_Shr:
      return *Rhs >= 0 && *Rhs < 63 ? std::optional<int64_t>(*L >> *Rhs) : std::nullopt;
    case BO_And:
      return *L & *Rhs;
    case BO_Or:
      return *L | *Rhs;
    default:
      return std::nullopt;
    }
  }

  std::optional<double> evalReal(const Expr *E, unsigned Depth = 0) const {
    if (unreadable(E) || Depth > 8)
      return std::nullopt;
    llvm::APFloat F(0.0);
    if (E->EvaluateAsFloat(F, Ctx)) {
      bool Lost = false;
      F.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &Lost);
      return F.convertToDouble();
    }
    if (const Expr *Init = constantInit(variableOf(strip(E))))
      return evalReal(Init, Depth + 1);
    if (std::optional<int64_t> I = evalInt(strip(E), Depth + 1))
      return static_cast<double>(*I);
    return std::nullopt;
  }

  static bool isDim3(QualType T) {
    if (T.isNull())
      return false;
    const auto *R = T.getCanonicalType()->getAsCXXRecordDecl();
    return R && R->getName() == "dim3";
  }

  std::optional<std::array<uint64_t, 3>> evalDim3(const Expr *E, unsigned Depth = 0) const {
    if (unreadable(E) || Depth > 8)
      return std::nullopt;
    E = strip(E);
    if (unreadable(E))
      return std::nullopt;
    if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      E = strip(F->getSubExpr());
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      if (C->getNumArgs() == 1 && isDim3(C->getArg(0)->getType()))
        return evalDim3(C->getArg(0), Depth + 1);
      std::array<uint64_t, 3> V{1, 1, 1};
      for (unsigned I = 0; I < C->getNumArgs() && I < 3; ++I) {
        std::optional<int64_t> X = evalInt(C->getArg(I), Depth + 1);
        if (!X || *X <= 0)
          return std::nullopt;
        V[I] = static_cast<uint64_t>(*X);
      }
      return V;
    }
    if (const Expr *Init = constantInit(variableOf(E)))
      return evalDim3(Init, Depth + 1);
    if (E->getType()->isIntegralOrEnumerationType())
      if (std::optional<int64_t> X = evalInt(E, Depth + 1); X && *X > 0)
        return std::array<uint64_t, 3>{static_cast<uint64_t>(*X), 1, 1};
    return std::nullopt;
  }

  LaunchShape shape(const Expr *E) const { return {text(E), evalDim3(E)}; }

  /// The buffer a pointer points into: the variable (and members) it is
  /// read from, through offsets and locals that only copy it.
  std::optional<std::pair<std::string, bool>> bufferOf(const Expr *E, unsigned Depth = 0) const {
    if (unreadable(E) || Depth > 8)
      return std::nullopt;
    E = strip(E);
    if (unreadable(E))
      return std::nullopt;
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAdditiveOp()) {
      const Expr *Pointer = B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS();
      if (auto Inner = bufferOf(Pointer, Depth + 1))
        return std::make_pair(Inner->first, true);
      return std::nullopt;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
        if (auto Inner = bufferOf(A->getBase(), Depth + 1)) {
          std::optional<int64_t> I = evalInt(A->getIdx());
          return std::make_pair(Inner->first, Inner->second || !I || *I != 0);
        }
    if (const VarDecl *V = variableOf(E)) {
      if (const Expr *Init = constantInit(V); Init && V->getType()->isPointerType())
        if (auto Inner = bufferOf(Init, Depth + 1))
          return Inner;
      return std::make_pair(V->getNameAsString(), false);
    }
    if (const auto *M = dyn_cast<MemberExpr>(E)) {
      auto Base = bufferOf(M->getBase(), Depth + 1);
      if (!Base && !isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()))
        return std::nullopt;
      std::string Path = Base ? Base->first + (M->isArrow() ? "->" : ".") : "";
      return std::make_pair(Path + M->getMemberDecl()->getNameAsString(), false);
    }
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      if (auto Base = bufferOf(A->getBase(), Depth + 1))
        return std::make_pair(Base->first + "[" + text(A->getIdx()) + "]", false);
    return std::nullopt;
  }

  /// The bytes the function's first cudaMalloc of \p Buffer asks for.
  std::optional<uint64_t> allocatedBytes(const std::string &Buffer) const {
    struct Finder : RecursiveASTVisitor<Finder> {
      const LaunchReader &R;
      const std::string &Buffer;
      std::optional<uint64_t> Bytes;
      bool Done = false;
      Finder(const LaunchReader &R, const std::string &Buffer) : R(R), Buffer(Buffer) {}
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *F = C->getDirectCallee();
        if (!F || !F->getIdentifier() || C->getNumArgs() < 2 ||
            !llvm::is_contained({"cudaMalloc", "cudaMallocManaged"}, F->getName()))
          return true;
        const auto *Address = dyn_cast<UnaryOperator>(strip(C->getArg(0)));
        if (!Address || Address->getOpcode() != UO_AddrOf)
          return true;
        auto Target = R.bufferOf(Address->getSubExpr());
        if (!Target || Target->first != Buffer)
          return true;
        if (auto Size = R.evalInt(C->getArg(1)); Size && *Size > 0)
          Bytes = static_cast<uint64_t>(*Size);
        Done = true;
        return false;
      }
    } F(*this, Buffer);
    F.TraverseStmt(const_cast<Stmt *>(Body));
    return F.Bytes;
  }

  LaunchedValue value(const Expr *E) const {
    LaunchedValue V;
    V.Text = text(E);
    if (unreadable(E))
      return V;
    if (E->getType()->isIntegralOrEnumerationType())
      V.Value = evalInt(E);
    else if (E->getType()->isRealFloatingType())
      V.Real = evalReal(E);
    const Expr *Stripped = strip(E);
    V.IsPointer = E->getType()->isPointerType() ||
                  (!unreadable(Stripped) && Stripped->getType()->isPointerType());
    if (V.IsPointer)
      if (auto B = bufferOf(E)) {
        V.Buffer = B->first;
        V.Offset = B->second;
        V.AllocatedBytes = allocatedBytes(V.Buffer);
      }
    return V;
  }

  bool isDefaultStream(const LaunchedValue &S) const {
    if (S.Text.empty() || !StreamExpr)
      return true;
    const Expr *E = strip(StreamExpr);
    return E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
  }

  static const FunctionDecl *kernelOf(const Expr *E) {
    E = strip(E);
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
      E = strip(U->getSubExpr());
    const auto *R = dyn_cast<DeclRefExpr>(E);
    const auto *F = R ? dyn_cast<FunctionDecl>(R->getDecl()) : nullptr;
    return F && F->hasAttr<CUDAGlobalAttr>() ? F : nullptr;
  }

  bool readChevrons(const CUDAKernelCallExpr &K, KernelLaunch &L) {
    const CallExpr *Config = K.getConfig();
    L.Syntax = LaunchSyntax::Chevrons;
    L.Kernel = K.getDirectCallee();
    auto Arg = [&](unsigned I) { return I < Config->getNumArgs() ? Config->getArg(I) : nullptr; };
    L.Grid = shape(Arg(0));
    L.Block = shape(Arg(1));
    L.Shared = value(Arg(2));
    StreamExpr = Arg(3);
    L.Stream = value(Arg(3));
    for (const Expr *A : K.arguments())
      L.Args.push_back(value(A));
    return true;
  }

  bool readCall(const CallExpr &C, KernelLaunch &L) {
    const FunctionDecl *F = C.getDirectCallee();
    if (!F || !F->getIdentifier())
      return false;
    auto Arg = [&](unsigned I) { return I < C.getNumArgs() ? C.getArg(I) : nullptr; };
    if (F->getName() == "cudaLaunchKernel" || F->getName() == "cudaLaunchCooperativeKernel") {
      if (C.getNumArgs() < 4)
        return false;
      L.Syntax = LaunchSyntax::LaunchKernel;
      L.Kernel = kernelOf(Arg(0));
      L.Grid = shape(Arg(1));
      L.Block = shape(Arg(2));
      L.Shared = value(Arg(4));
      StreamExpr = Arg(5);
      L.Stream = value(Arg(5));
      readArgumentArray(Arg(3), L);
      return true;
    }
    if (F->getName() != "cudaLaunchKernelEx" || C.getNumArgs() < 2)
      return false;
    L.Syntax = LaunchSyntax::LaunchKernelEx;
    L.Kernel = kernelOf(Arg(1));
    readLaunchConfig(Arg(0), C, L);
    bool ArgumentArray = C.getNumArgs() == 3 && !unreadable(Arg(2)) &&
                         Arg(2)->getType()->isPointerType() &&
                         Arg(2)->getType()->getPointeeType()->isVoidPointerType();
    if (ArgumentArray)
      readArgumentArray(Arg(2), L);
    else
      for (unsigned I = 2; I < C.getNumArgs(); ++I)
        L.Args.push_back(value(C.getArg(I)));
    return true;
  }

  /// void *args[] = {&a, &b}: the arguments are what the elements point to.
  void readArgumentArray(const Expr *E, KernelLaunch &L) {
    const VarDecl *Array = variableOf(strip(E));
    const auto *Init = Array && !Written.count(Array) && Array->hasInit()
                           ? dyn_cast<InitListExpr>(Array->getInit()->IgnoreParenImpCasts())
                           : nullptr;
    if (!Init) {
      L.ArgsKnown = false;
      return;
    }
    for (const Expr *Element : Init->inits()) {
      const auto *Address = dyn_cast<UnaryOperator>(strip(Element));
      if (!Address || Address->getOpcode() != UO_AddrOf) {
        L.ArgsKnown = false;
        L.Args.clear();
        return;
      }
      L.Args.push_back(value(Address->getSubExpr()));
    }
  }

  /// cudaLaunchConfig_t: its fields as initialized, or as last assigned
  /// before the launch.
  void readLaunchConfig(const Expr *E, const CallExpr &Launch, KernelLaunch &L) {
    const auto *Address = dyn_cast<UnaryOperator>(strip(E));
    const VarDecl *Config =
        Address && Address->getOpcode() == UO_AddrOf ? variableOf(Address->getSubExpr()) : nullptr;
    std::map<std::string, const Expr *> Fields;
    if (!Config)
      return;
    if (const auto *Init = Config->hasInit()
                               ? dyn_cast<InitListExpr>(Config->getInit()->IgnoreParenImpCasts())
                               : nullptr) {
      unsigned I = 0;
      if (const RecordDecl *R = Config->getType()->getAsRecordDecl())
        for (const FieldDecl *Field : R->fields())
          if (I < Init->getNumInits())
            Fields[Field->getNameAsString()] = Init->getInit(I++);
    }
    struct Assignments : RecursiveASTVisitor<Assignments> {
      const VarDecl *Config;
      SourceLocation Before;
      const SourceManager &SM;
      std::map<std::string, const Expr *> &Fields;
      Assignments(const VarDecl *C, SourceLocation B, const SourceManager &SM,
                  std::map<std::string, const Expr *> &F)
          : Config(C), Before(B), SM(SM), Fields(F) {}
      void assign(const Expr *LHS, const Expr *RHS, SourceLocation At) {
        const auto *M = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts());
        if (M && variableOf(M->getBase()) == Config && SM.isBeforeInTranslationUnit(At, Before))
          Fields[M->getMemberDecl()->getNameAsString()] = RHS;
      }
      bool VisitBinaryOperator(BinaryOperator *B) {
        if (B->getOpcode() == BO_Assign)
          assign(B->getLHS(), B->getRHS(), B->getBeginLoc());
        return true;
      }
      bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
        if (C->getOperator() == OO_Equal && C->getNumArgs() == 2)
          assign(C->getArg(0), C->getArg(1), C->getBeginLoc());
        return true;
      }
    } A(Config, Launch.getBeginLoc(), SM, Fields);
    A.TraverseStmt(const_cast<Stmt *>(Body));
    L.Grid = shape(Fields["gridDim"]);
    L.Block = shape(Fields["blockDim"]);
    L.Shared = value(Fields["dynamicSmemBytes"]);
    StreamExpr = Fields["stream"];
    L.Stream = value(StreamExpr);
  }

  /// The launch's statement in the block that runs it; do { ... } while (0)
  /// from a checking macro is part of the statement.
  void place(KernelLaunch &L) {
    const Stmt *S = L.Site;
    for (const Stmt *P = Parents.getParent(S); P; S = P, P = Parents.getParent(P)) {
      if (isa<ForStmt, WhileStmt, CXXForRangeStmt>(P) || (isa<DoStmt>(P) && !isDoWhileZero(P)))
        L.InLoop = true;
      const auto *Block = dyn_cast<CompoundStmt>(P);
      if (!Block || L.Scope || isDoWhileZero(Parents.getParent(P)))
        continue;
      L.Scope = Block;
      L.Position = std::find(Block->body_begin(), Block->body_end(), S) - Block->body_begin();
    }
  }
};

/// Host functions and the launches in them.
class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  LaunchFinder(ASTContext &Ctx, const RejectedCode &Rejected) : Ctx(Ctx), Rejected(Rejected) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *F) {
    const SourceManager &SM = Ctx.getSourceManager();
    if (!F->doesThisDeclarationHaveABody() || F->isDependentContext() ||
        SM.isInSystemHeader(F->getLocation()) || F->hasAttr<CUDAGlobalAttr>() ||
        (F->hasAttr<CUDADeviceAttr>() && !F->hasAttr<CUDAHostAttr>()))
      return true;
    if (const auto *M = dyn_cast<CXXMethodDecl>(F); M && M->getParent()->isLambda())
      return true;
    struct Sites : RecursiveASTVisitor<Sites> {
      std::vector<const Expr *> Found;
      bool VisitCallExpr(CallExpr *C) {
        Found.push_back(C);
        return true;
      }
    } S;
    S.TraverseStmt(F->getBody());
    std::optional<LaunchReader> Reader;
    for (const Expr *Site : S.Found) {
      if (!Reader)
        Reader.emplace(Ctx, *F);
      if (std::optional<KernelLaunch> L = Reader->read(Site)) {
        L->CallerRejected = Rejected.of(*F);
        Launches.push_back(std::move(*L));
      }
    }
    return true;
  }

  std::vector<KernelLaunch> Launches;

private:
  ASTContext &Ctx;
  const RejectedCode &Rejected;
};

} // namespace

std::vector<KernelLaunch> findLaunches(ASTUnit &HostUnit, const RejectedCode &Rejected) {
  LaunchFinder Finder(HostUnit.getASTContext(), Rejected);
  Finder.TraverseDecl(HostUnit.getASTContext().getTranslationUnitDecl());
  const SourceManager &SM = HostUnit.getSourceManager();
  std::stable_sort(Finder.Launches.begin(), Finder.Launches.end(),
                   [&](const KernelLaunch &A, const KernelLaunch &B) {
                     return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
                   });
  return std::move(Finder.Launches);
}

namespace {

bool holdsPointers(const ASTContext &Ctx, QualType T) {
  T = Ctx.getBaseElementType(T.getCanonicalType());
  if (T->isPointerType() || T->isReferenceType())
    return true;
  if (const auto *R = T->getAsCXXRecordDecl()) {
    if (!R->hasDefinition())
      return true;
    for (const FieldDecl *F : R->fields())
      if (holdsPointers(Ctx, F->getType()))
        return true;
    for (const CXXBaseSpecifier &B : R->bases())
      if (holdsPointers(Ctx, B.getType()))
        return true;
  }
  return false;
}

ParamUse useOf(const BufferAccesses &B) {
  if (!B.Escape.empty())
    return ParamUse::Unknown;
  bool Reads = false, Writes = false;
  for (const MemoryAccess &A : B.Accesses) {
    Reads |= A.reads();
    Writes |= A.writes();
  }
  return Reads && Writes ? ParamUse::ReadWritten
         : Writes        ? ParamUse::Written
         : Reads         ? ParamUse::Read
                         : ParamUse::None;
}

} // namespace

KernelUses kernelUses(ASTUnit &DeviceUnit, const FunctionDecl &Kernel,
                      const RejectedCode &Rejected) {
  KernelUses Uses;
  KernelAccesses Accesses = analyzeAccesses(Kernel, std::nullopt);
  for (const ParmVarDecl *P : Kernel.parameters()) {
    if (const BufferAccesses *B = Accesses.find(P->getName()); B && P->getType()->isPointerType())
      Uses.Params.push_back(useOf(*B));
    else
      Uses.Params.push_back(holdsPointers(DeviceUnit.getASTContext(), P->getType())
                                ? ParamUse::Unknown
                                : ParamUse::None);
  }
  KernelModel Model = analyzeKernel(DeviceUnit, Kernel, Rejected);
  for (const VarDecl *V : Model.reachedDeviceVariables())
    if (!V->hasAttr<CUDAConstantAttr>())
      Uses.DeviceVariables.push_back(V->getQualifiedNameAsString());
  return Uses;
}

namespace {

/// What one launch does to the buffers it is given.
struct BufferUse {
  std::string Buffer;
  ParamUse Use;
};

class Relater {
public:
  Relater(ASTUnit &Unit, const std::vector<KernelLaunch> &Launches,
          const std::vector<std::optional<KernelUses>> &Uses)
      : Unit(Unit), Launches(Launches), Uses(Uses) {}

  LaunchRelations run() {
    LaunchRelations R;
    for (size_t I = 0; I + 1 < Launches.size(); ++I)
      for (size_t J = I + 1; J < Launches.size(); ++J)
        if (Launches[I].Scope && Launches[J].Scope == Launches[I].Scope &&
            Launches[J].Position > Launches[I].Position) {
          R.Pairs.push_back(relate(I, J));
          break;
        }
    findGroups(R);
    return R;
  }

private:
  ASTUnit &Unit;
  const std::vector<KernelLaunch> &Launches;
  const std::vector<std::optional<KernelUses>> &Uses;

  std::vector<BufferUse> buffersOf(size_t I, LaunchPair &P) const {
    const KernelLaunch &L = Launches[I];
    std::vector<BufferUse> Out;
    for (size_t A = 0; A < L.Args.size(); ++A) {
      const LaunchedValue &V = L.Args[A];
      ParamUse Use = Uses[I] && A < Uses[I]->Params.size() ? Uses[I]->Params[A] : ParamUse::Unknown;
      if (!V.IsPointer && Use != ParamUse::Unknown)
        continue;
      if (Use == ParamUse::None)
        continue;
      if (V.Buffer.empty()) {
        P.Assumptions.push_back({LaunchAssumption::Unfollowed, V.Text, L.Loc});
        continue;
      }
      if (Use == ParamUse::Unknown)
        P.Assumptions.push_back({LaunchAssumption::UnknownUse, V.Buffer, L.Loc});
      Out.push_back({V.Buffer, Use});
    }
    if (Uses[I])
      for (const std::string &Var : Uses[I]->DeviceVariables)
        Out.push_back({Var, ParamUse::Unknown});
    return Out;
  }

  LaunchPair relate(size_t I, size_t J) const {
    LaunchPair P;
    P.First = I;
    P.Second = J;
    const KernelLaunch &A = Launches[I], &B = Launches[J];
    for (size_t K : {I, J})
      if (!Launches[K].Kernel || !Launches[K].ArgsKnown) {
        std::string What =
            Launches[K].Kernel ? Launches[K].KernelName : "a kernel through a pointer";
        P.Conflicts.push_back({LaunchConflict::UnknownKernel, What, Launches[K].Loc});
      }
    std::vector<BufferUse> First = buffersOf(I, P), Second = buffersOf(J, P);
    std::set<std::string> Named;
    for (const BufferUse &X : First)
      for (const BufferUse &Y : Second) {
        if (X.Buffer != Y.Buffer || !Named.insert(X.Buffer).second)
          continue;
        if (writes(X.Use) && writes(Y.Use))
          P.Conflicts.push_back({LaunchConflict::WriteAfterWrite, X.Buffer, B.Loc});
        else if (writes(X.Use) && reads(Y.Use))
          P.Conflicts.push_back({LaunchConflict::ReadAfterWrite, X.Buffer, B.Loc});
        else if (reads(X.Use) && writes(Y.Use))
          P.Conflicts.push_back({LaunchConflict::WriteAfterRead, X.Buffer, B.Loc});
        else
          Named.erase(X.Buffer);
      }
    relateHostCode(P, First, Second);
    std::set<std::string> Roots;
    for (const auto *Side : {&First, &Second})
      for (const BufferUse &U : *Side)
        Roots.insert(U.Buffer);
    if (P.independent() && Roots.size() > 1)
      P.Assumptions.push_back({LaunchAssumption::DistinctBuffers, "", A.Loc});
    if (A.CallerRejected)
      P.Assumptions.push_back(
          {LaunchAssumption::RejectedHost, A.CallerRejected->Message, A.CallerRejected->Loc});
    if (A.DefaultStream != B.DefaultStream || A.Stream.Text != B.Stream.Text)
      P.Assumptions.push_back({LaunchAssumption::OtherStreams, "", B.Loc});
    return P;
  }

  /// Host statements between the two launches must neither touch their
  /// buffers nor change what the launches are given.
  void relateHostCode(LaunchPair &P, const std::vector<BufferUse> &First,
                      const std::vector<BufferUse> &Second) const {
    const KernelLaunch &A = Launches[P.First], &B = Launches[P.Second];
    std::set<std::string> Buffers;
    for (const auto *Side : {&First, &Second})
      for (const BufferUse &U : *Side)
        Buffers.insert(rootOf(U.Buffer));
    std::set<const VarDecl *> Given;
    for (const KernelLaunch *L : {&A, &B}) {
      std::set<const VarDecl *> N = namedIn(L->Site);
      Given.insert(N.begin(), N.end());
    }
    const SourceManager &SM = Unit.getSourceManager();
    for (unsigned S = A.Position + 1; S < B.Position; ++S) {
      const Stmt *Between = A.Scope->body_begin()[S];
      SourceLocation Loc = SM.getExpansionLoc(Between->getBeginLoc());
      bool Conflict = false;
      for (const VarDecl *V : namedIn(Between))
        if (Buffers.count(V->getNameAsString())) {
          P.Conflicts.push_back({LaunchConflict::HostUse, V->getNameAsString(), Loc});
          Conflict = true;
          break;
        }
      if (!Conflict)
        for (const VarDecl *V : writtenIn(Between))
          if (Given.count(V)) {
            P.Conflicts.push_back({LaunchConflict::HostUse, V->getNameAsString(), Loc});
            Conflict = true;
            break;
          }
      if (const CallExpr *Wait = Conflict ? nullptr : waitingCall(Between))
        P.Assumptions.push_back({LaunchAssumption::HostWaits,
                                 Wait->getDirectCallee()->getNameAsString(),
                                 SM.getExpansionLoc(Wait->getBeginLoc())});
    }
  }

  /// "bufs.a" -> "bufs", "d_in" -> "d_in": the variable host code names.
  static std::string rootOf(const std::string &Buffer) {
    size_t End = Buffer.find_first_of(".-[");
    return Buffer.substr(0, End);
  }

  bool independent(size_t I, size_t J) const {
    for (size_t K = I + 1; K < J; ++K)
      if (Launches[K].Scope != Launches[I].Scope)
        return false;
    return relate(I, J).independent();
  }

  void findGroups(LaunchRelations &R) const {
    std::vector<size_t> Run;
    auto Close = [&] {
      if (Run.size() >= 3)
        R.Groups.push_back(Run);
    };
    for (const LaunchPair &P : R.Pairs) {
      if (Run.empty() || Run.back() != P.First) {
        Close();
        Run = {P.First};
      }
      // The launches just before the new one that it is independent of.
      size_t Keep = 0;
      while (Keep < Run.size() && independent(Run[Run.size() - 1 - Keep], P.Second))
        ++Keep;
      if (Keep != Run.size()) {
        Close();
        Run.erase(Run.begin(), Run.end() - Keep);
      }
      Run.push_back(P.Second);
    }
    Close();
  }
};

} // namespace

LaunchRelations relateLaunches(ASTUnit &HostUnit, const std::vector<KernelLaunch> &Launches,
                               const std::vector<std::optional<KernelUses>> &Uses) {
  return Relater(HostUnit, Launches, Uses).run();
}

} // namespace kfuse
