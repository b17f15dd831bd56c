//===- TreeReductions.h - block tree reductions kfuse can shorten -*- C++ -*-===//
//
// The classic reduction of a __shared__ array over a 1-D block:
//
//   sums[threadIdx.x] = v;
//   __syncthreads();
//   for (int s = THREADS / 2; s > 0; s >>= 1) {
//     if (threadIdx.x < s)
//       sums[threadIdx.x] += sums[threadIdx.x + s];
//     __syncthreads();
//   }
//
// waits at a barrier per halving. The first warp alone can make the same
// additions in the same order (the values of the halvings above 32 from the
// array, those below with shuffles) and leave the array as the loop leaves
// it, so that one barrier remains: same bits, fewer barriers. This finds
// loops of exactly that shape; anything else stays as written.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_TREEREDUCTIONS_H
#define KFUSE_ANALYSIS_TREEREDUCTIONS_H

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <array>
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace kfuse {

/// The element types whose addition the rewrite repeats, and which
/// __shfl_down_sync moves.
enum class ReductionElement { F32, F64, I32, U32, I64, U64 };
const char *spelling(ReductionElement E);

struct TreeReduction {
  const clang::ForStmt *Loop;
  /// The __syncthreads() statement right before the loop, and the one that
  /// ends the loop's body (it stays and ends the rewritten reduction).
  const clang::CallExpr *BarrierBefore;
  const clang::CallExpr *BarrierInLoop;
  const clang::VarDecl *Array;        ///< The __shared__ array.
  const clang::DeclRefExpr *ArrayRef; ///< One reference to it in the loop, as spelled.
  const clang::Expr *Thread;          ///< threadIdx.x, or a local holding it, as spelled.
  ReductionElement Element;
  /// The first halving: a constant, or (empty) half of blockDim.x.
  std::optional<unsigned> FirstStride;

  /// The threads the loop reduces over in a block of \p Block threads: the
  /// block's when the loop starts at its half and the block is 1-D, a power
  /// of two of at least 64 threads; nothing otherwise.
  std::optional<unsigned> threadsIn(const std::array<unsigned, 3> &Block) const;
};

/// The tree reductions in \p F's body: loops of that shape right after a
/// __syncthreads() statement, which every thread of the block reaches, so
/// the whole first warp is there to run the rewritten loop.
std::vector<TreeReduction> findTreeReductions(const clang::FunctionDecl &F, clang::ASTContext &AST);

} // namespace kfuse

#endif
