//===- Elementwise.cpp - kernels whose threads each touch one element -----===//

#include "kfuse/Analysis/Kernel/Elementwise.h"

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/Mutations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <map>
#include <set>

using namespace clang;

namespace kfuse {
namespace {

/// blockIdx.x * B + threadIdx.x, B a count or blockDim.x.
IndexExpr elementIndex(std::optional<unsigned> B) {
  IndexExpr Stride = B ? IndexExpr::constant(*B) : IndexExpr::symbol(Symbol::builtin("blockDim.x"));
  return IndexExpr::symbol(Symbol::builtin("blockIdx.x")) * Stride +
         IndexExpr::symbol(Symbol::builtin("threadIdx.x"));
}

/// Without a block: the stride of the first access's index, a count where
/// the kernel spells one.
std::optional<unsigned> strideOf(const KernelAccesses &Accesses) {
  for (const MemoryAccesses &Buffer : Accesses.Buffers)
    for (const MemoryAccess &A : Buffer.Accesses)
      if (std::optional<IndexExpr> C = A.Index.linearCoefficient(Symbol::builtin("blockIdx.x")))
        if (std::optional<int64_t> B = C->asConstant(); B && *B > 0 && *B <= 1024)
          return static_cast<unsigned>(*B);
  return std::nullopt;
}

/// The one parent of \p Node; none at the top or where a node has several
/// (a template's instantiations), where the walks below give up.
std::optional<DynTypedNode> soleParent(const DynTypedNode &Node, ASTContext &AST) {
  DynTypedNodeList Parents = AST.getParents(Node);
  if (Parents.size() != 1)
    return std::nullopt;
  return Parents[0];
}

/// The statement \p E belongs to in the compound statement around it.
std::pair<const Stmt *, const CompoundStmt *> statementOf(const Expr *E, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*E);
  for (;;) {
    std::optional<DynTypedNode> Parent = soleParent(Node, AST);
    if (!Parent)
      return {nullptr, nullptr};
    if (const auto *C = Parent->get<CompoundStmt>())
      return {Node.get<Stmt>(), C};
    Node = *Parent;
  }
}

/// Whether \p Inner lies inside \p Outer.
bool within(const Stmt *Inner, const Stmt *Outer, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*Inner);
  for (;;) {
    if (Node.get<Stmt>() == Outer)
      return true;
    std::optional<DynTypedNode> Parent = soleParent(Node, AST);
    if (!Parent)
      return false;
    Node = *Parent;
  }
}

/// Whether the read \p Read happens before the store of \p Write: it is in
/// an earlier statement of the same block, or in the right side of the
/// assignment that stores.
bool readsBefore(const Expr *Read, const Expr *Write, ASTContext &AST) {
  auto [ReadStmt, ReadBlock] = statementOf(Read, AST);
  auto [WriteStmt, WriteBlock] = statementOf(Write, AST);
  if (!ReadStmt || !WriteStmt || ReadBlock != WriteBlock)
    return false;
  if (ReadStmt != WriteStmt) {
    for (const Stmt *S : ReadBlock->body()) {
      if (S == ReadStmt)
        return true;
      if (S == WriteStmt)
        return false;
    }
    return false;
  }
  std::optional<DynTypedNode> Parent = soleParent(DynTypedNode::create(*Write), AST);
  const auto *Assign = Parent ? Parent->get<BinaryOperator>() : nullptr;
  return Assign && Assign->isAssignmentOp() && Assign->getLHS()->IgnoreParens() == Write &&
         within(Read, Assign->getRHS(), AST);
}

/// The scalar parameter n of the single guard n - i - 1 >= 0.
const ParmVarDecl *boundOf(const std::vector<IndexCondition> &Guards, const IndexExpr &Index,
                           const FunctionDecl &F) {
  if (Guards.size() != 1 || !Guards[0].Known)
    return nullptr;
  IndexExpr Rest = Guards[0].Expr + Index + IndexExpr::constant(1);
  const auto &Terms = Rest.terms();
  if (Terms.size() != 1 || Terms.begin()->second != 1 || Terms.begin()->first.size() != 1)
    return nullptr;
  const Symbol &S = Terms.begin()->first.front();
  if (S.kind() != SymbolKind::Param)
    return nullptr;
  for (const ParmVarDecl *P : F.parameters())
    if (P->getName() == S.name() && P->getType()->isIntegerType() &&
        (P->getType()->isSignedIntegerType() || F.getASTContext().getTypeSize(P->getType()) <= 32))
      return P;
  return nullptr;
}

