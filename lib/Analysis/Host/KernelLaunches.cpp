//===- KernelLaunches.cpp - the kernel launches of a program's host code --===//

#include "kfuse/Analysis/Host/KernelLaunches.h"

#include "kfuse/Analysis/Host/HostAliases.h"
#include "kfuse/Analysis/Host/HostEffects.h"
#include "kfuse/Analysis/Host/StreamOrder.h"

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/MemoryAccess.h"
#include "kfuse/Analysis/Kernel/Mutations.h"
#include "kfuse/Frontend/RejectedCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"

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

/// Every call of \p Callee in its translation unit, each with the function
/// it is in; nothing when kfuse may not see them all: it is main or other
/// files can call it (with \p Local), is named other than as a call's
/// callee (its address taken), or is called outside a function kfuse reads.
std::optional<std::vector<std::pair<const FunctionDecl *, const CallExpr *>>>
callsOfFunction(ASTContext &Ctx, const FunctionDecl &Callee, bool Local) {
  if (Callee.isMain() || (Local && Callee.isExternallyVisible()))
    return std::nullopt;
  struct Calls : RecursiveASTVisitor<Calls> {
    const FunctionDecl *Callee;
    std::vector<const CallExpr *> Found;
    unsigned Named = 0; ///< Every naming of the function, calls' callees included.
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *F = C->getDirectCallee();
          F && F->getCanonicalDecl() == Callee->getCanonicalDecl())
        Found.push_back(C);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      Named += R->getDecl()->getCanonicalDecl() == Callee->getCanonicalDecl();
      return true;
    }
  };
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<std::pair<const FunctionDecl *, const CallExpr *>> Out;
  // Whatever comes after the function's first declaration may name it, in
  // the main file or in a header included after it.
  SourceLocation Declared = SM.getExpansionLoc(Callee.getCanonicalDecl()->getBeginLoc());
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    if (SM.isBeforeInTranslationUnit(SM.getExpansionLoc(D->getEndLoc()), Declared))
      continue;
    Calls C;
    C.Callee = &Callee;
    C.TraverseDecl(D);
    const auto *F = dyn_cast<FunctionDecl>(D);
    if (C.Named != C.Found.size() || (!C.Found.empty() && (!F || !F->hasBody())))
      return std::nullopt;
    for (const CallExpr *Call : C.Found)
      Out.push_back({F, Call});
  }
  return Out;
}

/// Whether \p V starts out pointing into another buffer: an initializer
/// other than a null pointer, so that another name may read what it holds.
bool initializedFromOther(const VarDecl &V) {
  const Expr *Init = V.getInit();
  return Init && !Init->IgnoreParenImpCasts()->isNullPointerConstant(
                     V.getASTContext(), Expr::NPC_ValueDependentIsNotNull);
}

/// A naming of \p V in \p F's body that may read the buffer it holds:
/// any but those in \p Skip, in calls that allocate, free or set it or copy
/// into it, and as argument \p HelperArg of calls of \p Helper (when given).
const DeclRefExpr *readingName(const FunctionDecl &F, const VarDecl *V,
                               const std::vector<const Stmt *> &Skip,
                               const FunctionDecl *Helper = nullptr, unsigned HelperArg = 0) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    const FunctionDecl *Helper;
    unsigned HelperArg;
    const DeclRefExpr *Other = nullptr;
    std::vector<const Stmt *> Allowed;
    bool TraverseStmt(Stmt *S) {
      if (llvm::is_contained(Allowed, S))
        return true;
      return RecursiveASTVisitor::TraverseStmt(S);
    }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      if (!F)
        return true;
      if (Helper && F->getCanonicalDecl() == Helper->getCanonicalDecl() &&
          HelperArg < C->getNumArgs())
        Allowed.push_back(C->getArg(HelperArg));
      if (!F->getIdentifier())
        return true;
      // Allocating, freeing or setting it reads no element; a copy reads
      // its source, not its destination.
      llvm::StringRef Name = F->getName();
      if (llvm::is_contained({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaFree",
                              "cudaFreeAsync", "cudaMemset", "cudaMemsetAsync"},
                             Name))
        for (const Expr *Arg : C->arguments())
          Allowed.push_back(Arg);
      if (llvm::is_contained({"cudaMemcpy", "cudaMemcpyAsync"}, Name) && C->getNumArgs() > 0)
        Allowed.push_back(C->getArg(0));
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (R->getDecl() == V && !Other)
        Other = R;
      return !Other;
    }
  } Find;
  Find.V = V;
  Find.Helper = Helper;
  Find.HelperArg = HelperArg;
  Find.Allowed = Skip;
  // A call is visited before its arguments are traversed.
  Find.TraverseStmt(const_cast<Stmt *>(F.getBody()));
  return Find.Other;
}

