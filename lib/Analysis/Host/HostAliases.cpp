//===- HostAliases.cpp - which buffers a host pointer may point into ------===//

#include "kfuse/Analysis/Host/HostAliases.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace kfuse {

using namespace clang;

bool BufferRoots::mayShare(const BufferRoots &O, std::string &Reason) const {
  if (Any || O.Any) {
    Reason = Any ? Why : O.Why;
    return true;
  }
  for (const std::string &N : Names)
    if (O.Names.count(N)) {
      Reason = "both may point into '" + N + "'";
      return true;
    }
  return false;
}

namespace {

/// Functions that give a buffer through their first argument's address.
bool allocatesThroughAddress(llvm::StringRef Name) {
  return llvm::is_contained({"cudaMalloc", "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc",
                             "cudaMallocAsync", "cudaMallocFromPoolAsync", "cudaMallocPitch",
                             "cudaMalloc3D", "cudaMallocArray", "posix_memalign", "cuMemAlloc",
                             "cuMemAllocManaged", "cuMemAllocHost", "cuMemAllocPitch"},
                            Name);
}

/// Functions that return a new buffer.
bool allocatesByValue(llvm::StringRef Name) {
  return llvm::is_contained({"malloc", "calloc", "aligned_alloc", "_mm_malloc"}, Name);
}

/// Functions that read a launch's argument array without changing what it points to.
bool launchesThroughAddress(llvm::StringRef Name) {
  return llvm::is_contained({"cudaLaunchKernel", "cudaLaunchCooperativeKernel",
                             "cudaLaunchKernelEx", "cudaLaunchKernelExC", "cuLaunchKernel"},
                            Name);
}

const Expr *strip(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExprWithCleanups>(E))
      E = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *X = dyn_cast<ExplicitCastExpr>(E))
      E = X->getSubExpr();
    else
      return E;
  }
  return E;
}

std::string calleeName(const CallExpr &C) {
  const FunctionDecl *F = C.getDirectCallee();
  return F && F->getIdentifier() ? F->getName().str() : "";
}

} // namespace

/// What the function does to each path: assignments, allocations, and
/// ways code kfuse does not follow may change it.
struct HostAliases::Facts {
  std::map<std::string, std::vector<const Expr *>> Assigned;
  std::set<std::string> Allocated;
  std::map<std::string, std::string> Escaped; ///< Path -> why.
};