/// Whether \p Site's value is loaded where it stands: converted to an rvalue,
/// not bound to a reference or addressed, which would read it later.
bool loadsValue(const Expr *Site, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*Site);
  for (;;) {
    std::optional<DynTypedNode> Parent = soleParent(Node, AST);
    if (!Parent)
      return false;
    if (const auto *Paren = Parent->get<ParenExpr>()) {
      Node = DynTypedNode::create(*static_cast<const Expr *>(Paren));
      continue;
    }
    const auto *Cast = Parent->get<ImplicitCastExpr>();
    return Cast && Cast->getCastKind() == CK_LValueToRValue;
  }
}

/// A comparison made in an unsigned type, where the bound is signed: the
/// loads ahead compare values (`i < n`), while `unsigned i < int n` takes
/// every thread for n < 0, and a copy of n in an unsigned local does too.
const BinaryOperator *unsignedComparison(const FunctionDecl &F) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const BinaryOperator *Found = nullptr;
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->isComparisonOp() && !Found && B->getLHS()->getType()->isUnsignedIntegerType())
        Found = B;
      return true;
    }
  } Finder;
  Finder.TraverseStmt(F.getBody());
  return Finder.Found;
}

/// An object whose construction or destruction runs code: the access
/// analysis does not see what a destructor stores, so its stores could come
/// after a load that goes ahead.
bool runsSpecialMembers(const FunctionDecl &F) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      Found |= !C->getConstructor()->isTrivial();
      return true;
    }
    bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr *) {
      Found = true;
      return true;
    }
    bool VisitCXXNewExpr(CXXNewExpr *) {
      Found = true;
      return true;
    }
    bool VisitCXXDeleteExpr(CXXDeleteExpr *) {
      Found = true;
      return true;
    }
    bool VisitVarDecl(VarDecl *V) {
      if (const CXXRecordDecl *R = V->getType()->getAsCXXRecordDecl(); R && R->hasDefinition())
        Found |= !R->hasTrivialDestructor();
      return true;
    }
  } Finder;
  Finder.TraverseStmt(F.getBody());
  return Finder.Found;
}

/// Inline assembly in \p F or in what it calls: it may store anywhere or
/// end the thread (`exit;`), which would end every later block it runs.
bool reachesAsm(const FunctionDecl &F, std::set<const FunctionDecl *> &Seen) {
  if (!F.hasBody() || !Seen.insert(&F).second)
    return false;
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Asm = false;
    std::vector<const FunctionDecl *> Callees;
    bool VisitAsmStmt(AsmStmt *) {
      Asm = true;
      return true;
    }
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *D = C->getDirectCallee())
        Callees.push_back(D);
      return true;
    }
  } Finder;
  Finder.TraverseStmt(F.getBody());
  if (Finder.Asm)
    return true;
  for (const FunctionDecl *D : Finder.Callees)
    if (const FunctionDecl *Def = D->getDefinition();
        Def && !Def->getASTContext().getSourceManager().isInSystemHeader(Def->getLocation()) &&
        reachesAsm(*Def, Seen))
      return true;
  return false;
}

/// The loop statement nearest around \p E; null outside loops.
const Stmt *enclosingLoop(const Stmt *E, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*E);
  for (;;) {
    std::optional<DynTypedNode> Parent = soleParent(Node, AST);
    if (!Parent)
      return nullptr;
    if (const auto *S = Parent->get<Stmt>();
        S && (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<CXXForRangeStmt>(S)))
      return S;
    if (Parent->get<Decl>() && !Parent->get<VarDecl>())
      return nullptr;
    Node = *Parent;
  }
}