/// Reads launches in one host function.
class LaunchReader {
public:
  LaunchReader(ASTContext &Ctx, const FunctionDecl &Caller)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Caller(Caller), Body(Caller.getBody()),
        Parents(const_cast<Stmt *>(Body)), Written(writtenIn(Body)), Aliases(Ctx, Caller) {}

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
  mutable HostAliases Aliases;
  mutable std::optional<bool> KeptApart; ///< callersKeepApart(), once found.
  /// Why the last value read from callers has none: they pass several.
  mutable std::string Several;
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
    if (unreadable(E) || Depth > 16)
      return std::nullopt;
    Expr::EvalResult R;
    if (E->getType()->isIntegralOrEnumerationType() && E->EvaluateAsInt(R, Ctx))
      return R.Val.getInt().getExtValue();
    E = strip(E);
    if (const Expr *Init = constantInit(variableOf(E)))
      return evalInt(Init, Depth + 1);
    // A value two launches are proven to share must hold for every call:
    // only a function no other file calls.
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(variableOf(E));
        P && !Written.count(P) && !Caller.isExternallyVisible())
      return fromCallers<int64_t>(
          *P, Depth,
          [](const LaunchReader &R, const Expr *Arg, unsigned D) { return R.evalInt(Arg, D); });
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_Minus)
      if (auto V = evalInt(U->getSubExpr(), Depth + 1))
        return -*V;
    // One extent of a dim3 (`block.x`) whose value kfuse reads.
    if (const auto *M = dyn_cast<MemberExpr>(E);
        M && !M->isArrow() && isDim3(M->getBase()->getType()))
      if (auto V = evalDim3(M->getBase(), Depth + 1)) {
        llvm::StringRef Name = M->getMemberDecl()->getName();
        if (Name == "x" || Name == "y" || Name == "z")
          return static_cast<int64_t>((*V)[Name[0] - 'x']);
      }
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
    if (unreadable(E) || Depth > 16)
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
    if (unreadable(E) || Depth > 16)
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
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(variableOf(E)); P && !Written.count(P))
      return fromCallers<std::array<uint64_t, 3>>(
          *P, Depth,
          [](const LaunchReader &R, const Expr *Arg, unsigned D) { return R.evalDim3(Arg, D); });
    return std::nullopt;
  }

  std::optional<std::vector<std::pair<const FunctionDecl *, const CallExpr *>>>
  callsOf(bool Local) const {
    return callsOfFunction(Ctx, Caller, Local);
  }

  /// The value every call of this function in its file gives parameter
  /// \p P (which the function never changes), read in each caller as
  /// \p Eval reads it there; nothing when a call gives another, none is
  /// seen, or not every call is seen (callsOf). Calls from other files may
  /// give others: a launch configuration read so is what the fused kernel
  /// is built for, which its launcher checks at run time.
  template <typename T, typename EvalFn>
  std::optional<T> fromCallers(const ParmVarDecl &P, unsigned Depth, EvalFn Eval) const {
    if (Depth > 4)
      return std::nullopt;
    auto Calls = callsOf(/*Local=*/false);
    if (!Calls)
      return std::nullopt;
    std::optional<T> Result;
    const CallExpr *First = nullptr;
    for (const auto &[F, Call] : *Calls) {
      LaunchReader Reader(Ctx, *F);
      unsigned I = P.getFunctionScopeIndex();
      std::optional<T> V =
          I < Call->getNumArgs() ? Eval(Reader, Call->getArg(I), Depth + 1) : std::nullopt;
      if (!V) {
        Several = !Reader.Several.empty() ? std::move(Reader.Several)
                  : I < Call->getNumArgs()
                      ? "the call of '" + Caller.getNameAsString() + "' at " + where(Call) +
                            " passes '" + Reader.text(Call->getArg(I)) + "', not constant there"
                      : std::string();
        return std::nullopt;
      }
      if (Result && V != Result) {
        Several = "the calls of '" + Caller.getNameAsString() + "' pass " + spelled(*Result) +
                  " at " + where(First) + " and " + spelled(*V) + " at " + where(Call);
        return std::nullopt;
      }
      Result = V;
      First = Call;
    }
    return Result;
  }

  static std::string spelled(int64_t V) { return std::to_string(V); }
  static std::string spelled(uint64_t V) { return std::to_string(V); }
  static std::string spelled(const std::array<uint64_t, 3> &V) {
    std::string S = "[" + std::to_string(V[0]);
    unsigned Rank = V[2] != 1 ? 3 : V[1] != 1 ? 2 : 1;
    for (unsigned D = 1; D < Rank; ++D)
      S += ", " + std::to_string(V[D]);
    return S + "]";
  }

  std::string where(const Expr *E) const {
    clang::PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(E->getBeginLoc()));
    return P.isInvalid() ? "?"
                         : llvm::sys::path::filename(P.getFilename()).str() + ":" +
                               std::to_string(P.getLine()) + ":" + std::to_string(P.getColumn());
  }

  /// Whether every call of this function passes its pointer parameters
  /// buffers its caller holds apart: each argument a buffer the caller
  /// allocates (or takes the address of), no two of them sharing one. Then
  /// pointers received through them point to different buffers with no
  /// promise of the callers: it is what they do. Only for a function no
  /// other file calls, with every call seen, and at least one.
  bool callersKeepApart() const {
    if (KeptApart)
      return *KeptApart;
    KeptApart = false;
    auto Calls = callsOf(/*Local=*/true);
    if (!Calls || Calls->empty())
      return false;
    for (const auto &[F, Call] : *Calls) {
      HostAliases InCaller(Ctx, *F);
      std::vector<BufferRoots> Args;
      for (const ParmVarDecl *P : Caller.parameters()) {
        if (!P->getType()->isPointerType())
          continue;
        unsigned I = P->getFunctionScopeIndex();
        if (I >= Call->getNumArgs() || isa<CXXDefaultArgExpr>(Call->getArg(I)))
          return false;
        BufferRoots R = InCaller.rootsOf(Call->getArg(I));
        if (R.Any || !R.Received.empty())
          return false;
        std::string Why;
        for (const BufferRoots &Other : Args)
          if (R.mayShare(Other, Why))
            return false;
        Args.push_back(std::move(R));
      }
    }
    return *(KeptApart = true);
  }

  /// Whether each of \p Received (names of what this function receives)
  /// is a pointer parameter its callers hold apart from the others.
  bool keptApart(const std::set<std::string> &Received) const {
    return llvm::all_of(Received,
                        [&](const std::string &Name) {
                          return llvm::any_of(Caller.parameters(), [&](const ParmVarDecl *P) {
                            return P->getType()->isPointerType() && P->getName() == Name;
                          });
                        }) &&
           callersKeepApart();
  }

  LaunchShape shape(const Expr *E) const {
    Several.clear();
    LaunchShape S{text(E), evalDim3(E), ""};
    if (!S.Value)
      S.Several = std::move(Several);
    return S;
  }

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
  /// The bytes a cudaMalloc of this function gives \p Buffer, when
  /// constant; else the size as written in \p Text, where there is one.
  std::optional<uint64_t> allocatedBytes(const std::string &Buffer, std::string &Text) const {
    struct Finder : RecursiveASTVisitor<Finder> {
      const LaunchReader &R;
      const std::string &Buffer;
      std::optional<uint64_t> Bytes;
      std::string Text;
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
        else
          Text = R.text(C->getArg(1));
        Done = true;
        return false;
      }
    } F(*this, Buffer);
    F.TraverseStmt(const_cast<Stmt *>(Body));
    Text = F.Text;
    return F.Bytes;
  }

  /// The bytes every caller allocates for the pointer parameter \p E names,
  /// when each passes a buffer it allocates with one constant size.
  std::optional<uint64_t> allocatedByCallers(const Expr *E) const {
    const auto *P = dyn_cast_or_null<ParmVarDecl>(variableOf(strip(E)));
    if (!P || Written.count(P))
      return std::nullopt;
    return fromCallers<uint64_t>(
        *P, 0, [](const LaunchReader &R, const Expr *Arg, unsigned) -> std::optional<uint64_t> {
          auto B = R.bufferOf(Arg);
          std::string Text;
          std::optional<uint64_t> Bytes =
              B && !B->second ? R.allocatedBytes(B->first, Text) : std::nullopt;
          if (!Bytes && !Text.empty())
            R.Several = "'" + R.Caller.getNameAsString() + "' allocates '" + B->first + "' with " +
                        Text + " bytes, not constant";
          return Bytes;
        });
  }

  LaunchedValue value(const Expr *E) const {
    LaunchedValue V;
    V.Text = text(E);
    if (unreadable(E))
      return V;
    Several.clear();
    if (E->getType()->isIntegralOrEnumerationType() && !(V.Value = evalInt(E)))
      V.Several = std::move(Several);
    else if (E->getType()->isRealFloatingType())
      V.Real = evalReal(E);
    const Expr *Stripped = strip(E);
    V.IsPointer = E->getType()->isPointerType() ||
                  (!unreadable(Stripped) && Stripped->getType()->isPointerType());
    if (!V.IsPointer)
      return V;
    if (auto B = bufferOf(E)) {
      V.Buffer = B->first;
      V.Offset = B->second;
      V.AllocatedBytes = allocatedBytes(V.Buffer, V.AllocatedText);
      if (!V.AllocatedBytes && V.AllocatedText.empty() && !V.Offset) {
        Several.clear();
        if (!(V.AllocatedBytes = allocatedByCallers(E)))
          V.Several = std::move(Several);
      }
    }
    BufferRoots R = Aliases.rootsOf(E);
    V.Roots.assign(R.Names.begin(), R.Names.end());
    V.AnyBuffer = R.Any;
    V.Unfollowed = R.Why;
    V.Received = !R.Received.empty() && !keptApart(R.Received);
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

  /// The launch's statement in the block that runs it.
  void place(KernelLaunch &L) {
    StatementPlace P = placeOf(L.Site, Parents);
    L.Scope = P.Scope;
    L.Position = P.Position;
    L.InLoop = P.InLoop;
    L.Straight = P.Straight;
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

ParamUse useOf(bool Reads, bool Writes) {
  return Reads && Writes ? ParamUse::ReadWritten
         : Writes        ? ParamUse::Written
         : Reads         ? ParamUse::Read
                         : ParamUse::None;
}

ParamUse useOf(const MemoryAccesses &M) {
  return M.unknown() ? ParamUse::Unknown : useOf(M.reads(), M.writes());
}

} // namespace

ParamUse combine(ParamUse A, ParamUse B) {
  if (A == ParamUse::Unknown || B == ParamUse::Unknown)
    return ParamUse::Unknown;
  return useOf(reads(A) || reads(B), writes(A) || writes(B));
}

KernelUses kernelUses(ASTUnit &DeviceUnit, const FunctionDecl &Kernel,
                      const RejectedCode &Rejected) {
  KernelUses Uses;
  KernelAccesses Accesses = analyzeAccesses(Kernel, std::nullopt);
  for (const ParmVarDecl *P : Kernel.parameters()) {
    const MemoryAccesses *B = P->getType()->isPointerType() ? Accesses.find(P->getName()) : nullptr;
    Uses.Params.push_back(B ? useOf(*B) : ParamUse::None);
  }
  for (const MemoryAccesses &M : Accesses.Other) {
    if (M.Kind == MemoryKind::Variable) {
      Uses.DeviceVariables.push_back({M.Variable->getQualifiedNameAsString(), useOf(M)});
      continue;
    }
    Uses.Unseen = combine(Uses.Unseen, useOf(M));
    if (Uses.UnseenAt.empty() && !M.Accesses.empty()) {
      Uses.UnseenAt = M.Accesses.front().Text;
      Uses.UnseenWhy = M.Accesses.front().Why;
    }
  }
  // Code Clang rejects was read only in part: it may do anything.
  KernelModel Model = analyzeKernel(DeviceUnit, Kernel, Rejected);
  const Rejection *Why = Model.Rejected;
  for (const CallSite &C : Model.Calls)
    if (!Why)
      Why = C.Effect.Rejected;
  if (Why) {
    Uses.Unseen = ParamUse::Unknown;
    Uses.UnseenAt = "code Clang rejects";
    Uses.UnseenWhy = Why->Message;
  }
  return Uses;
}

namespace {

/// What one launch does to a buffer it reaches.
struct BufferUse {
  std::string Name;  ///< As host code names it.
  BufferRoots Roots; ///< The buffers it may be.
  ParamUse Use;
};

/// Calls between two launches that neither touch the GPU's memory nor wait:
/// the inert ones, and those that only create, query or configure.
bool harmlessCall(llvm::StringRef Name) {
  return inertHostCall(Name) || llvm::is_contained({"cudaEventRecordWithFlags",
                                                    "cudaEventCreate",
                                                    "cudaEventCreateWithFlags",
                                                    "cudaEventDestroy",
                                                    "cudaGetDevice",
                                                    "cudaGetDeviceCount",
                                                    "cudaGetDeviceProperties",
                                                    "cudaDeviceGetAttribute",
                                                    "cudaFuncGetAttributes",
                                                    "cudaFuncSetAttribute",
                                                    "cudaFuncSetCacheConfig",
                                                    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                                                    "cudaOccupancyMaxPotentialBlockSize",
                                                    "cudaThreadSynchronize",
                                                    "cudaStreamWaitEvent",
                                                    "cudaMalloc",
                                                    "cudaMallocManaged",
                                                    "cudaMallocHost",
                                                    "cudaHostAlloc",
                                                    "cudaMallocPitch",
                                                    "cudaStreamCreate",
                                                    "cudaStreamCreateWithFlags",
                                                    "clock",
                                                    "gettimeofday",
                                                    "clock_gettime",
                                                    "time",
                                                    "now"},
                                                   Name);
}

/// Calls that copy, fill or free memory only through their arguments.
bool memoryCall(llvm::StringRef Name) {
  return Name.starts_with("cudaMemcpy") || Name.starts_with("cudaMemset") ||
         Name.starts_with("cudaFree") || Name == "cudaMemPrefetchAsync";
}

/// The most kernels one fused block can hold: a warp each.
constexpr size_t MaxGroupLaunches = 1024 / 32;
/// The longest chain kfuse relates: every two of its launches are related,
/// so the work grows with its square.
constexpr size_t MaxChainLaunches = 8;

class Relater {
public:
  Relater(ASTUnit &Unit, const std::vector<KernelLaunch> &Launches,
          const std::vector<std::optional<KernelUses>> &Uses)
      : Unit(Unit), Launches(Launches), Uses(Uses) {}

  LaunchRelations run() {
    LaunchRelations R;
    for (size_t I = 0; I + 1 < Launches.size(); ++I)
      if (consecutive(I, I + 1))
        R.Pairs.push_back(relate(I, I + 1));
    findGroups(R);
    findChains(R);
    R.Related = Related;
    return R;
  }

  /// The chain of \p Run, or nothing with \p Why: every two of its launches
  /// independent or a chain, each buffer named through one argument of each
  /// launch that names it.
  std::optional<LaunchChain> chainOf(const std::vector<size_t> &Run, std::string &Why) const {
    LaunchChain C;
    C.Launches = Run;
    std::vector<std::string> Buffers;
    std::map<std::pair<size_t, size_t>, LaunchPair> Pairs;
    for (size_t I = 0; I < Run.size(); ++I)
      for (size_t J = I + 1; J < Run.size(); ++J) {
        LaunchPair P = relate(Run[I], Run[J]);
        if (!P.independent() && !P.chainable()) {
          Why = Launches[Run[J]].KernelName + " after " + Launches[Run[I]].KernelName + ": " +
                (P.NotChainable.empty() ? "kfuse cannot relate them" : P.NotChainable);
          return std::nullopt;
        }
        for (const LaunchConflict &X : P.Conflicts)
          if (!llvm::is_contained(Buffers, X.Buffer))
            Buffers.push_back(X.Buffer);
        for (const LaunchAssumption &A : P.Assumptions)
          if (llvm::none_of(C.Assumptions,
                            [&](const LaunchAssumption &B) { return A.What == B.What; }))
            C.Assumptions.push_back(A);
        Pairs.emplace(std::make_pair(Run[I], Run[J]), std::move(P));
      }
    for (const std::string &Buffer : Buffers)
      if (!chainFlows(Run, Buffer, Pairs, C, Why))
        return std::nullopt;
    C.Same = sameGroups(Run);
    return C;
  }

  /// The flows of \p Buffer along \p Run: from each launch that names it
  /// to the next one that does.
  bool chainFlows(const std::vector<size_t> &Run, const std::string &Buffer,
                  const std::map<std::pair<size_t, size_t>, LaunchPair> &Pairs, LaunchChain &C,
                  std::string &Why) const {
    std::vector<std::pair<size_t, size_t>> Namers; // (launch, argument)
    for (size_t L : Run) {
      std::vector<size_t> Args = argumentsNaming(Launches[L], *Uses[L], Buffer);
      if (Args.size() > 1 || (Args.size() == 1 && Launches[L].Args[Args[0]].Offset)) {
        Why = Launches[L].KernelName + " names '" + Buffer +
              "' through more than one argument, or at an offset";
        return false;
      }
      if (!Args.empty())
        Namers.push_back({L, Args[0]});
    }
    for (size_t K = 0; K + 1 < Namers.size(); ++K) {
      auto [A, ArgA] = Namers[K];
      auto [B, ArgB] = Namers[K + 1];
      ParamUse UseA = Uses[A]->Params[ArgA], UseB = Uses[B]->Params[ArgB];
      LaunchFlow F{ArgA, ArgB, Buffer, false, ""};
      F.SecondWrites = writes(UseB);
      if (F.SecondWrites)
        F.Live = "the later launch writes it";
      else if (Namers.size() > 2)
        F.Live = "another launch of the chain names it";
      else if (UseA != ParamUse::Written)
        F.Live = Launches[A].KernelName + " reads it too";
      else
        F.Live = liveAfter(Pairs.at({A, B}), ArgA, ArgB);
      F.Dead = F.Live.empty();
      C.Flows.push_back({A, B, std::move(F)});
    }
    return true;
  }

  /// Scalar arguments of one value along \p Run, as groups: each two
  /// launches next to each other that give one.
  std::vector<std::vector<std::pair<size_t, size_t>>>
  sameGroups(const std::vector<size_t> &Run) const {
    std::vector<std::vector<std::pair<size_t, size_t>>> Groups;
    for (size_t K = 0; K + 1 < Run.size(); ++K)
      for (auto [I, J] : sameArguments(Launches[Run[K]], Launches[Run[K + 1]])) {
        std::pair<size_t, size_t> A{Run[K], I}, B{Run[K + 1], J};
        auto Holds = [&](const auto &G) { return llvm::is_contained(G, A); };
        auto It = llvm::find_if(Groups, Holds);
        if (It == Groups.end())
          Groups.push_back({A, B});
        else if (!llvm::is_contained(*It, B))
          It->push_back(B);
      }
    return Groups;
  }

private:
  ASTUnit &Unit;
  const std::vector<KernelLaunch> &Launches;
  const std::vector<std::optional<KernelUses>> &Uses;
  mutable std::map<const FunctionDecl *, std::unique_ptr<HostAliases>> Aliases;
  mutable std::map<const FunctionDecl *, std::unique_ptr<StreamOrder>> Orders;
  mutable size_t Related = 0;

  /// Whether launch \p J follows launch \p I on every path: the next
  /// statements of one block, with nothing between them that branches,
  /// jumps or can be jumped to.
  bool consecutive(size_t I, size_t J) const {
    const KernelLaunch &A = Launches[I], &B = Launches[J];
    if (!A.Scope || A.Scope != B.Scope || !A.Straight || !B.Straight || B.Position <= A.Position ||
        A.Caller != B.Caller)
      return false;
    for (unsigned S = A.Position + 1; S < B.Position; ++S)
      if (jumps(A.Scope->body_begin()[S]))
        return false;
    return true;
  }

  static bool jumps(const Stmt *S) {
    struct Finder : RecursiveASTVisitor<Finder> {
      bool Found = false;
      bool TraverseLambdaExpr(LambdaExpr *) { return true; }
      bool VisitStmt(Stmt *S) {
        Found |= isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt, IndirectGotoStmt, LabelStmt,
                     SwitchCase, CXXThrowExpr>(S);
        return !Found;
      }
    } F;
    F.TraverseStmt(const_cast<Stmt *>(S));
    return F.Found;
  }

  std::vector<BufferUse> buffersOf(size_t I) const {
    const KernelLaunch &L = Launches[I];
    std::vector<BufferUse> Out;
    for (size_t A = 0; A < L.Args.size(); ++A) {
      const LaunchedValue &V = L.Args[A];
      ParamUse Use = Uses[I] && A < Uses[I]->Params.size() ? Uses[I]->Params[A] : ParamUse::Unknown;
      if (Use == ParamUse::None || !V.IsPointer)
        continue;
      BufferUse B{V.Buffer.empty() ? V.Text : V.Buffer, {}, Use};
      B.Roots.Names.insert(V.Roots.begin(), V.Roots.end());
      B.Roots.Any = V.AnyBuffer;
      B.Roots.Why = V.Unfollowed;
      if (V.Received)
        B.Roots.Received.insert(B.Name);
      addUse(Out, std::move(B));
    }
    if (!Uses[I])
      return Out;
    for (const VariableUse &Var : Uses[I]->DeviceVariables) {
      BufferUse B{Var.Name, {}, Var.Use};
      B.Roots.Names.insert(Var.Name);
      addUse(Out, std::move(B));
    }
    if (Uses[I]->Unseen != ParamUse::None) {
      BufferUse B{Uses[I]->UnseenAt, {}, Uses[I]->Unseen};
      B.Roots.Any = true;
      B.Roots.Why = "at '" + Uses[I]->UnseenAt + "', " + L.KernelName + " reaches memory through " +
                    Uses[I]->UnseenWhy + ", which kfuse cannot tie to an argument";
      addUse(Out, std::move(B));
    }
    return Out;
  }

  /// One allocation passed to several parameters (k<<<>>>(d, d, n), or
  /// (base, base + n)) is one buffer of the launch, used as all of them
  /// together: kfuse does not compare offsets, so any two overlap.
  static void addUse(std::vector<BufferUse> &Uses, BufferUse B) {
    for (BufferUse &U : Uses)
      if (U.Name == B.Name) {
        U.Use = combine(U.Use, B.Use);
        U.Roots.Names.insert(B.Roots.Names.begin(), B.Roots.Names.end());
        if (B.Roots.Any && !U.Roots.Any)
          U.Roots.Why = B.Roots.Why;
        U.Roots.Any |= B.Roots.Any;
        U.Roots.Received.insert(B.Roots.Received.begin(), B.Roots.Received.end());
        return;
      }
    Uses.push_back(std::move(B));
  }

  LaunchPair relate(size_t I, size_t J) const {
    ++Related;
    LaunchPair P;
    P.First = I;
    P.Second = J;
    const KernelLaunch &A = Launches[I], &B = Launches[J];
    for (size_t K : {I, J})
      if (!Launches[K].Kernel || !Launches[K].ArgsKnown) {
        std::string What =
            Launches[K].Kernel ? Launches[K].KernelName : "a kernel through a pointer";
        P.Conflicts.push_back({LaunchConflict::UnknownKernel, What, Launches[K].Loc, "", "", ""});
      }
    std::vector<BufferUse> First = buffersOf(I), Second = buffersOf(J);
    // Each side names a buffer once (addUse), so each pair is related once.
    for (const BufferUse &X : First)
      for (const BufferUse &Y : Second) {
        std::string Why;
        if (!X.Roots.mayShare(Y.Roots, Why))
          continue;
        std::string Other = X.Name == Y.Name ? "" : Y.Name;
        std::string Alias = X.Name == Y.Name ? "" : Why;
        if (writes(X.Use) && writes(Y.Use))
          P.Conflicts.push_back({LaunchConflict::WriteAfterWrite, X.Name, B.Loc, Other, Alias, ""});
        else if (writes(X.Use) && reads(Y.Use))
          P.Conflicts.push_back({LaunchConflict::ReadAfterWrite, X.Name, B.Loc, Other, Alias, ""});
        else if (reads(X.Use) && writes(Y.Use))
          P.Conflicts.push_back({LaunchConflict::WriteAfterRead, X.Name, B.Loc, Other, Alias, ""});
      }
    relateHostCode(P, First, Second);
    if (!P.independent())
      relateChain(P, First);
    bool Received = false;
    for (const auto *Side : {&First, &Second})
      for (const BufferUse &U : *Side)
        Received |= !U.Roots.Received.empty();
    if ((P.independent() || P.chainable()) && Received && First.size() + Second.size() > 1)
      P.Assumptions.push_back({LaunchAssumption::DistinctBuffers, "", A.Loc});
    if (A.CallerRejected)
      P.Assumptions.push_back(
          {LaunchAssumption::RejectedHost, A.CallerRejected->Message, A.CallerRejected->Loc});
    if (A.DefaultStream != B.DefaultStream || (!A.DefaultStream && A.Stream.Text != B.Stream.Text))
      P.Assumptions.push_back({LaunchAssumption::OtherStreams, "", B.Loc});
    return P;
  }

  /// Whether dependent launches could run one after the other in each
  /// thread (a vertical fusion): every dependence a buffer both name
  /// through one argument each, unmoved, which kfuse check then proves each
  /// thread (or block) reads and writes at the same elements. Fills the
  /// pair's flows and scalars of one value, or says why not.
  void relateChain(LaunchPair &P, const std::vector<BufferUse> &First) const {
    const KernelLaunch &A = Launches[P.First], &B = Launches[P.Second];
    auto Refuse = [&](std::string Why) {
      P.NotChainable = std::move(Why);
      P.Flows.clear();
    };
    if (!A.Kernel || !B.Kernel || !Uses[P.First] || !Uses[P.Second])
      return Refuse("kfuse cannot read both kernels");
    if (A.Syntax != LaunchSyntax::Chevrons || B.Syntax != LaunchSyntax::Chevrons)
      return Refuse("a launch is not written with <<<>>>");
    if (A.DefaultStream != B.DefaultStream || (!A.DefaultStream && A.Stream.Text != B.Stream.Text))
      return Refuse("they run on different streams");
    for (const LaunchConflict &X : P.Conflicts)
      if (std::string Why = unchainable(X); !Why.empty())
        return Refuse(Why);
    const KernelUses &UA = *Uses[P.First], &UB = *Uses[P.Second];
    for (const LaunchConflict &X : P.Conflicts) {
      // The one argument of the first that names the buffer (or, where the
      // second only reads it, the one that writes it), unmoved.
      bool SecondWrites = X.What != LaunchConflict::ReadAfterWrite;
      std::vector<size_t> Named = argumentsNaming(A, UA, X.Buffer), From = Named;
      if (!SecondWrites)
        llvm::erase_if(From, [&](size_t I) { return !writes(UA.Params[I]); });
      if (From.size() != 1)
        return Refuse(A.KernelName + " names '" + X.Buffer + "' through more than one argument");
      if (A.Args[From[0]].Offset)
        return Refuse(A.KernelName + " names '" + X.Buffer + "' at an offset");
      if (llvm::none_of(First, [&](const BufferUse &U) {
            return U.Name == X.Buffer && U.Roots.Names.size() == 1 && !U.Roots.Any;
          }))
        return Refuse("'" + X.Buffer + "' is no one buffer an argument of " + A.KernelName +
                      " names");
      std::vector<size_t> To = argumentsNaming(B, UB, X.Buffer);
      if (SecondWrites && To.size() > 1)
        return Refuse(B.KernelName + " names '" + X.Buffer +
                      "' through more than one argument and writes it");
      for (size_t J : To) {
        if (B.Args[J].Offset)
          return Refuse(B.KernelName + " names '" + X.Buffer + "' at an offset");
        LaunchFlow F{From[0], J, X.Buffer, false, ""};
        F.SecondWrites = SecondWrites;
        if (SecondWrites)
          F.Live = "the second launch writes it";
        else if (Named.size() > 1)
          F.Live = "the first launch reads it through another argument";
        else
          F.Live = liveAfter(P, From[0], J);
        F.Dead = F.Live.empty();
        P.Flows.push_back(std::move(F));
      }
    }
    if (P.Flows.empty())
      return Refuse("no argument of " + B.KernelName + " names what " + A.KernelName + " uses");
    P.SameArgs = sameArguments(A, B);
  }

  /// The arguments of launch \p L that give its kernel the buffer \p Buffer
  /// to read or write.
  static std::vector<size_t> argumentsNaming(const KernelLaunch &L, const KernelUses &U,
                                             const std::string &Buffer) {
    std::vector<size_t> Result;
    for (size_t I = 0; I < L.Args.size() && I < U.Params.size(); ++I)
      if (L.Args[I].Buffer == Buffer && U.Params[I] != ParamUse::None)
        Result.push_back(I);
    return Result;
  }

  /// Why a dependence is not one a vertical fusion keeps in the thread
  /// (a buffer one of them writes and the other reads or writes); empty
  /// when it may be.
  static std::string unchainable(const LaunchConflict &X) {
    bool Buffer = X.What == LaunchConflict::ReadAfterWrite ||
                  X.What == LaunchConflict::WriteAfterRead ||
                  X.What == LaunchConflict::WriteAfterWrite;
    if (Buffer && !X.Other.empty())
      return "kfuse cannot tell whether '" + X.Other + "' is '" + X.Buffer + "'";
    switch (X.What) {
    case LaunchConflict::ReadAfterWrite:
    case LaunchConflict::WriteAfterRead:
    case LaunchConflict::WriteAfterWrite:
      return "";
    case LaunchConflict::HostUse:
      return "host code between them uses " + X.Buffer;
    case LaunchConflict::PendingWork:
      return "a wait between them orders other work on '" + X.Buffer + "'";
    case LaunchConflict::AliasedWrite:
      return "host code between them may change " + X.Buffer;
    case LaunchConflict::UnknownKernel:
      return "kfuse cannot read the launch of '" + X.Buffer + "'";
    }
    return "kfuse does not know this dependence";
  }

  /// Why the buffer flowing from argument \p From of the first launch to
  /// argument \p To of the second may be read after them (or by the first
  /// before it writes it): empty when nothing does. Conservative: the
  /// buffer must be a local of the launching function that nothing but the
  /// two launches, its allocation, its free, and memsets and copies into it
  /// name (the second launch reads only what the first wrote in the same
  /// thread, which kfuse check proves of a temporary); or a parameter of a
  /// static function that only the launches name, each of whose callers
  /// passes a local of its own that only such calls name besides.
  std::string liveAfter(const LaunchPair &P, size_t From, size_t To) const {
    const KernelLaunch &A = Launches[P.First], &B = Launches[P.Second];
    const auto *KA = cast<CUDAKernelCallExpr>(A.Site), *KB = cast<CUDAKernelCallExpr>(B.Site);
    const VarDecl *V = variableOf(strip(KA->getArg(From)));
    if (!V || V != variableOf(strip(KB->getArg(To))))
      return "kfuse cannot tell which variable holds it";
    if (!V->hasLocalStorage())
      return "'" + V->getNameAsString() + "' is not a local of " + A.Caller->getNameAsString() +
             ": code elsewhere may read it";
    if (Uses[P.First]->Params[From] != ParamUse::Written)
      return A.KernelName + " reads '" + V->getNameAsString() + "' too";
    if (initializedFromOther(*V))
      return "'" + V->getNameAsString() + "' starts as another pointer, which code may read";
    if (const DeclRefExpr *Other = readingName(*A.Caller, V, {A.Site, B.Site}))
      return "'" + V->getNameAsString() + "' is named at " +
             launchLocation(Unit.getSourceManager(), Other->getBeginLoc()) + ", which may read it";
    if (const auto *Param = dyn_cast<ParmVarDecl>(V))
      return liveInCallers(*A.Caller, *Param);
    return "";
  }

  /// Why the buffer parameter \p P of \p Helper, which only the launches
  /// name, may be read by its callers: empty when each call passes a local
  /// of its caller that only such calls, at that place, name besides its
  /// allocation, its free, memsets and copies into it.
  std::string liveInCallers(const FunctionDecl &Helper, const ParmVarDecl &P) const {
    std::string Name = "'" + P.getNameAsString() + "'";
    auto Calls = callsOfFunction(Unit.getASTContext(), Helper, /*Local=*/true);
    if (!Calls || Calls->empty())
      return Name + " is a parameter of " + Helper.getNameAsString() +
             ", whose every call kfuse does not see: code elsewhere may read it";
    const SourceManager &SM = Unit.getSourceManager();
    unsigned Index = P.getFunctionScopeIndex();
    for (const auto &[Caller, Call] : *Calls) {
      std::string At = launchLocation(SM, Call->getBeginLoc());
      const VarDecl *W =
          Index < Call->getNumArgs() ? variableOf(strip(Call->getArg(Index))) : nullptr;
      if (W && W->hasLocalStorage() && !isa<ParmVarDecl>(W) && initializedFromOther(*W))
        return "the call of " + Helper.getNameAsString() + " at " + At + " passes '" +
               W->getNameAsString() + "', which starts as another pointer, which code may read";
      if (!W || !W->hasLocalStorage() || isa<ParmVarDecl>(W))
        return "the call of " + Helper.getNameAsString() + " at " + At + " passes " + Name +
               " a buffer that is not a local of " + Caller->getNameAsString() +
               ": code elsewhere may read it";
      for (unsigned I = 0; I < Call->getNumArgs(); ++I)
        if (I != Index && variableOf(strip(Call->getArg(I))) == W)
          return "the call of " + Helper.getNameAsString() + " at " + At + " passes '" +
                 W->getNameAsString() + "' twice";
      if (const DeclRefExpr *Other = readingName(*Caller, W, {}, &Helper, Index))
        return "'" + W->getNameAsString() + "', which " + Caller->getNameAsString() +
               " passes as " + Name + ", is named at " + launchLocation(SM, Other->getBeginLoc()) +
               ", which may read it";
    }
    return "";
  }

  /// Scalar arguments of the two launches that carry one value: one
  /// variable nothing between them changes (relateHostCode refuses the
  /// pair otherwise), or one constant, for parameters of one type.
  static std::vector<std::pair<size_t, size_t>> sameArguments(const KernelLaunch &A,
                                                              const KernelLaunch &B) {
    std::vector<std::pair<size_t, size_t>> Same;
    const auto *KA = cast<CUDAKernelCallExpr>(A.Site), *KB = cast<CUDAKernelCallExpr>(B.Site);
    for (size_t J = 0; J < B.Args.size() && J < B.Kernel->getNumParams(); ++J) {
      QualType TB = B.Kernel->getParamDecl(J)->getType().getCanonicalType().getUnqualifiedType();
      if (B.Args[J].IsPointer || !TB->isScalarType())
        continue;
      for (size_t I = 0; I < A.Args.size() && I < A.Kernel->getNumParams(); ++I) {
        QualType TA = A.Kernel->getParamDecl(I)->getType().getCanonicalType().getUnqualifiedType();
        if (A.Args[I].IsPointer || TA != TB)
          continue;
        const VarDecl *VA = variableOf(strip(KA->getArg(I))),
                      *VB = variableOf(strip(KB->getArg(J)));
        bool OneVariable = VA && VA == VB;
        bool OneConstant = (A.Args[I].Value && A.Args[I].Value == B.Args[J].Value) ||
                           (A.Args[I].Real && A.Args[I].Real == B.Args[J].Real);
        if (OneVariable || OneConstant) {
          Same.push_back({I, J});
          break;
        }
      }
    }
    return Same;
  }

  /// Host statements between the two launches must neither touch their
  /// buffers nor change what the launches are given.
  void relateHostCode(LaunchPair &P, const std::vector<BufferUse> &First,
                      const std::vector<BufferUse> &Second) const {
    const KernelLaunch &A = Launches[P.First], &B = Launches[P.Second];
    std::vector<const BufferUse *> Buffers, Moved;
    for (const auto *Side : {&First, &Second})
      for (const BufferUse &U : *Side)
        Buffers.push_back(&U);
    // Fused, the second launch runs where the first was, above the waits.
    for (const BufferUse &U : Second)
      Moved.push_back(&U);
    std::set<const VarDecl *> Given;
    for (const KernelLaunch *L : {&A, &B}) {
      std::set<const VarDecl *> N = namedIn(L->Site);
      Given.insert(N.begin(), N.end());
    }
    const SourceManager &SM = Unit.getSourceManager();
    HostAliases &Aliases = aliasesOf(*A.Caller);
    // Launches of a group between the two are related to each by their own pairs.
    std::set<unsigned> Launched;
    for (size_t K = P.First + 1; K < P.Second; ++K)
      if (Launches[K].Scope == A.Scope)
        Launched.insert(Launches[K].Position);
    for (unsigned S = A.Position + 1; S < B.Position; ++S) {
      if (Launched.count(S))
        continue;
      const Stmt *Between = A.Scope->body_begin()[S];
      SourceLocation Loc = SM.getExpansionLoc(Between->getBeginLoc());
      std::string Use = usesBuffers(Between, Buffers, Aliases);
      if (!Use.empty())
        Use = "'" + Use + "'";
      else if (const VarDecl *Changed = changesGiven(Between, Given))
        Use = "'" + Changed->getNameAsString() + "'";
      if (Use.empty())
        Use = unfollowedCall(Between, Buffers, Aliases, 0);
      if (!Use.empty()) {
        P.Conflicts.push_back({LaunchConflict::HostUse, Use, Loc, "", "", ""});
        continue;
      }
      if (std::string Change = changedThroughAlias(Between, Given, *A.Caller); !Change.empty()) {
        P.Conflicts.push_back({LaunchConflict::AliasedWrite, Change, Loc, "", "", ""});
        continue;
      }
      const CallExpr *Wait = waitIn(Between);
      if (!Wait)
        continue;
      bool First = llvm::none_of(P.Assumptions, [](const LaunchAssumption &X) {
        return X.What == LaunchAssumption::HostWaits;
      });
      if (First && !relateWait(P, *Wait, Moved))
        continue;
      P.Assumptions.push_back({LaunchAssumption::HostWaits,
                               Wait->getDirectCallee()->getNameAsString(),
                               SM.getExpansionLoc(Wait->getBeginLoc())});
    }
  }

  /// A wait between the launches also waits for work queued earlier on other
  /// streams, which the second launch, moved above it, would then race where
  /// it uses one of \p Moved (the second launch's buffers; the first runs
  /// where it did). False when it does: the wait does more than wait for the
  /// first launch.
  bool relateWait(LaunchPair &P, const CallExpr &Wait,
                  const std::vector<const BufferUse *> &Buffers) const {
    const KernelLaunch &A = Launches[P.First], &B = Launches[P.Second];
    const SourceManager &SM = Unit.getSourceManager();
    StreamOrder &Order = orderOf(*A.Caller);
    StreamRef Stream = A.DefaultStream ? StreamRef{} : StreamRef{StreamRef::Named, A.Stream.Text};
    std::string WaitText = Wait.getDirectCallee()->getNameAsString() + " (" +
                           launchLocation(SM, Wait.getBeginLoc()) + ")";
    size_t Before = P.Conflicts.size();
    for (const QueuedWork *W : Order.pendingBetween(A.Site, B.Site, Stream))
      if (std::string Buffer = touchedBy(*W, Buffers); !Buffer.empty())
        P.Conflicts.push_back({LaunchConflict::PendingWork, Buffer,
                               SM.getExpansionLoc(W->At->getBeginLoc()), W->What, "", WaitText});
    if (P.Conflicts.size() != Before)
      return false;
    if (!A.Caller->isMain() && !Order.callersWaitedFor(A.Site))
      P.Assumptions.push_back(
          {LaunchAssumption::CallersWork, WaitText, SM.getExpansionLoc(Wait.getBeginLoc())});
    return true;
  }

  /// The first buffer of the launches that queued work \p W may use where
  /// one of them writes.
  static std::string touchedBy(const QueuedWork &W, const std::vector<const BufferUse *> &Buffers) {
    std::string Why;
    for (const QueuedWork::Touch &T : W.Touches)
      for (const BufferUse *U : Buffers)
        if ((writes(T.Use) || writes(U->Use)) && T.Roots.mayShare(U->Roots, Why))
          return U->Name;
    return "";
  }

  StreamOrder &orderOf(const FunctionDecl &Caller) const {
    std::unique_ptr<StreamOrder> &O = Orders[&Caller];
    if (!O)
      O = std::make_unique<StreamOrder>(Unit.getASTContext(), Caller, aliasesOf(Caller));
    return *O;
  }

  HostAliases &aliasesOf(const FunctionDecl &Caller) const {
    std::unique_ptr<HostAliases> &A = Aliases[&Caller];
    if (!A)
      A = std::make_unique<HostAliases>(Unit.getASTContext(), Caller);
    return *A;
  }

  /// Whether \p Roots may be a buffer a launch uses.
  static bool shared(const BufferRoots &Roots, const std::vector<const BufferUse *> &Buffers) {
    std::string Why;
    return llvm::any_of(Buffers, [&](const BufferUse *U) { return Roots.mayShare(U->Roots, Why); });
  }

  /// A variable named as it is (an enumerator, a function are not).
  static bool isVariable(const Expr *E) {
    const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return R && isa<VarDecl>(R->getDecl());
  }

  /// A pointer to a struct no code may look into (cudaStream_t, cudaEvent_t,
  /// a library's handle): it names a runtime object, never a buffer.
  static bool isOpaqueHandle(QualType T) {
    const auto *P = T.isNull() ? nullptr : T.getCanonicalType()->getAs<PointerType>();
    const auto *R = P ? P->getPointeeType()->getAs<RecordType>() : nullptr;
    return R && !R->getDecl()->getDefinition();
  }

  /// What \p S names that may hold or be a buffer of the launches: a pointer
  /// that may point into one, or an object one is a member of.
  static std::string usesBuffers(const Stmt *S, const std::vector<const BufferUse *> &Buffers,
                                 HostAliases &Aliases) {
    struct Paths : RecursiveASTVisitor<Paths> {
      std::vector<const Expr *> Found;
      bool VisitDeclRefExpr(DeclRefExpr *R) {
        if (isa<VarDecl>(R->getDecl()))
          Found.push_back(R);
        return true;
      }
      bool VisitMemberExpr(MemberExpr *M) {
        if (isa<FieldDecl>(M->getMemberDecl()))
          Found.push_back(M);
        return true;
      }
    } Named;
    Named.TraverseStmt(const_cast<Stmt *>(S));
    for (const Expr *E : Named.Found) {
      std::string Path = Aliases.pathOf(E);
      if (Path.empty() || isOpaqueHandle(E->getType()))
        continue;
      if ((E->getType()->isPointerType() || E->getType()->isArrayType()) &&
          shared(Aliases.rootsOf(E), Buffers))
        return Path;
      for (const BufferUse *U : Buffers)
        if (llvm::any_of(U->Roots.Names, [&](const std::string &N) {
              return N == Path || llvm::StringRef(N).starts_with(Path + ".") ||
                     llvm::StringRef(N).starts_with(Path + "->");
            }))
          return Path;
    }
    return "";
  }

  /// A variable a launch is given that other names reach, when \p S may
  /// write through one of them (the rewrite's operand rule asks the same):
  /// "'c', whose address is taken, ... may change: a store through a pointer".
  static std::string changedThroughAlias(const Stmt *S, const std::set<const VarDecl *> &Given,
                                         const FunctionDecl &Caller) {
    std::string Write = indirectWrite(S);
    if (Write.empty())
      return "";
    for (const VarDecl *V : Given)
      if (std::string Why = otherNames(*V, *Caller.getBody()); !Why.empty())
        return "'" + V->getNameAsString() + "' (" + Why + ") through " + Write;
    return "";
  }

  static const VarDecl *changesGiven(const Stmt *S, const std::set<const VarDecl *> &Given) {
    for (const VarDecl *V : writtenIn(S))
      if (Given.count(V))
        return V;
    return nullptr;
  }

  /// A call in \p S that may reach a launch's buffer some way kfuse does not
  /// follow: a launch; a copy, fill or free of memory a buffer may be; a
  /// library function while a launch's buffer cannot be followed; a
  /// function of the program that does any of these.
  static std::string unfollowedCall(const Stmt *S, const std::vector<const BufferUse *> &Buffers,
                                    HostAliases &Aliases, unsigned Depth) {
    struct Calls : RecursiveASTVisitor<Calls> {
      std::vector<const CallExpr *> Found;
      bool VisitCallExpr(CallExpr *C) {
        Found.push_back(C);
        return true;
      }
    } Calls;
    Calls.TraverseStmt(const_cast<Stmt *>(S));
    bool Unfollowed = llvm::any_of(Buffers, [](const BufferUse *U) { return U->Roots.Any; });
    for (const CallExpr *C : Calls.Found) {
      if (isa<CUDAKernelCallExpr>(C))
        return "a kernel launch";
      const FunctionDecl *F = C->getDirectCallee();
      if (!F)
        return "a call through a pointer";
      std::string Name = F->getIdentifier() ? F->getName().str() : F->getNameAsString();
      if (harmlessCall(Name))
        continue;
      if (memoryCall(Name)) {
        for (const Expr *Arg : C->arguments())
          if (Depth > 0 || ((Arg->getType()->isPointerType() || Arg->getType()->isArrayType() ||
                             isVariable(Arg)) &&
                            !isOpaqueHandle(Arg->getType())))
            if (Depth > 0 || shared(Aliases.rootsOf(Arg), Buffers))
              return "'" + Name + "'";
        continue;
      }
      const SourceManager &SM = F->getASTContext().getSourceManager();
      if (SM.isInSystemHeader(F->getLocation()) || F->getBuiltinID()) {
        // The toolkit's and the standard library's own functions touch a
        // buffer only when given one, which usesBuffers checks.
        if (Unfollowed || llvm::StringRef(Name).starts_with("cu"))
          return "'" + Name + "'";
        continue;
      }
      const FunctionDecl *Def = nullptr;
      if (!F->hasBody(Def) || !Def || Depth >= 3)
        return "'" + Name + "'";
      // Inside another function, any memory call may be one of the buffers.
      if (std::string Inner = unfollowedCall(Def->getBody(), Buffers, Aliases, Depth + 1);
          !Inner.empty())
        return "'" + Name + "', which calls " + Inner;
    }
    return "";
  }

  bool independent(size_t I, size_t J) const { return relate(I, J).independent(); }

  /// Runs of consecutive launches, each dependent on the one before it,
  /// whose every two may run one after the other in each thread (cut as
  /// groups are): each of three or more is a chain.
  void findChains(LaunchRelations &R) const {
    auto Fits = [&](size_t I, size_t J) {
      LaunchPair P = relate(I, J);
      return P.independent() || P.chainable();
    };
    forEachRun(
        R.Pairs, MaxChainLaunches, [](const LaunchPair &P) { return P.chainable(); }, Fits,
        [&](const std::vector<size_t> &Run) {
          std::string Why;
          if (Run.size() >= 3)
            if (std::optional<LaunchChain> C = chainOf(Run, Why))
              R.Chains.push_back(std::move(*C));
        });
  }

  void findGroups(LaunchRelations &R) const {
    forEachRun(
        R.Pairs, MaxGroupLaunches, [](const LaunchPair &) { return true; },
        [&](size_t I, size_t J) { return independent(I, J); },
        [&](const std::vector<size_t> &Run) {
          if (Run.size() >= 3)
            R.Groups.push_back(Run);
        });
  }

  /// Hands \p Close each run of consecutive launches along \p Pairs whose
  /// every two \p Fit, at most \p Max long; a pair \p Admits refuses ends
  /// the run. Each launch is related to at most \p Max before it, so the
  /// work grows with the launches, not their square (a fused block holds at
  /// most 1024 / 32 kernels of a warp each).
  template <typename AdmitsFn, typename FitFn, typename CloseFn>
  static void forEachRun(const std::vector<LaunchPair> &Pairs, size_t Max, AdmitsFn Admits,
                         FitFn Fit, CloseFn Close) {
    std::vector<size_t> Run;
    for (const LaunchPair &P : Pairs) {
      if (!Admits(P)) {
        Close(Run);
        Run.clear();
        continue;
      }
      if (Run.empty() || Run.back() != P.First) {
        Close(Run);
        Run = {P.First};
      }
      // The launches just before the new one that it fits with.
      size_t Keep = 0;
      while (Keep < Run.size() && Fit(Run[Run.size() - 1 - Keep], P.Second))
        ++Keep;
      if (Keep != Run.size()) {
        Close(Run);
        Run.erase(Run.begin(), Run.end() - Keep);
      }
      if (Run.size() == Max) {
        Close(Run);
        Run.erase(Run.begin(), Run.end() - 1);
      }
      Run.push_back(P.Second);
    }
    Close(Run);
  }
};

} // namespace

LaunchRelations relateLaunches(ASTUnit &HostUnit, const std::vector<KernelLaunch> &Launches,
                               const std::vector<std::optional<KernelUses>> &Uses) {
  return Relater(HostUnit, Launches, Uses).run();
}

std::optional<LaunchChain> relateChain(ASTUnit &HostUnit, const std::vector<KernelLaunch> &Launches,
                                       const std::vector<std::optional<KernelUses>> &Uses,
                                       const std::vector<size_t> &Run, std::string &Why) {
  return Relater(HostUnit, Launches, Uses).chainOf(Run, Why);
}

bool inertHostCall(llvm::StringRef Name) {
  return llvm::is_contained({"cudaGetLastError",
                             "cudaPeekAtLastError",
                             "cudaGetErrorString",
                             "cudaGetErrorName",
                             "cudaDeviceSynchronize",
                             "cudaStreamSynchronize",
                             "cudaEventRecord",
                             "cudaEventSynchronize",
                             "cudaEventElapsedTime",
                             "cudaEventQuery",
                             "cudaStreamQuery",
                             "printf",
                             "fprintf",
                             "puts",
                             "fputs",
                             "putchar",
                             "fflush",
                             "exit",
                             "abort",
                             "__assert_fail"},
                            Name);
}

std::string launchLocation(const SourceManager &SM, SourceLocation Loc) {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return "?";
  return llvm::sys::path::filename(P.getFilename()).str() + ":" + std::to_string(P.getLine()) +
         ":" + std::to_string(P.getColumn());
}

std::string describe(const LaunchConflict &X, const std::string &A, const std::string &B,
                     const SourceManager &SM) {
  std::string Buffer = "'" + X.Buffer + "'", Other = "'" + X.Other + "'";
  std::string Alias = X.MayAlias.empty() ? "" : " (" + X.MayAlias + ")";
  switch (X.What) {
  case LaunchConflict::ReadAfterWrite:
    if (!X.Other.empty())
      return B + " reads " + Other + ", which may be " + Buffer + " that " + A + " writes" + Alias;
    return B + " reads " + Buffer + ", which " + A + " writes";
  case LaunchConflict::WriteAfterRead:
    if (!X.Other.empty())
      return B + " writes " + Other + ", which may be " + Buffer + " that " + A + " reads" + Alias;
    return B + " writes " + Buffer + ", which " + A + " reads";
  case LaunchConflict::WriteAfterWrite:
    if (!X.Other.empty())
      return A + " writes " + Buffer + " and " + B + " writes " + Other +
             ", which may be one buffer" + Alias;
    return A + " and " + B + " both write " + Buffer;
  case LaunchConflict::HostUse:
    return "host code between them uses " + X.Buffer + " (" + launchLocation(SM, X.Loc) + ")";
  case LaunchConflict::PendingWork:
    return "the wait between them, " + X.Wait + ", also waits for " + X.Other +
           " on another stream (" + launchLocation(SM, X.Loc) + "), which may use " + Buffer +
           ": fusing runs " + B + " before the wait";
  case LaunchConflict::AliasedWrite:
    return "host code between them may change " + X.Buffer + " (" + launchLocation(SM, X.Loc) + ")";
  case LaunchConflict::UnknownKernel:
    return "kfuse cannot read the launch of " + X.Buffer + " (" + launchLocation(SM, X.Loc) + ")";
  }
  return "";
}

std::string describe(const LaunchAssumption &X, const std::string &A, const std::string &B,
                     const SourceManager &SM) {
  switch (X.What) {
  case LaunchAssumption::DistinctBuffers:
    return "pointers the launching function receives (its parameters, globals it does not "
           "assign) point to different buffers; its callers must keep them so";
  case LaunchAssumption::HostWaits:
    return X.Subject + " between them (" + launchLocation(SM, X.Loc) +
           ") only waits: fusing runs " + B + " before it";
  case LaunchAssumption::CallersWork:
    return "the callers of the launching function leave no work queued on other streams that "
           "uses their buffers: " +
           X.Subject + " between them would wait for it, and fusing runs " + B + " before it";
  case LaunchAssumption::RejectedHost:
    return "Clang rejects part of the function that launches them (" + launchLocation(SM, X.Loc) +
           ": " + X.Subject + "); they are read from what it parsed";
  case LaunchAssumption::OtherStreams:
    return A + " and " + B + " run on different streams, so they may overlap without fusion";
  }
  return "";
}

} // namespace kfuse
