//===- GroupQueryRewriter.cpp - the kernel's own view of its group --------===//
//
// Cooperative groups answer thread_rank(), size(), group_index() and the
// like from the hardware's view of the block, which in a fused block is the
// fused block's. Each such query becomes the same expression over the
// section's threadIdx, blockDim and blockIdx, which are the kernel's own.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Transforms/KernelRewrites.h"

namespace kfuse {
namespace {

constexpr const char *Rank =
    "((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x)";
constexpr const char *Size = "(blockDim.x * blockDim.y * blockDim.z)";
constexpr const char *BlockRank =
    "((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x)";
constexpr const char *Blocks = "(gridDim.x * gridDim.y * gridDim.z)";

/// The expression answering \p Q, and the built-ins it reads.
std::string answer(const GroupQueryUse &Q, std::set<BuiltinVar> &Reads) {
  std::string N = std::to_string(Q.TileSize) + "u";
  switch (Q.Query) {
  case BlockQuery::ThreadRank:
    Reads.insert({BuiltinVar::ThreadIdx, BuiltinVar::BlockDim});
    return Rank;
  case BlockQuery::Size:
    Reads.insert(BuiltinVar::BlockDim);
    return Size;
  case BlockQuery::GroupIndex:
    Reads.insert(BuiltinVar::BlockIdx);
    return "dim3(blockIdx.x, blockIdx.y, blockIdx.z)";
  case BlockQuery::ThreadIndex:
    Reads.insert(BuiltinVar::ThreadIdx);
    return "dim3(threadIdx.x, threadIdx.y, threadIdx.z)";
  case BlockQuery::GroupDim:
    Reads.insert(BuiltinVar::BlockDim);
    return "dim3(blockDim.x, blockDim.y, blockDim.z)";
  case BlockQuery::MetaGroupRank:
    Reads.insert({BuiltinVar::ThreadIdx, BuiltinVar::BlockDim});
    return std::string("(") + Rank + " / " + N + ")";
  case BlockQuery::MetaGroupSize:
    Reads.insert(BuiltinVar::BlockDim);
    return std::string("((") + Size + " + " + std::to_string(Q.TileSize - 1) + "u) / " + N + ")";
  default:
    break;
  }
  // The grid's, which count in unsigned long long.
  Reads.insert(
      {BuiltinVar::ThreadIdx, BuiltinVar::BlockDim, BuiltinVar::BlockIdx, BuiltinVar::GridDim});
  switch (Q.Query) {
  case BlockQuery::GridThreadRank:
    return std::string("(1ull * ") + BlockRank + " * " + Size + " + " + Rank + ")";
  case BlockQuery::GridSize:
    return std::string("(1ull * ") + Blocks + " * " + Size + ")";
  case BlockQuery::GridThreadIndex:
    return "dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y, "
           "blockIdx.z * blockDim.z + threadIdx.z)";
  case BlockQuery::GridDimThreads:
    return "dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z)";
  case BlockQuery::GridBlockRank:
    return std::string("(1ull * ") + BlockRank + ")";
  case BlockQuery::GridNumBlocks:
    return std::string("(1ull * ") + Blocks + ")";
  case BlockQuery::GridBlockIndex:
    return "dim3(blockIdx.x, blockIdx.y, blockIdx.z)";
  case BlockQuery::GridDimBlocks:
    return "dim3(gridDim.x, gridDim.y, gridDim.z)";
  default:
    break;
  }
  return "";
}

} // namespace

bool rewriteGroupQueries(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits) {
  bool Ok = true;
  for (const GroupQueryUse &Q : Model.GroupQueries) {
    const clang::FunctionDecl *F = Q.Call->getDirectCallee();
    Ok &= Edits.replaceRange(Q.Call->getSourceRange(), answer(Q, Ctx.Builtins),
                             F ? F->getNameAsString() : "thread_rank");
  }
  return Ok;
}

} // namespace kfuse
