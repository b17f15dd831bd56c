//===- Elementwise.cpp - kernels whose threads each touch one element -----===//

#include "kfuse/Analysis/Elementwise.h"

#include "kfuse/Analysis/Mutations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>
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

/// The statement \p E belongs to in the compound statement around it.
std::pair<const Stmt *, const CompoundStmt *> statementOf(const Expr *E, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*E);
  for (;;) {
    DynTypedNodeList Parents = AST.getParents(Node);
    if (Parents.size() != 1)
      return {nullptr, nullptr};
    if (const auto *C = Parents[0].get<CompoundStmt>())
      return {Node.get<Stmt>(), C};
    Node = Parents[0];
  }
}

/// Whether \p Inner lies inside \p Outer.
bool within(const Stmt *Inner, const Stmt *Outer, ASTContext &AST) {
  DynTypedNode Node = DynTypedNode::create(*Inner);
  for (;;) {
    if (Node.get<Stmt>() == Outer)
      return true;
    DynTypedNodeList Parents = AST.getParents(Node);
    if (Parents.size() != 1)
      return false;
    Node = Parents[0];
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
  DynTypedNodeList Parents = AST.getParents(*Write);
  const auto *Assign = Parents.size() == 1 ? Parents[0].get<BinaryOperator>() : nullptr;
  return Assign && Assign->isAssignmentOp() && Assign->getLHS()->IgnoreParens() == Write &&
         within(Read, Assign->getRHS(), AST);
}

/// Parameters the body may change.
std::set<const ParmVarDecl *> changedParams(const FunctionDecl &F) {
  std::set<const ParmVarDecl *> Changed;
  forEachMutation(F.getBody(), [&](const Expr *E) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
        Changed.insert(P);
  });
  return Changed;
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
    DynTypedNodeList Parents = AST.getParents(Node);
    if (Parents.size() != 1)
      return false;
    if (const auto *Paren = Parents[0].get<ParenExpr>()) {
      Node = DynTypedNode::create(*static_cast<const Expr *>(Paren));
      continue;
    }
    const auto *Cast = Parents[0].get<ImplicitCastExpr>();
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

/// Why an access keeps the kernel from being elementwise; empty if it does not.
std::string refusal(const MemoryAccess &A, const IndexExpr &Index) {
  if (A.Kind == AccessKind::Atomic || A.Kind == AccessKind::Unknown)
    return "'" + A.Text + "' " + spelling(A.Kind) + " memory";
  if (!A.precise() || A.Partial)
    return "'" + A.Text + "' touches more or less than one element";
  if (A.InLoop || A.Helper)
    return "'" + A.Text + "' is in a loop or a called function";
  if (A.Index != Index)
    return "'" + A.Text + "' touches element " + A.Index.str() + ", not " + Index.str();
  return "";
}

} // namespace

ElementwiseResult findElementwise(const KernelModel &Model, const KernelAccesses &Accesses,
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
  std::vector<const MemoryAccess *> Writes;
  for (const MemoryAccesses &Buffer : Accesses.Buffers) {
    if (Buffer.Accesses.empty())
      continue;
    if (Changed.count(Buffer.Param))
      return No("it changes pointer '" + Buffer.Param->getName().str() + "'");
    for (const MemoryAccess &A : Buffer.Accesses) {
      if (std::string Why = refusal(A, Index); !Why.empty())
        return No(Why);
      const ParmVarDecl *Bound = boundOf(A.Guards, Index, F);
      if (!Bound || Changed.count(Bound) || (K.Bound && K.Bound != Bound))
        return No("'" + A.Text + "' runs under another condition than " + Index.str() +
                  " < n for a parameter n");
      K.Bound = Bound;
      if (A.writes())
        Writes.push_back(&A);
    }
    K.Buffers.push_back({Buffer.Param, Buffer.writes()});
  }
  if (K.Buffers.empty())
    return No("it touches no buffer");
  if (K.Bound->getType()->isSignedIntegerType())
    if (const BinaryOperator *B = unsignedComparison(F))
      return No("it compares unsigned values (line " +
                std::to_string(AST.getSourceManager().getExpansionLineNumber(B->getOperatorLoc())) +
                "), where '" + K.Bound->getName().str() + "' is signed");
  for (const MemoryAccesses &Buffer : Accesses.Buffers)
    for (const MemoryAccess &A : Buffer.Accesses) {
      const auto *Site = dyn_cast<ArraySubscriptExpr>(A.Site);
      if (A.Kind != AccessKind::Read || !Site || !Site->getBeginLoc().isFileID() ||
          !Site->getEndLoc().isFileID() || !loadsValue(Site, AST) ||
          Site->getType().isVolatileQualified())
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
    return No("no load comes before every store");
  return {std::move(K), ""};
}

} // namespace kfuse