/// Whether \p E reads only the built-in variables and constants, and
/// changes nothing: its value is the same wherever it is evaluated.
bool readsOnlyBuiltins(const Expr *E) {
  if (const auto *P = dyn_cast<PseudoObjectExpr>(E))
    E = P->getSyntacticForm();
  if (const auto *M = dyn_cast<MSPropertyRefExpr>(E)) {
    const Expr *Base = M->getBaseExpr();
    if (const auto *O = dyn_cast<OpaqueValueExpr>(Base))
      Base = O->getSourceExpr();
    const auto *Ref = Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
    return Ref && builtinVar(Ref->getDecl());
  }
  if (isa<IntegerLiteral>(E))
    return true;
  if (const auto *P = dyn_cast<ParenExpr>(E))
    return readsOnlyBuiltins(P->getSubExpr());
  if (const auto *C = dyn_cast<CastExpr>(E))
    return C->getType()->isIntegerType() && readsOnlyBuiltins(C->getSubExpr());
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return !B->isAssignmentOp() && !B->isCommaOp() && readsOnlyBuiltins(B->getLHS()) &&
           readsOnlyBuiltins(B->getRHS());
  return false;
}

/// A statement in \p Body that leaves an iteration before its end.
bool leavesEarly(const Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitStmt(Stmt *S) {
      Found |= isa<BreakStmt, ContinueStmt, ReturnStmt, GotoStmt, IndirectGotoStmt, LabelStmt,
                   CoreturnStmt>(S);
      return true;
    }
  } Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(Body));
  return Finder.Found;
}

/// Whether \p Site is evaluated whenever \p Body runs: it lies under no
/// condition, loop, short-circuit or unevaluated operand inside it.
bool unconditionalIn(const Expr *Site, const Stmt *Body, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*Site);
  while (Node.get<Stmt>() != Body) {
    std::optional<DynTypedNode> Parent = soleParent(Node, AST);
    if (!Parent)
      return false;
    if (const auto *V = Parent->get<VarDecl>()) {
      if (V->isStaticLocal())
        return false;
      Node = *Parent;
      continue;
    }
    const auto *S = Parent->get<Stmt>();
    if (!S || !isa<Expr, CompoundStmt, DeclStmt>(S) ||
        isa<AbstractConditionalOperator, StmtExpr, LambdaExpr, UnaryExprOrTypeTraitExpr,
            CXXTypeidExpr, CXXNoexceptExpr>(S))
      return false;
    if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->isLogicalOp())
      return false;
    Node = *Parent;
  }
  return true;
}

/// Whether \p Site lies in an operand that is never evaluated (sizeof,
/// typeid, noexcept, __builtin_assume): the original never loads it.
bool unevaluated(const Expr *Site, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*Site);
  for (;;) {
    std::optional<DynTypedNode> Parent = soleParent(Node, AST);
    if (!Parent)
      return false;
    if (const auto *S = Parent->get<Stmt>();
        S && isa<UnaryExprOrTypeTraitExpr, CXXTypeidExpr, CXXNoexceptExpr>(S))
      return true;
    // Builtins whose operand is never evaluated.
    if (const auto *C = Parent->get<CallExpr>()) {
      unsigned Id = C->getBuiltinCallee();
      if (Id == Builtin::BI__builtin_assume || Id == Builtin::BI__builtin_constant_p ||
          Id == Builtin::BI__builtin_object_size || Id == Builtin::BI__builtin_dynamic_object_size)
        return true;
    }
    Node = *Parent;
  }
}

/// Whether \p Loop's text can be replaced as a whole: it is spelled in the
/// file, or a macro expansion spells exactly its header and the file its body.
bool replaceableLoop(const ForStmt &Loop, ASTContext &AST) {
  const SourceManager &SM = AST.getSourceManager();
  const Stmt *Body = Loop.getBody();
  if (!Body->getBeginLoc().isFileID() || !Body->getEndLoc().isFileID())
    return false;
  SourceLocation Begin = Loop.getBeginLoc();
  if (Begin.isFileID())
    return true;
  SourceLocation Start;
  if (!Lexer::isAtStartOfMacroExpansion(Begin, SM, AST.getLangOpts(), &Start))
    return false;
  return SM.isBeforeInTranslationUnit(SM.getExpansionRange(Begin).getEnd(), Body->getBeginLoc());
}

