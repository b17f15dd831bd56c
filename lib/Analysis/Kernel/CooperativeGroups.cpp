//===- CooperativeGroups.cpp - what a cooperative-groups call does --------===//

#include "kfuse/Analysis/Kernel/CooperativeGroups.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

namespace kfuse {
namespace {

using namespace clang;

bool inCooperativeGroups(const NamedDecl &D) {
  return StringRef(D.getQualifiedNameAsString()).starts_with("cooperative_groups::");
}

enum class GroupType { Unknown, Block, Tile, Coalesced, Grid, Cluster, Erased };

struct Group {
  GroupType Type = GroupType::Unknown;
  unsigned Size = 0; ///< For a tile.
  enum { Void, Block, Other } Parent = Void;
};

Group groupOf(QualType T) {
  T = T.getNonReferenceType();
  if (const auto *P = T->getAs<PointerType>())
    T = P->getPointeeType();
  const CXXRecordDecl *R = T.getCanonicalType()->getAsCXXRecordDecl();
  Group G;
  if (!R || !R->getIdentifier() || !inCooperativeGroups(*R))
    return G;
  G.Type = llvm::StringSwitch<GroupType>(R->getName())
               .Case("thread_block", GroupType::Block)
               .Case("thread_block_tile", GroupType::Tile)
               .Case("coalesced_group", GroupType::Coalesced)
               .Cases("grid_group", "multi_grid_group", GroupType::Grid)
               .Case("cluster_group", GroupType::Cluster)
               .Case("thread_group", GroupType::Erased)
               .Default(GroupType::Unknown);
  const auto *Tile = dyn_cast<ClassTemplateSpecializationDecl>(R);
  if (G.Type != GroupType::Tile || !Tile)
    return G;
  const TemplateArgumentList &Args = Tile->getTemplateArgs();
  if (Args.size() > 0 && Args[0].getKind() == TemplateArgument::Integral)
    G.Size = static_cast<unsigned>(Args[0].getAsIntegral().getZExtValue());
  if (Args.size() > 1 && Args[1].getKind() == TemplateArgument::Type) {
    QualType Parent = Args[1].getAsType();
    G.Parent = Parent->isVoidType()                       ? Group::Void
               : groupOf(Parent).Type == GroupType::Block ? Group::Block
                                                          : Group::Other;
  }
  return G;
}

/// Whether code may make \p V hold another group after its initializer:
/// assign it, take its address, bind it to a non-const reference.
bool mayChange(const VarDecl &V) {
  const auto *F = dyn_cast_or_null<FunctionDecl>(V.getParentFunctionOrMethod());
  if (!F || !F->hasBody())
    return true;
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    bool Found = false;
    bool names(const Expr *E) const {
      const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return R && R->getDecl() == V;
    }
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
      Found |= C->isAssignmentOp() && C->getNumArgs() && names(C->getArg(0));
      return !Found;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      Found |= U->getOpcode() == UO_AddrOf && names(U->getSubExpr());
      return !Found;
    }
    bool VisitVarDecl(VarDecl *D) {
      QualType T = D->getType();
      Found |= T->isReferenceType() && !T.getNonReferenceType().isConstQualified() &&
               D->getInit() && names(D->getInit());
      return !Found;
    }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *Callee = C->getDirectCallee();
      for (unsigned I = 0; Callee && I < C->getNumArgs() && I < Callee->getNumParams(); ++I) {
        QualType T = Callee->getParamDecl(I)->getType();
        Found |= T->isReferenceType() && !T.getNonReferenceType().isConstQualified() &&
                 names(C->getArg(I));
      }
      return !Found;
    }
  } Find;
  Find.V = &V;
  Find.TraverseStmt(F->getBody());
  return Find.Found;
}

/// A tile declared as thread_block_tile<N> keeps no parent in its type;
/// its initializer may: `thread_block_tile<32> w = tiled_partition<32>(block)`.
Group withParentOf(Group G, const Expr *Object) {
  if (G.Type != GroupType::Tile || G.Parent != Group::Void)
    return G;
  const auto *Ref = dyn_cast<DeclRefExpr>(Object);
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType() || !V->getInit() ||
      mayChange(*V))
    return G;
  // Past the copy or the conversion that drops the parent from the type.
  const Expr *Init = V->getInit()->IgnoreImplicit();
  if (const auto *C = dyn_cast<CXXConstructExpr>(Init); C && C->getNumArgs() == 1)
    Init = C->getArg(0)->IgnoreImplicit();
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(Init);
      M && isa_and_nonnull<CXXConversionDecl>(M->getMethodDecl()))
    Init = M->getImplicitObjectArgument()->IgnoreImplicit();
  Group From = groupOf(Init->getType());
  if (From.Type == GroupType::Tile && From.Size == G.Size)
    G.Parent = From.Parent;
  return G;
}

/// The group a call acts on: the object of a member call, else the first
/// argument.
Group actedOn(const CallExpr &Call) {
  const Expr *Callee = Call.getCallee()->IgnoreParenImpCasts();
  // Past the conversions to the base class that declares the member.
  if (const auto *Member = dyn_cast<MemberExpr>(Callee)) {
    const Expr *Object = Member->getBase()->IgnoreParenImpCasts();
    return withParentOf(groupOf(Object->getType()), Object);
  }
  if (Call.getNumArgs() > 0)
    return groupOf(Call.getArg(0)->IgnoreParenImpCasts()->getType());
  return {};
}

GroupCall unsupported(const char *Why) { return {GroupCallKind::Unsupported, {}, 0, Why}; }