HostAliases::HostAliases(ASTContext &Ctx, const FunctionDecl &Fn)
    : Ctx(Ctx), F(std::make_unique<Facts>()) {
  struct Finder : RecursiveASTVisitor<Finder> {
    HostAliases &H;
    Facts &F;
    std::set<const Expr *> Harmless; ///< Addresses a call reads or fills with a new buffer.
    explicit Finder(HostAliases &H) : H(H), F(*H.F) {}

    std::string line(const Stmt *S) const {
      return std::to_string(H.Ctx.getSourceManager().getExpansionLineNumber(S->getBeginLoc()));
    }
    void escape(const Expr *E, const std::string &Why) {
      std::string P = H.pathOf(E);
      if (!P.empty() && !F.Escaped.count(P))
        F.Escaped[P] = Why;
    }
    /// The members of an object built from \p Init: each pointer member
    /// of an aggregate initializer holds its part; any other way of
    /// building it may put anything in them.
    void construct(const std::string &Path, QualType T, const Expr *Init) {
      const RecordDecl *R = T->getAsRecordDecl();
      const auto *List = dyn_cast<InitListExpr>(strip(Init));
      if (!R || R->isUnion() || !List) {
        if (!isa<CXXConstructExpr>(strip(Init)) ||
            !cast<CXXConstructExpr>(strip(Init))->getConstructor()->isDefaultConstructor() ||
            !cast<CXXConstructExpr>(strip(Init))->getConstructor()->isTrivial())
          F.Escaped[Path] =
              "'" + Path + "' is built by code kfuse does not follow (line " + line(Init) + ")";
        return;
      }
      unsigned I = 0;
      for (const FieldDecl *Field : R->fields()) {
        if (I >= List->getNumInits())
          break;
        const Expr *Part = List->getInit(I++);
        std::string Member = Path + "." + Field->getNameAsString();
        if (Field->getType()->isPointerType())
          F.Assigned[Member].push_back(Part);
        else if (Field->getType()->isRecordType())
          construct(Member, Field->getType(), Part);
      }
    }
    bool VisitVarDecl(VarDecl *V) {
      if (!V->getInit())
        return true;
      if (V->getType()->isPointerType())
        F.Assigned[V->getQualifiedNameAsString()].push_back(V->getInit());
      if (V->getType()->isRecordType() && V->hasLocalStorage())
        construct(V->getQualifiedNameAsString(), V->getType(), V->getInit());
      // An array of pointers built from a list: its elements are not followed.
      QualType T = V->getType();
      if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified())
        escape(V->getInit(), "'" + V->getNameAsString() + "' is a reference to it (line " +
                                 line(V->getInit()) + ")");
      return true;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (!B->isAssignmentOp())
        return true;
      std::string P = H.pathOf(B->getLHS());
      if (P.empty())
        return true;
      if (B->getLHS()->getType()->isPointerType()) {
        if (B->getOpcode() == BO_Assign)
          F.Assigned[P].push_back(B->getRHS());
      } else if (B->getLHS()->getType()->isRecordType()) {
        // A whole object assigned: every pointer in it may change.
        F.Escaped[P] = "'" + P + "' is assigned as a whole (line " + line(B) + ")";
      }
      return true;
    }
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
      if (C->isAssignmentOp() && C->getNumArgs() > 0) {
        std::string P = H.pathOf(C->getArg(0));
        if (!P.empty())
          F.Escaped[P] = "'" + P + "' is assigned as a whole (line " + line(C) + ")";
      }
      return true;
    }
    bool VisitCallExpr(CallExpr *C) {
      std::string Name = calleeName(*C);
      const FunctionDecl *Callee = C->getDirectCallee();
      if (allocatesThroughAddress(Name) && C->getNumArgs() > 0) {
        if (const auto *A = dyn_cast<UnaryOperator>(strip(C->getArg(0)));
            A && A->getOpcode() == UO_AddrOf) {
          Harmless.insert(A);
          std::string P = H.pathOf(A->getSubExpr());
          if (!P.empty())
            F.Allocated.insert(P);
        }
      }
      if (launchesThroughAddress(Name)) {
        // A launch reads its arguments, whatever way it takes them.
        for (const Expr *Arg : C->arguments())
          if (const auto *A = dyn_cast<UnaryOperator>(strip(Arg)); A && A->getOpcode() == UO_AddrOf)
            Harmless.insert(A);
        return true;
      }
      bool Swap = (Name == "swap" || Name == "iter_swap") && C->getNumArgs() == 2;
      if (Swap) {
        std::string A = H.pathOf(C->getArg(0)), B = H.pathOf(C->getArg(1));
        if (!A.empty() && !B.empty() && C->getArg(0)->getType()->isPointerType()) {
          F.Assigned[A].push_back(C->getArg(1));
          F.Assigned[B].push_back(C->getArg(0));
          return true;
        }
      }
      // A member operator's object is its first argument.
      unsigned Object = isa<CXXOperatorCallExpr>(C) && isa_and_nonnull<CXXMethodDecl>(Callee) &&
                                cast<CXXMethodDecl>(Callee)->isInstance()
                            ? 1
                            : 0;
      for (unsigned I = Object; I < C->getNumArgs(); ++I) {
        const Expr *Arg = C->getArg(I);
        unsigned N = I - Object;
        QualType T =
            Callee && N < Callee->getNumParams() ? Callee->getParamDecl(N)->getType() : QualType();
        if (!T.isNull() && T->isReferenceType() && !T.getNonReferenceType().isConstQualified())
          escape(Arg, "passed by reference to '" + Name + "' (line " + line(C) + ")");
        // Through a pointer to const, the callee reads the variable.
        if (!T.isNull() && T->isPointerType() && T->getPointeeType().isConstQualified())
          if (const auto *A = dyn_cast<UnaryOperator>(strip(Arg)); A && A->getOpcode() == UO_AddrOf)
            Harmless.insert(A);
      }
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_AddrOf && !Harmless.count(U))
        escape(U->getSubExpr(), "its address is taken (line " + line(U) + ")");
      return true;
    }
    bool VisitInitListExpr(InitListExpr *L) {
      // void *args[] = {&a, &b}: a launch reads what the elements point to.
      if (L->getType()->isArrayType())
        for (const Expr *E : L->inits())
          if (const auto *A = dyn_cast<UnaryOperator>(strip(E)); A && A->getOpcode() == UO_AddrOf)
            Harmless.insert(A);
      return true;
    }
    // Calls and initializer lists are seen before the operands they hold.
    bool shouldTraversePostOrder() const { return false; }
  } Find(*this);
  Find.TraverseStmt(Fn.getBody());
}

