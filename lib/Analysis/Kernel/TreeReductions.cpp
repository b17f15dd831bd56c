//===- TreeReductions.cpp - block tree reductions kfuse can shorten -------===//

#include "kfuse/Analysis/Kernel/TreeReductions.h"

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace kfuse {

const char *spelling(ReductionElement E) {
  switch (E) {
  case ReductionElement::F32:
    return "float";
  case ReductionElement::F64:
    return "double";
  case ReductionElement::I32:
    return "int";
  case ReductionElement::U32:
    return "unsigned int";
  case ReductionElement::I64:
    return "long long";
  case ReductionElement::U64:
    return "unsigned long long";
  }
  return "";
}

std::optional<unsigned> TreeReduction::threadsIn(const std::array<unsigned, 3> &Block) const {
  if (Block[1] != 1 || Block[2] != 1)
    return std::nullopt;
  unsigned Threads = Block[0];
  if (FirstStride && *FirstStride * 2 != Threads)
    return std::nullopt;
  if (Threads < 64 || (Threads & (Threads - 1)) != 0)
    return std::nullopt;
  return Threads;
}

namespace {

std::optional<ReductionElement> elementOf(QualType T) {
  const auto *B = T.getCanonicalType()->getAs<BuiltinType>();
  if (!B)
    return std::nullopt;
  switch (B->getKind()) {
  case BuiltinType::Float:
    return ReductionElement::F32;
  case BuiltinType::Double:
    return ReductionElement::F64;
  case BuiltinType::Int:
    return ReductionElement::I32;
  case BuiltinType::UInt:
    return ReductionElement::U32;
  case BuiltinType::LongLong:
    return ReductionElement::I64;
  case BuiltinType::ULongLong:
    return ReductionElement::U64;
  default:
    return std::nullopt;
  }
}

/// `builtin.x`: the x component of threadIdx or blockDim.
bool isBuiltinX(const Expr *E, BuiltinVar Var) {
  std::optional<std::pair<BuiltinVar, unsigned>> Read = builtinComponent(E->IgnoreParenImpCasts());
  return Read && Read->first == Var && Read->second == 0;
}

/// A statement that calls __syncthreads() and nothing else.
const CallExpr *syncThreadsStatement(const Stmt *S) {
  const auto *Call = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || Callee->getName() != "__syncthreads" || Call->getNumArgs() != 0)
    return nullptr;
  return Call;
}

std::optional<int64_t> constant(const Expr *E, ASTContext &AST) {
  Expr::EvalResult R;
  if (E->isValueDependent() || !E->EvaluateAsInt(R, AST))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

/// Reads of a local that no statement of \p Body changes or takes the
/// address of: each reference is loaded as a value.
class OnlyRead : public RecursiveASTVisitor<OnlyRead> {
public:
  explicit OnlyRead(const VarDecl *Var) : Var(Var) {}
  bool Ok = true;
  bool TraverseImplicitCastExpr(ImplicitCastExpr *E) {
    if (E->getCastKind() == CK_LValueToRValue)
      if (const auto *Ref = dyn_cast<DeclRefExpr>(E->getSubExpr()->IgnoreParens());
          Ref && Ref->getDecl() == Var)
        return true;
    return RecursiveASTVisitor::TraverseImplicitCastExpr(E);
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() == Var)
      Ok = false;
    return true;
  }

private:
  const VarDecl *Var;
};

class Matcher {
public:
  Matcher(const FunctionDecl &F, ASTContext &AST) : F(F), AST(AST) {}

  std::optional<TreeReduction> match(const ForStmt *Loop, const CallExpr *Before) {
    TreeReduction R{};
    R.Loop = Loop;
    R.BarrierBefore = Before;
    const VarDecl *Stride = strideOf(Loop, R);
    if (!Stride || !halves(Loop->getInc(), Stride) || !positive(Loop->getCond(), Stride))
      return std::nullopt;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Loop->getBody());
    if (!Body || Body->size() != 2)
      return std::nullopt;
    R.BarrierInLoop = syncThreadsStatement(Body->body_back());
    const auto *If = dyn_cast<IfStmt>(Body->body_front());
    if (!R.BarrierInLoop || !If || If->getElse() || If->getInit() || If->getConditionVariable() ||
        If->isConstexpr())
      return std::nullopt;
    // if (t < s)
    const auto *Cond = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
    if (!Cond || Cond->getOpcode() != BO_LT || !isStride(Cond->getRHS(), Stride) ||
        !thread(Cond->getLHS(), R))
      return std::nullopt;
    const Stmt *Then = If->getThen();
    if (const auto *Block = dyn_cast<CompoundStmt>(Then)) {
      if (Block->size() != 1)
        return std::nullopt;
      Then = Block->body_front();
    }
    if (!addition(dyn_cast<Expr>(Then), Stride, R))
      return std::nullopt;
    return R;
  }

private:
  const FunctionDecl &F;
  ASTContext &AST;

  /// `int s = H` with H a power of two of at least 32, or blockDim.x / 2.
  const VarDecl *strideOf(const ForStmt *Loop, TreeReduction &R) {
    const auto *Decl = dyn_cast_or_null<DeclStmt>(Loop->getInit());
    if (!Decl || !Decl->isSingleDecl())
      return nullptr;
    const auto *Var = dyn_cast<VarDecl>(Decl->getSingleDecl());
    if (!Var || !Var->getType()->isIntegerType() || !Var->getInit() ||
        Var->getType().isVolatileQualified())
      return nullptr;
    const Expr *Init = Var->getInit()->IgnoreParenImpCasts();
    if (std::optional<int64_t> H = constant(Init, AST)) {
      if (*H < 32 || *H > 512 || (*H & (*H - 1)) != 0)
        return nullptr;
      R.FirstStride = static_cast<unsigned>(*H);
    } else {
      const auto *Half = dyn_cast<BinaryOperator>(Init);
      if (!Half || !isBuiltinX(Half->getLHS(), BuiltinVar::BlockDim))
        return nullptr;
      std::optional<int64_t> By = constant(Half->getRHS(), AST);
      if (!By ||
          !((Half->getOpcode() == BO_Div && *By == 2) || (Half->getOpcode() == BO_Shr && *By == 1)))
        return nullptr;
    }
    // Only the loop's own header and body may name it, and only the
    // header changes it.
    OnlyRead Reads(Var);
    Reads.TraverseStmt(const_cast<Stmt *>(Loop->getBody()));
    if (!Reads.Ok)
      return nullptr;
    return Var;
  }

  bool isStride(const Expr *E, const VarDecl *Stride) {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return Ref && Ref->getDecl() == Stride;
  }

  /// s >>= 1, s /= 2, s = s >> 1, s = s / 2.
  bool halves(const Expr *Inc, const VarDecl *Stride) {
    const auto *Op = dyn_cast_or_null<BinaryOperator>(Inc ? Inc->IgnoreParens() : nullptr);
    if (!Op || !isStride(Op->getLHS(), Stride))
      return false;
    auto Halving = [&](BinaryOperatorKind K, const Expr *By) {
      std::optional<int64_t> V = constant(By, AST);
      return V && ((K == BO_Shr && *V == 1) || (K == BO_Div && *V == 2));
    };
    if (Op->getOpcode() == BO_ShrAssign || Op->getOpcode() == BO_DivAssign)
      return Halving(Op->getOpcode() == BO_ShrAssign ? BO_Shr : BO_Div, Op->getRHS());
    if (Op->getOpcode() != BO_Assign)
      return false;
    const auto *RHS = dyn_cast<BinaryOperator>(Op->getRHS()->IgnoreParenImpCasts());
    return RHS && isStride(RHS->getLHS(), Stride) && Halving(RHS->getOpcode(), RHS->getRHS());
  }

  /// s > 0, s >= 1, s != 0, 0 < s.
  bool positive(const Expr *Cond, const VarDecl *Stride) {
    const auto *Op = dyn_cast_or_null<BinaryOperator>(Cond ? Cond->IgnoreParenImpCasts() : nullptr);
    if (!Op)
      return false;
    auto Is = [&](const Expr *E, int64_t V) {
      std::optional<int64_t> C = constant(E, AST);
      return C && *C == V;
    };
    if (isStride(Op->getLHS(), Stride))
      return (Op->getOpcode() == BO_GT && Is(Op->getRHS(), 0)) ||
             (Op->getOpcode() == BO_GE && Is(Op->getRHS(), 1)) ||
             (Op->getOpcode() == BO_NE && Is(Op->getRHS(), 0));
    return isStride(Op->getRHS(), Stride) && Op->getOpcode() == BO_LT && Is(Op->getLHS(), 0);
  }

  /// threadIdx.x, or a local initialized from it that the function only
  /// reads; every use in one loop the same.
  bool thread(const Expr *E, TreeReduction &R) {
    const Expr *Bare = E->IgnoreParenImpCasts();
    bool Ok = false;
    if (isBuiltinX(Bare, BuiltinVar::ThreadIdx)) {
      Ok = true;
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(Bare)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (Var && Var->isLocalVarDecl() && Var->getType()->isIntegerType() && Var->getInit() &&
          isBuiltinX(Var->getInit(), BuiltinVar::ThreadIdx)) {
        OnlyRead Reads(Var);
        Reads.TraverseStmt(F.getBody());
        Ok = Reads.Ok;
      }
    }
    if (!Ok)
      return false;
    if (!R.Thread) {
      R.Thread = Bare;
      return true;
    }
    return sameThread(R.Thread, Bare);
  }

  bool sameThread(const Expr *A, const Expr *B) {
    const auto *RA = dyn_cast<DeclRefExpr>(A), *RB = dyn_cast<DeclRefExpr>(B);
    if (RA || RB)
      return RA && RB && RA->getDecl() == RB->getDecl();
    return true; // Both threadIdx.x.
  }

  /// a[t], with a a __shared__ array of a reducible element type.
  bool element(const Expr *E, TreeReduction &R, const VarDecl *Stride, bool Shifted) {
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
    if (!Sub)
      return false;
    const auto *Ref = dyn_cast<DeclRefExpr>(Sub->getBase()->IgnoreParenImpCasts());
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var || !Var->hasAttr<CUDASharedAttr>())
      return false;
    const auto *Array = AST.getAsConstantArrayType(Var->getType());
    std::optional<ReductionElement> Element =
        Array ? elementOf(Array->getElementType()) : std::nullopt;
    if (!Element || (R.Array && R.Array != Var))
      return false;
    R.Array = Var;
    R.ArrayRef = Ref;
    R.Element = *Element;
    const Expr *Index = Sub->getIdx()->IgnoreParenImpCasts();
    if (!Shifted)
      return thread(Index, R);
    const auto *Add = dyn_cast<BinaryOperator>(Index);
    if (!Add || Add->getOpcode() != BO_Add)
      return false;
    return (thread(Add->getLHS(), R) && isStride(Add->getRHS(), Stride)) ||
           (isStride(Add->getLHS(), Stride) && thread(Add->getRHS(), R));
  }

  /// a[t] += a[t + s], or a[t] = a[t] + a[t + s].
  bool addition(const Expr *E, const VarDecl *Stride, TreeReduction &R) {
    if (!E)
      return false;
    E = E->IgnoreParens();
    if (const auto *Compound = dyn_cast<CompoundAssignOperator>(E))
      return Compound->getOpcode() == BO_AddAssign &&
             element(Compound->getLHS(), R, Stride, false) &&
             element(Compound->getRHS(), R, Stride, true) &&
             Compound->getComputationResultType().getCanonicalType() ==
                 R.Array->getType()->getAsArrayTypeUnsafe()->getElementType().getCanonicalType();
    const auto *Assign = dyn_cast<BinaryOperator>(E);
    if (!Assign || Assign->getOpcode() != BO_Assign || !element(Assign->getLHS(), R, Stride, false))
      return false;
    const auto *Sum = dyn_cast<BinaryOperator>(Assign->getRHS()->IgnoreParenImpCasts());
    return Sum && Sum->getOpcode() == BO_Add &&
           Sum->getType().getCanonicalType() ==
               R.Array->getType()->getAsArrayTypeUnsafe()->getElementType().getCanonicalType() &&
           element(Sum->getLHS(), R, Stride, false) && element(Sum->getRHS(), R, Stride, true);
  }
};

class Finder : public RecursiveASTVisitor<Finder> {
public:
  Finder(const FunctionDecl &F, ASTContext &AST) : M(F, AST) {}
  std::vector<TreeReduction> Found;

  // A lambda's body is a function of its own.
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

  bool VisitCompoundStmt(CompoundStmt *C) {
    const Stmt *Previous = nullptr;
    for (const Stmt *S : C->body()) {
      if (const auto *Loop = dyn_cast<ForStmt>(S))
        if (const CallExpr *Before = syncThreadsStatement(Previous))
          if (std::optional<TreeReduction> R = M.match(Loop, Before))
            Found.push_back(*R);
      Previous = S;
    }
    return true;
  }

private:
  Matcher M;
};

} // namespace

std::vector<TreeReduction> findTreeReductions(const FunctionDecl &F, ASTContext &AST) {
  if (!F.getBody() || F.isDependentContext())
    return {};
  Finder Find(F, AST);
  Find.TraverseStmt(F.getBody());
  return Find.Found;
}

} // namespace kfuse