/// Why an access keeps the kernel from being elementwise; empty if it does
/// not. \p Loop is the grid-stride loop each access must lie in, if any.
std::string refusal(const MemoryAccess &A, const IndexExpr &Index, const GridStrideLoop *Loop) {
  if (A.Kind == AccessKind::Atomic || A.Kind == AccessKind::Unknown)
    return "'" + A.Text + "' " + spelling(A.Kind) + " memory";
  if (!A.precise() || A.Partial)
    return "'" + A.Text + "' touches more or less than one element";
  if (A.Helper || (A.InLoop && !Loop))
    return "'" + A.Text + "' is in a loop or a called function";
  if (Loop) {
    ASTContext &AST = Loop->Variable->getASTContext();
    if (A.Loops.size() != 1 || enclosingLoop(A.Site, AST) != Loop->Loop ||
        !within(A.Site, Loop->Loop->getBody(), AST))
      return "'" + A.Text + "' is not in the body of the grid-stride loop alone";
  }
  if (A.Index != Index)
    return "'" + A.Text + "' touches element " + A.Index.str() + ", not " + Index.str();
  return "";
}

/// Whether the last condition \p A runs under is the loop's `i < n`: none
/// inside the loop, where the syntax shows no condition either (a pointer
/// chosen under one, say).
bool lastGuardIsLoop(const MemoryAccess &A, const IndexExpr &Index, const ParmVarDecl &Bound) {
  return !A.Guards.empty() && A.Guards.back().Known &&
         A.Guards.back().Expr + Index + IndexExpr::constant(1) ==
             IndexExpr::symbol(Symbol::param(Bound.getName().str()));
}

/// Whether \p E names \p D.
bool refersTo(const Expr *E, const ValueDecl *D) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  return Ref && Ref->getDecl() == D;
}

/// The grid-stride loop `for (T i = blockIdx.x * B + threadIdx.x; i < n;
/// i += B * gridDim.x)` the first access in a loop lies in, with its bound n and the
/// element each iteration touches; or why there is none.
struct FoundLoop {
  std::optional<GridStrideLoop> Loop;
  const ParmVarDecl *Bound = nullptr;
  IndexExpr Element;
  std::string WhyNot;
};
FoundLoop gridStrideLoop(const FunctionDecl &F, const KernelAccesses &Accesses,
                         std::optional<unsigned> B, const std::set<const ParmVarDecl *> &Changed) {
  ASTContext &AST = F.getASTContext();
  FoundLoop Found;
  auto No = [&](std::string Why) {
    Found.WhyNot = std::move(Why);
    return Found;
  };
  const MemoryAccess *First = nullptr;
  for (const MemoryAccesses &Buffer : Accesses.Buffers)
    for (const MemoryAccess &A : Buffer.Accesses)
      if (!First && A.InLoop)
        First = &A;
  if (!First)
    return No("it touches no buffer");
  const auto *Loop = dyn_cast_or_null<ForStmt>(enclosingLoop(First->Site, AST));
  auto Shape =
      First->Loops.size() == 1 ? Accesses.Loops.find(First->Loops[0]) : Accesses.Loops.end();
  if (!Loop || Shape == Accesses.Loops.end())
    return No("'" + First->Text + "' is in a loop, but not in one counted for loop");
  // The loop the iteration symbol counts is then the only one around.
  if (enclosingLoop(Loop, AST))
    return No("its loop lies in another loop");
  IndexExpr Stride = B ? IndexExpr::constant(*B) : IndexExpr::symbol(Symbol::builtin("blockDim.x"));
  IndexExpr Step = Stride * IndexExpr::symbol(Symbol::builtin("gridDim.x"));
  if (Shape->second.Init != elementIndex(B) || Shape->second.Step != Step)
    return No("its loop runs from " + Shape->second.Init.str() + " by " + Shape->second.Step.str() +
              ", not from " + elementIndex(B).str() + " by " + Step.str());
  const auto *Init = dyn_cast_or_null<DeclStmt>(Loop->getInit());
  const auto *Var =
      Init && Init->isSingleDecl() ? dyn_cast<VarDecl>(Init->getSingleDecl()) : nullptr;
  QualType Type = Var ? Var->getType().getCanonicalType() : QualType();
  if (!Var || Var->getName() != Shape->second.Variable || !Var->getInit() ||
      !Type->isBuiltinType() || !Type->isIntegerType() || Type->isBooleanType() ||
      Type.isVolatileQualified() || !readsOnlyBuiltins(Var->getInit()))
    return No("its loop does not declare one integer variable from the built-in variables");
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(Loop->getCond());
  const auto *BoundRef =
      Cond ? dyn_cast<DeclRefExpr>(Cond->getRHS()->IgnoreParenImpCasts()) : nullptr;
  const auto *Bound = BoundRef ? dyn_cast<ParmVarDecl>(BoundRef->getDecl()) : nullptr;
  if (!Cond || Cond->getOpcode() != BO_LT || !refersTo(Cond->getLHS(), Var) || !Bound ||
      !Bound->getType()->isIntegerType() || Changed.count(Bound))
    return No("its loop's condition is not '" + Var->getName().str() +
              " < n' for an integer parameter n it never changes");
  // kfuse_lie_apart takes a negative n for no elements, as a comparison of
  // values does.
  if (Bound->getType()->isSignedIntegerType() && Cond->getLHS()->getType()->isUnsignedIntegerType())
    return No("its loop compares '" + Var->getName().str() + " < " + Bound->getName().str() +
              "' as unsigned values, where '" + Bound->getName().str() + "' is signed");
  const auto *Inc = dyn_cast_or_null<CompoundAssignOperator>(Loop->getInc());
  if (!Inc || Inc->getOpcode() != BO_AddAssign || !refersTo(Inc->getLHS(), Var) ||
      Inc->getLHS()->IgnoreParens() != Inc->getLHS()->IgnoreParenImpCasts() ||
      !readsOnlyBuiltins(Inc->getRHS()))
    return No("its loop does not step by '" + Var->getName().str() +
              " += ' the built-in variables");
  bool Changes = false;
  forEachMutation(Loop->getBody(), [&](const Expr *E) { Changes |= refersTo(E, Var); });
  if (Changes)
    return No("its loop's body changes '" + Var->getName().str() + "'");
  if (leavesEarly(Loop->getBody()))
    return No("its loop's body leaves an iteration early (break, continue, return or goto)");
  if (!replaceableLoop(*Loop, AST))
    return No("its loop is spelled in a macro that does not expand to its header alone");
  Found.Loop = GridStrideLoop{Loop, Var, Var->getInit(), Inc->getRHS()};
  Found.Bound = Bound;
  Found.Element = Shape->second.Init + Shape->second.Step * IndexExpr::symbol(First->Loops[0]);
  return Found;
}

} // namespace

