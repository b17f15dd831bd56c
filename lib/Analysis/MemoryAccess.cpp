//===- MemoryAccess.cpp - what a kernel reads and writes, and where -------===//
//
// A walk over the kernel's body that keeps the conditions and loops around
// the statement it is in, the values of locals that never change and the
// pointers derived from parameters. Calls that receive such a pointer are
// walked into with their parameters bound to the arguments, as inlining
// would place them.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Analysis/MemoryAccess.h"

#include "kfuse/Analysis/KernelAnalyzer.h"
#include "kfuse/Analysis/Mutations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <optional>
#include <set>

namespace kfuse {

const char *spelling(AccessKind K) {
  switch (K) {
  case AccessKind::Read:
    return "reads";
  case AccessKind::Write:
    return "writes";
  case AccessKind::ReadWrite:
    return "updates";
  case AccessKind::Atomic:
    return "atomically updates";
  }
  return "";
}

std::string guardsText(const std::vector<IndexCondition> &Guards) {
  std::string Out;
  for (const IndexCondition &C : Guards)
    Out += (Out.empty() ? "" : " && ") + C.Text;
  return Out.empty() ? "" : " when " + Out;
}

const BufferAccesses *KernelAccesses::find(llvm::StringRef Param) const {
  for (const BufferAccesses &B : Buffers)
    if (B.Param->getName() == Param)
      return &B;
  return nullptr;
}

namespace {

using namespace clang;

struct PointerValue {
  const ParmVarDecl *Base;
  IndexExpr Offset;
};

class AccessWalker {
public:
  AccessWalker(const FunctionDecl &Kernel, std::optional<std::array<unsigned, 3>> Block)
      : Kernel(Kernel), Block(Block), AST(Kernel.getASTContext()) {}

  KernelAccesses run() {
    for (const ParmVarDecl *P : Kernel.parameters())
      if (P->getType()->isPointerType()) {
        Pointers[P] = {P, IndexExpr()};
        Result.Buffers.push_back({P, {}, "", {}});
      }
    countMutations(Kernel);
    for (const ParmVarDecl *P : Kernel.parameters())
      if (P->getType()->isIntegralOrEnumerationType() && !Mutations.count(P))
        Values[P] = IndexExpr::symbol(Symbol::param(P->getName().str()));
    walkStmt(Kernel.getBody());
    return std::move(Result);
  }

private:
  const FunctionDecl &Kernel;
  std::optional<std::array<unsigned, 3>> Block;
  ASTContext &AST;
  KernelAccesses Result;
  std::map<const VarDecl *, IndexExpr> Values;
  std::map<const VarDecl *, PointerValue> Pointers;
  std::map<const VarDecl *, unsigned> Mutations;
  std::vector<IndexCondition> Guards;
  std::vector<Symbol> Loops;
  unsigned LoopDepth = 0;
  std::vector<const FunctionDecl *> Helpers;
  unsigned Unique = 0;
  unsigned LoopCount = 0;

  void countMutations(const FunctionDecl &F) {
    std::map<const VarDecl *, unsigned> Count;
    forEachMutation(F.getBody(), [&](const Expr *E) {
      if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
        if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
          ++Count[V];
    });
    for (const auto &[V, N] : Count)
      Mutations[V] = N;
  }

  std::string text(const Stmt *S) const {
    const SourceManager &SM = AST.getSourceManager();
    CharSourceRange R = CharSourceRange::getTokenRange(S->getSourceRange());
    std::string T = Lexer::getSourceText(Lexer::makeFileCharRange(R, SM, AST.getLangOpts()), SM,
                                         AST.getLangOpts())
                        .str();
    if (T.empty())
      T = Lexer::getSourceText(SM.getExpansionRange(S->getSourceRange()), SM, AST.getLangOpts())
              .str();
    std::string Collapsed;
    for (char C : T)
      if (!(std::isspace(static_cast<unsigned char>(C)) && !Collapsed.empty() &&
            Collapsed.back() == ' '))
        Collapsed += std::isspace(static_cast<unsigned char>(C)) ? ' ' : C;
    return Collapsed;
  }