HostAliases::~HostAliases() = default;

std::string HostAliases::text(const Expr *E) const {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(E->getSourceRange()),
                                               SM, Ctx.getLangOpts());
  if (R.isInvalid())
    R = SM.getExpansionRange(E->getSourceRange());
  return Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
}

std::string HostAliases::pathOf(const Expr *E) const {
  E = strip(E);
  if (!E || E->containsErrors())
    return "";
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
      return V->getQualifiedNameAsString();
  if (const auto *M = dyn_cast<MemberExpr>(E)) {
    if (isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()))
      return "this->" + M->getMemberDecl()->getNameAsString();
    std::string Base = pathOf(M->getBase());
    if (Base.empty())
      return "";
    return Base + (M->isArrow() ? "->" : ".") + M->getMemberDecl()->getNameAsString();
  }
  return "";
}

BufferRoots HostAliases::rootsOf(const Expr *E) { return rootsOf(E, "", 0); }

/// Whether the path \p E names goes through `->` or `*` from a pointer the
/// function holds itself (not one it receives, whose pointee its callers
/// keep).
static bool pointsThroughLocal(const Expr *E) {
  while (const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts())) {
    if (M->isArrow()) {
      const auto *R = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
      const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
      if (!V || (V->hasLocalStorage() && !isa<ParmVarDecl>(V)))
        return true;
    }
    E = M->getBase();
  }
  return false;
}

BufferRoots HostAliases::rootsOf(const Expr *E, const std::string &Target, unsigned Depth) {
  BufferRoots R;
  auto Unfollowed = [&](const Expr *At) {
    R.Any = true;
    R.Why = "kfuse cannot follow '" + text(At) + "'";
    return R;
  };
  if (!E || E->containsErrors() || E->isValueDependent() || Depth > 16)
    return Unfollowed(E);
  const Expr *S = strip(E);
  // A null pointer, or a member an initializer list leaves zero.
  if (isa<ImplicitValueInitExpr, CXXScalarValueInitExpr>(S) ||
      S->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return R;
  if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->isAdditiveOp())
    return rootsOf(B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS(), Target,
                   Depth + 1);
  if (const auto *C = dyn_cast<ConditionalOperator>(S)) {
    R = rootsOf(C->getTrueExpr(), Target, Depth + 1);
    BufferRoots Other = rootsOf(C->getFalseExpr(), Target, Depth + 1);
    if (Other.Any && !R.Any) {
      R.Any = true;
      R.Why = Other.Why;
    }
    R.Names.insert(Other.Names.begin(), Other.Names.end());
    R.Received.insert(Other.Received.begin(), Other.Received.end());
    return R;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(S); U && U->getOpcode() == UO_AddrOf) {
    const Expr *Sub = strip(U->getSubExpr());
    if (std::string P = containerElements(Sub, /*Element=*/true); !P.empty()) {
      R.Names.insert(P);
      return R;
    }
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(Sub))
      return rootsOf(A->getBase(), Target, Depth + 1);
    std::string P = pathOf(Sub);
    if (P.empty())
      return Unfollowed(S);
    R.Names.insert(P); // The address of a host variable.
    return R;
  }
  // A standard container's elements: storage of its own (v.data(), &v[0]).
  if (std::string P = containerElements(S); !P.empty()) {
    R.Names.insert(P);
    return R;
  }
  if (const auto *C = dyn_cast<CallExpr>(S)) {
    std::string Name = calleeName(*C);
    if (allocatesByValue(Name)) {
      R.Names.insert(Target.empty() ? "the " + Name + " at " + text(C) : Target);
      return R;
    }
    return Unfollowed(S);
  }
  if (const auto *N = dyn_cast<CXXNewExpr>(S)) {
    R.Names.insert(Target.empty() ? "the new at " + text(N) : Target);
    return R;
  }
  // A pointer made from an integer (a cast, a union) may be any buffer.
  if (!S->getType()->isPointerType() && !S->getType()->isArrayType())
    return Unfollowed(S);
  std::string P = pathOf(S);
  if (P.empty())
    return Unfollowed(S);
  // An object a local pointer points to may be anything kfuse did not see
  // written: a new-expression's, another variable's (`h = &holder`).
  if (pointsThroughLocal(S))
    return Unfollowed(S);
  // An array is its own storage; a pointer holds what it was given.
  if (S->getType()->isArrayType()) {
    R.Names.insert(P);
    return R;
  }
  return rootsOfPath(P, S);
}