GroupCall query(BlockQuery Q, unsigned TileSize = 0) {
  return {GroupCallKind::BlockQuery, Q, TileSize, ""};
}

constexpr const char *TileTooLarge =
    "a tile of more than 32 threads synchronizes through memory the whole block shares";

/// tiled_partition<N>(g) or tiled_partition(g, N).
GroupCall partition(const FunctionDecl &F, const CallExpr &Call) {
  std::optional<uint64_t> Size;
  if (const TemplateArgumentList *Args = F.getTemplateSpecializationArgs())
    if (Args->size() > 0 && Args->get(0).getKind() == TemplateArgument::Integral)
      Size = Args->get(0).getAsIntegral().getZExtValue();
  if (!Size && Call.getNumArgs() > 1) {
    Expr::EvalResult Value;
    if (Call.getArg(1)->EvaluateAsInt(Value, F.getASTContext()))
      Size = Value.Val.getInt().getZExtValue();
  }
  if (!Size)
    return unsupported("its tile size is not a constant kfuse can read, and a tile of more than "
                       "32 threads synchronizes through memory the whole block shares");
  if (*Size > 32)
    return unsupported(TileTooLarge);
  switch (actedOn(Call).Type) {
  case GroupType::Block:
  case GroupType::Tile:
  case GroupType::Coalesced:
    return {GroupCallKind::Handle, {}, static_cast<unsigned>(*Size), ""};
  default:
    return unsupported("kfuse splits the block and tiles of the block, not this group");
  }
}

GroupCall onBlock(StringRef Name) {
  if (Name == "sync")
    return {GroupCallKind::BlockSync, {}, 0, ""};
  if (Name == "thread_rank")
    return query(BlockQuery::ThreadRank);
  if (Name == "size" || Name == "num_threads" || Name == "group_size")
    return query(BlockQuery::Size);
  if (Name == "group_index")
    return query(BlockQuery::GroupIndex);
  if (Name == "thread_index")
    return query(BlockQuery::ThreadIndex);
  if (Name == "group_dim" || Name == "dim_threads")
    return query(BlockQuery::GroupDim);
  return unsupported("it spreads its work over the whole block, which the fused block shares "
                     "with the other kernels");
}

GroupCall onGrid(StringRef Name) {
  if (Name == "sync")
    return {GroupCallKind::GridSync, {}, 0, ""};
  if (Name == "is_valid")
    return {GroupCallKind::WarpLocal, {}, 0, ""}; // The fused launch is no more cooperative.
  std::optional<BlockQuery> Q = llvm::StringSwitch<std::optional<BlockQuery>>(Name)
                                    .Case("thread_rank", BlockQuery::GridThreadRank)
                                    .Cases("size", "num_threads", BlockQuery::GridSize)
                                    .Case("thread_index", BlockQuery::GridThreadIndex)
                                    .Cases("group_dim", "dim_threads", BlockQuery::GridDimThreads)
                                    .Case("block_rank", BlockQuery::GridBlockRank)
                                    .Case("num_blocks", BlockQuery::GridNumBlocks)
                                    .Case("block_index", BlockQuery::GridBlockIndex)
                                    .Case("dim_blocks", BlockQuery::GridDimBlocks)
                                    .Default(std::nullopt);
  if (Q)
    return query(*Q);
  return unsupported("it acts on the whole grid, which a fused kernel shares with other kernels");
}

GroupCall onTile(StringRef Name, const Group &Tile) {
  if (Tile.Size > 32 || Tile.Size == 0)
    return unsupported(TileTooLarge);
  if (Name != "meta_group_rank" && Name != "meta_group_size")
    return {GroupCallKind::WarpLocal, {}, Tile.Size, ""};
  switch (Tile.Parent) {
  case Group::Block:
    return query(Name == "meta_group_rank" ? BlockQuery::MetaGroupRank : BlockQuery::MetaGroupSize,
                 Tile.Size);
  case Group::Other:
    return {GroupCallKind::WarpLocal, {}, 0, ""};
  case Group::Void:
    break;
  }
  return unsupported("the tile's type does not say which group it was cut from; declare it "
                     "'auto' or 'thread_block_tile<N, thread_block>' so kfuse can count it in "
                     "the kernel's part of the block");
}

} // namespace

GroupCall classifyGroupCall(const CallExpr &Call) {
  const FunctionDecl *F = Call.getDirectCallee();
  if (!F || !inCooperativeGroups(*F))
    return {};
  StringRef Name = F->getIdentifier() ? F->getName() : StringRef();
  if (Name == "this_thread_block" || Name == "this_grid" || Name == "this_multi_grid" ||
      Name == "this_cluster" || Name == "coalesced_threads" || Name == "binary_partition" ||
      Name == "labeled_partition")
    return {GroupCallKind::Handle, {}, 0, ""};
  if (Name == "tiled_partition")
    return partition(*F, Call);
  Group G = actedOn(Call);
  switch (G.Type) {
  case GroupType::Block:
    return onBlock(Name);
  case GroupType::Tile:
    return onTile(Name, G);
  case GroupType::Coalesced:
    return {GroupCallKind::WarpLocal, {}, 0, ""};
  case GroupType::Grid:
    return onGrid(Name);
  case GroupType::Cluster:
    return unsupported("it acts on a cluster of blocks, which a fused kernel shares with other "
                       "kernels");
  case GroupType::Erased:
    return unsupported("a thread_group may hold the whole block, and kfuse cannot tell which "
                       "group it holds; keep the group's own type (thread_block, "
                       "thread_block_tile<N>)");
  case GroupType::Unknown:
    break;
  }
  return unsupported("kfuse does not know which threads it acts on");
}

} // namespace kfuse