  IndexExpr opaque(const Expr *E) { return IndexExpr::symbol(Symbol::opaque(text(E), Unique++)); }

  BufferAccesses &buffer(const ParmVarDecl *P) {
    for (BufferAccesses &B : Result.Buffers)
      if (B.Param == P)
        return B;
    llvm_unreachable("a pointer that is no parameter");
  }

  void escape(const ParmVarDecl *P, const std::string &Why, SourceLocation At) {
    BufferAccesses &B = buffer(P);
    if (B.Escape.empty()) {
      B.Escape = Why;
      B.EscapeLoc = AST.getSourceManager().getExpansionLoc(At);
    }
  }

  // ---- Values ----

  std::optional<IndexExpr> builtin(const Expr *E) {
    const auto *PO = dyn_cast<PseudoObjectExpr>(E);
    const auto *Prop = PO ? dyn_cast<MSPropertyRefExpr>(PO->getSyntacticForm()) : nullptr;
    const Expr *BaseExpr = Prop ? Prop->getBaseExpr()->IgnoreParenImpCasts() : nullptr;
    if (const auto *Opaque = dyn_cast_or_null<OpaqueValueExpr>(BaseExpr))
      BaseExpr = Opaque->getSourceExpr()->IgnoreParenImpCasts();
    const auto *Base = dyn_cast_or_null<DeclRefExpr>(BaseExpr);
    std::optional<BuiltinVar> Var = Base ? builtinVar(Base->getDecl()) : std::nullopt;
    if (!Var)
      return std::nullopt;
    std::string Dim = Prop->getPropertyDecl()->getName().str();
    if (Dim != "x" && Dim != "y" && Dim != "z")
      return std::nullopt;
    if (*Var == BuiltinVar::BlockDim && Block)
      return IndexExpr::constant((*Block)[Dim[0] - 'x']);
    return IndexExpr::symbol(Symbol::builtin(std::string(spelling(*Var)) + "." + Dim));
  }

  IndexExpr eval(const Expr *E) {
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CastExpr>(E))
      if (Cast->getType()->isIntegralOrEnumerationType() &&
          Cast->getSubExpr()->getType()->isIntegralOrEnumerationType())
        return eval(Cast->getSubExpr());
    if (!E->isValueDependent()) {
      Expr::EvalResult R;
      if (E->EvaluateAsInt(R, AST))
        return IndexExpr::constant(R.Val.getInt().getExtValue());
    }
    if (std::optional<IndexExpr> B = builtin(E))
      return *B;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
        if (auto It = Values.find(V); It != Values.end())
          return It->second;
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      switch (B->getOpcode()) {
      case BO_Add:
        return eval(B->getLHS()) + eval(B->getRHS());
      case BO_Sub:
        return eval(B->getLHS()) - eval(B->getRHS());
      case BO_Mul:
        return eval(B->getLHS()) * eval(B->getRHS());
      case BO_Shl:
        if (std::optional<int64_t> S = eval(B->getRHS()).asConstant(); S && *S >= 0 && *S < 31)
          return eval(B->getLHS()) * IndexExpr::constant(int64_t(1) << *S);
        break;
      default:
        break;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Minus)
        return IndexExpr() - eval(U->getSubExpr());
      if (U->getOpcode() == UO_Plus)
        return eval(U->getSubExpr());
    }
    return opaque(E);
  }