std::string HostAliases::containerElements(const Expr *E, bool Element) const {
  const Expr *Object = nullptr;
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(E); M && !Element) {
    const CXXMethodDecl *Method = M->getMethodDecl();
    if (Method && Method->getIdentifier() && Method->getName() == "data")
      Object = M->getImplicitObjectArgument();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Element && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
    Object = Op->getArg(0);
  }
  if (!Object)
    return "";
  const CXXRecordDecl *Type = Object->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!Type || !Type->getIdentifier() || !Type->isInStdNamespace() ||
      !llvm::is_contained({"vector", "array", "basic_string", "valarray"}, Type->getName()))
    return "";
  std::string P = pathOf(strip(Object));
  return P.empty() ? "" : P + "'s elements";
}

BufferRoots HostAliases::rootsOfPath(const std::string &Path, const Expr *Named) {
  if (auto It = Done.find(Path); It != Done.end())
    return It->second;
  BufferRoots R;
  // A member of an object assigned as a whole, or of one passed by
  // reference, changes with it.
  for (const auto &[P, Why] : F->Escaped)
    if (Path == P || llvm::StringRef(Path).starts_with(P + ".") ||
        llvm::StringRef(Path).starts_with(P + "->")) {
      R.Any = true;
      R.Why = "kfuse cannot follow '" + Path + "': " + Why;
      return R;
    }
  // Only a result collected from the top is whole: inside a cycle, the
  // paths being collected contribute their sources where they began.
  bool Top = Busy.empty();
  if (!Busy.insert(Path).second)
    return R;
  auto Sources = F->Assigned.find(Path);
  // What a parameter or a global held when the function began comes from
  // outside: its own buffer, as far as the callers keep it so.
  const Expr *Base = Named;
  while (const auto *M = dyn_cast<MemberExpr>(Base->IgnoreParenImpCasts()))
    Base = M->getBase();
  const auto *Ref = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  bool Outside =
      !V || isa<ParmVarDecl>(V) || V->hasGlobalStorage() || V->getType()->isReferenceType();
  if (Outside || F->Allocated.count(Path) || Sources == F->Assigned.end())
    R.Names.insert(Path);
  if (Outside)
    R.Received.insert(Path);
  if (Sources != F->Assigned.end()) {
    for (const Expr *Source : Sources->second) {
      BufferRoots From = rootsOf(Source, Path, 1);
      if (From.Any && !R.Any) {
        R.Any = true;
        R.Why = From.Why;
      }
      R.Names.insert(From.Names.begin(), From.Names.end());
      R.Received.insert(From.Received.begin(), From.Received.end());
    }
  }
  Busy.erase(Path);
  if (Top)
    Done[Path] = R;
  return R;
}

} // namespace kfuse