ElementwiseResult findElementwiseForm(const KernelModel &Model, const KernelAccesses &Accesses,
                                      std::optional<std::array<unsigned, 3>> Block) {
  auto No = [](std::string Why) { return ElementwiseResult{std::nullopt, std::move(Why)}; };
  const FunctionDecl &F = *Model.Decl;
  ASTContext &AST = F.getASTContext();
  if (Block && ((*Block)[1] != 1 || (*Block)[2] != 1))
    return No("its block is not 1-D");
  if (Model.synchronizes() || !Model.Shared.empty() || !Model.AsmBarriers.empty() ||
      !Model.GridSyncs.empty() || !Model.WarpSyncs.empty())
    return No("it synchronizes or uses shared memory");
  if (!Model.Gotos.empty() || !Model.LabelStmts.empty())
    return No("it jumps");
  if (!Model.SpecialCalls.empty() || runsSpecialMembers(F))
    return No("it runs a constructor or destructor");
  std::set<const FunctionDecl *> Seen;
  if (reachesAsm(F, Seen))
    return No("it runs inline assembly");
  if (!Accesses.Other.empty())
    return No(Accesses.Other.front().describe() + " is no buffer of a pointer parameter");
  std::optional<unsigned> Stride =
      Block ? std::optional<unsigned>((*Block)[0]) : strideOf(Accesses);
  IndexExpr Index = elementIndex(Stride);
  std::set<const ParmVarDecl *> Changed = changedParams(F);
  ElementwiseKernel K;
  K.BlockStride = Stride;
  bool Looped = std::any_of(Accesses.Buffers.begin(), Accesses.Buffers.end(), [](const auto &B) {
    return std::any_of(B.Accesses.begin(), B.Accesses.end(),
                       [](const MemoryAccess &A) { return A.InLoop; });
  });
  if (Looped) {
    FoundLoop L = gridStrideLoop(F, Accesses, Stride, Changed);
    if (!L.Loop)
      return No(L.WhyNot);
    K.Loop = L.Loop;
    K.Bound = L.Bound;
    Index = L.Element;
  }
  const GridStrideLoop *Loop = K.Loop ? &*K.Loop : nullptr;
  for (const MemoryAccesses &Buffer : Accesses.Buffers) {
    if (Buffer.Accesses.empty())
      continue;
    if (Changed.count(Buffer.Param))
      return No("it changes pointer '" + Buffer.Param->getName().str() + "'");
    for (const MemoryAccess &A : Buffer.Accesses) {
      if (std::string Why = refusal(A, Index, Loop); !Why.empty())
        return No(Why);
      if (!Loop) {
        const ParmVarDecl *Bound = boundOf(A.Guards, Index, F);
        if (!Bound || Changed.count(Bound) || (K.Bound && K.Bound != Bound))
          return No("'" + A.Text + "' runs under another condition than " + Index.str() +
                    " < n for a parameter n");
        K.Bound = Bound;
      }
    }
    K.Buffers.push_back({Buffer.Param, Buffer.writes()});
  }
  if (K.Buffers.empty())
    return No("it touches no buffer");
  // The loop form compares as its own condition does; the other compares
  // i < n in values (ReadsAhead::Condition).
  if (!Loop && K.Bound->getType()->isSignedIntegerType())
    if (const BinaryOperator *B = unsignedComparison(F))
      return No("it compares unsigned values (line " +
                std::to_string(AST.getSourceManager().getExpansionLineNumber(B->getOperatorLoc())) +
                "), where '" + K.Bound->getName().str() + "' is signed");
  K.Element = Index;
  return {std::move(K), ""};
}