  std::optional<PointerValue> pointerOf(const Expr *E) {
    E = E->IgnoreParenCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
        if (auto It = Pointers.find(V); It != Pointers.end())
          return It->second;
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->getOpcode() == BO_Add || B->getOpcode() == BO_Sub) {
        bool Left = B->getLHS()->getType()->isPointerType();
        const Expr *Ptr = Left ? B->getLHS() : B->getRHS();
        const Expr *Off = Left ? B->getRHS() : B->getLHS();
        if (std::optional<PointerValue> P = pointerOf(Ptr)) {
          IndexExpr D = eval(Off);
          P->Offset = B->getOpcode() == BO_Add ? P->Offset + D : P->Offset - D;
          return P;
        }
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_AddrOf)
        if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
          if (std::optional<PointerValue> P = pointerOf(Sub->getBase())) {
            P->Offset = P->Offset + eval(Sub->getIdx());
            return P;
          }
    return std::nullopt;
  }

  /// Reports, with \p Why, the escape of every parameter whose pointer
  /// \p E mentions.
  void escapesIn(const Expr *E, const std::string &Why) {
    if (std::optional<PointerValue> P = pointerOf(E)) {
      escape(P->Base, Why, E->getBeginLoc());
      return;
    }
    for (const Stmt *Child : E->children())
      if (const auto *C = dyn_cast_or_null<Expr>(Child))
        escapesIn(C, Why);
  }

  // ---- Conditions ----

  IndexCondition unknown(const Expr *E, bool Negated) {
    return {IndexExpr(), false, (Negated ? "!(" : "") + text(E) + (Negated ? ")" : "")};
  }

  std::vector<IndexCondition> conditionsOf(const Expr *E, bool Negated) {
    E = E->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_LNot)
      return conditionsOf(U->getSubExpr(), !Negated);
    const auto *B = dyn_cast<BinaryOperator>(E);
    if (!B)
      return {unknown(E, Negated)};
    BinaryOperatorKind Op = B->getOpcode();
    if ((Op == BO_LAnd && !Negated) || (Op == BO_LOr && Negated)) {
      std::vector<IndexCondition> R = conditionsOf(B->getLHS(), Negated);
      std::vector<IndexCondition> S = conditionsOf(B->getRHS(), Negated);
      R.insert(R.end(), S.begin(), S.end());
      return R;
    }
    if (!B->isComparisonOp())
      return {unknown(E, Negated)};
    IndexExpr L = eval(B->getLHS()), R = eval(B->getRHS());
    // Unsigned arithmetic wraps: a difference may not mean what it says.
    bool Unsigned = B->getLHS()->getType()->isUnsignedIntegerType() ||
                    B->getRHS()->getType()->isUnsignedIntegerType();
    bool Subtracts = false;
    for (const IndexExpr *Side : {&L, &R})
      for (const auto &[M, C] : Side->terms())
        Subtracts |= C < 0;
    if (!L.isPolynomial() || !R.isPolynomial() || (Unsigned && Subtracts))
      return {unknown(E, Negated)};
    if (Negated) {
      switch (Op) {
      case BO_LT:
        Op = BO_GE;
        break;
      case BO_LE:
        Op = BO_GT;
        break;
      case BO_GT:
        Op = BO_LE;
        break;
      case BO_GE:
        Op = BO_LT;
        break;
      case BO_EQ:
        Op = BO_NE;
        break;
      case BO_NE:
        Op = BO_EQ;
        break;
      default:
        break;
      }
    }
    IndexExpr One = IndexExpr::constant(1);
    std::string T = Negated ? "!(" + text(E) + ")" : text(E);
    switch (Op) {
    case BO_LT:
      return {{R - L - One, true, T}};
    case BO_LE:
      return {{R - L, true, T}};
    case BO_GT:
      return {{L - R - One, true, T}};
    case BO_GE:
      return {{L - R, true, T}};
    case BO_EQ:
      return {{L - R, true, T}, {R - L, true, T}};
    default:
      return {unknown(E, Negated)};
    }
  }

  /// The condition under which the statements after \p S run, when \p S is
  /// `if (c) return;` (or continue), possibly with statements before the return.
  std::optional<const Expr *> exitCondition(const Stmt *S) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
      return std::nullopt;
    const Stmt *Last = If->getThen();
    if (const auto *Block = dyn_cast<CompoundStmt>(Last))
      Last = Block->body_empty() ? nullptr : Block->body_back();
    if (Last && (isa<ReturnStmt>(Last) || isa<ContinueStmt>(Last)))
      return If->getCond();
    return std::nullopt;
  }

  // ---- Statements ----

  void walkStmt(const Stmt *S) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S))
      return walkExpr(E, AccessKind::Read);
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
      size_t Depth = Guards.size();
      for (const Stmt *Child : Block->body()) {
        walkStmt(Child);
        if (std::optional<const Expr *> Exit = exitCondition(Child))
          for (const IndexCondition &C : conditionsOf(*Exit, /*Negated=*/true))
            Guards.push_back(C);
      }
      Guards.resize(Depth);
      return;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      walkStmt(If->getInit());
      walkExpr(If->getCond(), AccessKind::Read);
      underConditions(conditionsOf(If->getCond(), false), [&] { walkStmt(If->getThen()); });
      if (If->getElse())
        underConditions(conditionsOf(If->getCond(), true), [&] { walkStmt(If->getElse()); });
      return;
    }
    if (const auto *For = dyn_cast<ForStmt>(S))
      return walkFor(*For);
    if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
      for (const clang::Decl *D : Decl->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          declare(*V);
      return;
    }
    if (isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<CXXForRangeStmt>(S)) {
      ++LoopDepth;
      walkChildren(S);
      --LoopDepth;
      return;
    }
    walkChildren(S);
  }

  void walkChildren(const Stmt *S) {
    for (const Stmt *Child : S->children())
      walkStmt(Child);
  }

  template <typename F> void underConditions(const std::vector<IndexCondition> &Cs, F Walk) {
    size_t Depth = Guards.size();
    Guards.insert(Guards.end(), Cs.begin(), Cs.end());
    Walk();
    Guards.resize(Depth);
  }

  void declare(const VarDecl &V) {
    const Expr *Init = V.getInit();
    if (!Init)
      return;
    if (V.getType()->isPointerType()) {
      if (std::optional<PointerValue> P = pointerOf(Init)) {
        if (Mutations.count(&V))
          escape(P->Base, "copied into '" + V.getName().str() + "', which changes",
                 V.getLocation());
        else
          Pointers[&V] = *P;
        walkIndexOperands(Init);
        return;
      }
    }
    walkExpr(Init, AccessKind::Read);
    if (V.getType()->isIntegralOrEnumerationType() && !Mutations.count(&V))
      Values[&V] = eval(Init);
  }

  /// For pointer arithmetic on a parameter: accesses in its offsets.
  void walkIndexOperands(const Expr *E) {
    E = E->IgnoreParenCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      walkIndexOperands(B->getLHS());
      walkIndexOperands(B->getRHS());
    } else if (const auto *U = dyn_cast<UnaryOperator>(E);
               U && U->getOpcode() == UO_AddrOf && isa<ArraySubscriptExpr>(U->getSubExpr())) {
      walkExpr(cast<ArraySubscriptExpr>(U->getSubExpr())->getIdx(), AccessKind::Read);
    } else if (!pointerOf(E)) {
      walkExpr(E, AccessKind::Read);
    }
  }

  /// for (int i = Init; cond; i += Step) with i changed only by the increment.
  std::optional<std::pair<const VarDecl *, IndexExpr>> canonicalLoop(const ForStmt &For) {
    const auto *Decl = dyn_cast_or_null<DeclStmt>(For.getInit());
    const auto *V =
        Decl && Decl->isSingleDecl() ? dyn_cast<VarDecl>(Decl->getSingleDecl()) : nullptr;
    if (!V || !V->getInit() || !V->getType()->isIntegralOrEnumerationType() || Mutations[V] != 1 ||
        !For.getInc())
      return std::nullopt;
    const Expr *Inc = For.getInc()->IgnoreParenImpCasts();
    auto IsV = [&](const Expr *E) {
      const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return Ref && Ref->getDecl() == V;
    };
    std::optional<IndexExpr> Step;
    if (const auto *U = dyn_cast<UnaryOperator>(Inc);
        U && U->isIncrementOp() && IsV(U->getSubExpr()))
      Step = IndexExpr::constant(1);
    if (const auto *B = dyn_cast<CompoundAssignOperator>(Inc);
        B && B->getOpcode() == BO_AddAssign && IsV(B->getLHS()))
      Step = eval(B->getRHS());
    if (!Step || !Step->isPolynomial())
      return std::nullopt;
    // A step that is a positive constant or a product of block and grid sizes.
    std::optional<int64_t> C = Step->asConstant();
    if (C ? *C <= 0 : Step->terms().size() != 1 || Step->terms().begin()->second <= 0)
      return std::nullopt;
    return std::make_pair(V, *Step);
  }

  void walkFor(const ForStmt &For) {
    std::optional<std::pair<const VarDecl *, IndexExpr>> Canonical = canonicalLoop(For);
    ++LoopDepth;
    if (!Canonical) {
      walkChildren(&For);
      --LoopDepth;
      return;
    }
    const auto &[V, Step] = *Canonical;
    walkExpr(V->getInit(), AccessKind::Read);
    Symbol Iteration = Symbol::loop(V->getName().str(), LoopCount++);
    IndexExpr Init = eval(V->getInit());
    Result.Loops.insert({Iteration, {V->getName().str(), Init, Step}});
    Values[V] = Init + Step * IndexExpr::symbol(Iteration);
    Loops.push_back(Iteration);
    std::vector<IndexCondition> Cond;
    if (For.getCond()) {
      walkExpr(For.getCond(), AccessKind::Read);
      Cond = conditionsOf(For.getCond(), false);
    }
    underConditions(Cond, [&] { walkStmt(For.getBody()); });
    Loops.pop_back();
    --LoopDepth;
  }

  // ---- Expressions ----

  void record(const PointerValue &P, const Expr *Site, const Expr *Index, AccessKind Kind,
              bool Partial) {
    MemoryAccess A;
    A.Site = Site;
    A.Kind = Kind;
    A.Index = Index ? P.Offset + eval(Index) : P.Offset;
    A.Guards = Guards;
    A.Loops = Loops;
    A.InLoop = LoopDepth > 0;
    A.Partial = Partial;
    A.Helper = Helpers.empty() ? nullptr : Helpers.back();
    A.Text = text(Site);
    buffer(P.Base).Accesses.push_back(std::move(A));
  }

  void walkExpr(const Expr *E, AccessKind Role, bool Partial = false) {
    if (!E)
      return;
    E = E->IgnoreParens();
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
      if (std::optional<PointerValue> P = pointerOf(Sub->getBase())) {
        record(*P, Sub, Sub->getIdx(), Role, Partial);
        walkExpr(Sub->getIdx(), AccessKind::Read);
        walkIndexOperands(Sub->getBase());
        return;
      }
    }
    if (const auto *M = dyn_cast<MemberExpr>(E); M && !M->isArrow())
      return walkExpr(M->getBase(), Role, /*Partial=*/true);
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Deref)
        if (std::optional<PointerValue> P = pointerOf(U->getSubExpr())) {
          record(*P, U, nullptr, Role, Partial);
          walkIndexOperands(U->getSubExpr());
          return;
        }
      if (U->isIncrementDecrementOp())
        return walkExpr(U->getSubExpr(), AccessKind::ReadWrite);
      if (U->getOpcode() == UO_AddrOf && pointerOf(U))
        return escapesIn(U, "its element's address is taken");
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->isAssignmentOp()) {
        walkExpr(B->getLHS(),
                 B->isCompoundAssignmentOp() ? AccessKind::ReadWrite : AccessKind::Write);
        walkExpr(B->getRHS(), AccessKind::Read);
        return;
      }
      if (B->isLogicalOp()) {
        walkExpr(B->getLHS(), AccessKind::Read);
        underConditions(conditionsOf(B->getLHS(), B->getOpcode() == BO_LOr),
                        [&] { walkExpr(B->getRHS(), AccessKind::Read); });
        return;
      }
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      walkExpr(C->getCond(), AccessKind::Read);
      underConditions(conditionsOf(C->getCond(), false), [&] { walkExpr(C->getTrueExpr(), Role); });
      underConditions(conditionsOf(C->getCond(), true), [&] { walkExpr(C->getFalseExpr(), Role); });
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (walkCall(*Call))
        return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (std::optional<PointerValue> P = pointerOf(Ref))
        escape(P->Base, "'" + Ref->getDecl()->getName().str() + "' is used as a value",
               Ref->getLocation());
      return;
    }
    if (pointerOf(E))
      return escapesIn(E, "a pointer into it is used as a value");
    for (const Stmt *Child : E->children())
      if (const auto *C = dyn_cast_or_null<Expr>(Child))
        walkExpr(C, AccessKind::Read);
  }

  /// Atomics on an element, and calls that receive a pointer from a
  /// parameter, which are walked into. Returns false to walk the call as
  /// an ordinary expression.
  bool walkCall(const CallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    bool PassesPointer = false;
    for (const Expr *Arg : Call.arguments())
      PassesPointer |= pointerOf(Arg).has_value();
    if (!Callee || !PassesPointer)
      return false;
    std::string Name = Callee->getIdentifier() ? Callee->getName().str() : "";
    if (llvm::StringRef(Name).starts_with("atomic") && Call.getNumArgs() >= 1) {
      if (std::optional<PointerValue> P = pointerOf(Call.getArg(0))) {
        record(*P, &Call, nullptr, AccessKind::Atomic, false);
        walkIndexOperands(Call.getArg(0));
        for (unsigned I = 1; I < Call.getNumArgs(); ++I)
          walkExpr(Call.getArg(I), AccessKind::Read);
        return true;
      }
    }
    const FunctionDecl *Def = Callee->getDefinition();
    if (!Def || !Def->hasBody() ||
        std::find(Helpers.begin(), Helpers.end(), Def) != Helpers.end() || Helpers.size() > 8) {
      for (const Expr *Arg : Call.arguments())
        escapesIn(Arg, "passed to '" + Name + "', whose body kfuse cannot follow");
      return true;
    }
    for (unsigned I = 0; I < Call.getNumArgs() && I < Def->getNumParams(); ++I) {
      const ParmVarDecl *P = Def->getParamDecl(I);
      const Expr *Arg = Call.getArg(I);
      if (std::optional<PointerValue> Ptr = pointerOf(Arg)) {
        walkIndexOperands(Arg);
        Pointers[P] = *Ptr;
        continue;
      }
      walkExpr(Arg, AccessKind::Read);
      if (P->getType()->isIntegralOrEnumerationType())
        Values[P] = eval(Arg);
    }
    Helpers.push_back(Def);
    countMutations(*Def);
    for (const ParmVarDecl *P : Def->parameters())
      if (Mutations.count(P)) {
        Values.erase(P);
        if (auto It = Pointers.find(P); It != Pointers.end()) {
          escape(It->second.Base, "'" + P->getName().str() + "' changes in '" + Name + "'",
                 P->getLocation());
          Pointers.erase(It);
        }
      }
    walkStmt(Def->getBody());
    Helpers.pop_back();
    return true;
  }
};

} // namespace

KernelAccesses analyzeAccesses(const clang::FunctionDecl &Kernel,
                               std::optional<std::array<unsigned, 3>> Block) {
  return AccessWalker(Kernel, Block).run();
}

} // namespace kfuse