ElementwiseResult findElementwise(const KernelModel &Model, const KernelAccesses &Accesses,
                                  std::optional<std::array<unsigned, 3>> Block) {
  ElementwiseResult Form = findElementwiseForm(Model, Accesses, Block);
  if (!Form.Kernel)
    return Form;
  ElementwiseKernel &K = *Form.Kernel;
  ASTContext &AST = Model.Decl->getASTContext();
  const GridStrideLoop *Loop = K.Loop ? &*K.Loop : nullptr;
  const IndexExpr &Index = K.Element;
  std::vector<const MemoryAccess *> Writes;
  for (const MemoryAccesses &Buffer : Accesses.Buffers)
    for (const MemoryAccess &A : Buffer.Accesses)
      if (A.writes())
        Writes.push_back(&A);
  // A site that reaches more than one buffer (`(f ? x : z)[i]`) reads the one
  // its condition picks: it stays where it is.
  std::map<const Expr *, unsigned> Reaches;
  for (const MemoryAccesses &Buffer : Accesses.Buffers)
    for (const MemoryAccess &A : Buffer.Accesses)
      ++Reaches[A.Site];
  for (const MemoryAccesses &Buffer : Accesses.Buffers)
    for (const MemoryAccess &A : Buffer.Accesses) {
      const auto *Site = dyn_cast<ArraySubscriptExpr>(A.Site);
      if (A.Kind != AccessKind::Read || !Site || Reaches[A.Site] != 1 ||
          (Loop && !lastGuardIsLoop(A, Index, *K.Bound)) || !Site->getBeginLoc().isFileID() ||
          !Site->getEndLoc().isFileID() || !loadsValue(Site, AST) ||
          Site->getType().isVolatileQualified() || unevaluated(Site, AST) ||
          (Loop && !unconditionalIn(Site, Loop->Loop->getBody(), AST)))
        continue;
      QualType Element = Site->getType().getUnqualifiedType().getCanonicalType();
      QualType Pointee = Buffer.Param->getType()->getPointeeType().getUnqualifiedType();
      if (!Element->isArithmeticType() || !Element->isBuiltinType() ||
          Element != Pointee.getCanonicalType())
        continue;
      if (std::all_of(Writes.begin(), Writes.end(),
                      [&](const MemoryAccess *W) { return readsBefore(Site, W->Site, AST); }))
        K.Ahead.push_back({Site, Buffer.Param, Element});
    }
  if (K.Ahead.empty())
    return {std::nullopt, "no load comes before every store"};
  return Form;
}

bool coarsenable(const ElementwiseResult &E, bool AnyGrid) {
  return E.Kernel && (E.Kernel->Loop || !AnyGrid);
}

} // namespace kfuse
