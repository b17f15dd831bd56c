//===- Elementwise.h - kernels whose threads each touch one element -*- C++ -*-===//
//
// The legacy one-thread-per-element kernel:
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n)
//     y[i] = a * x[i] + y[i];
//
// Each thread reads and writes element i of its buffers and nothing else,
// so two of its blocks touch different elements of each buffer, and of
// different buffers too once their first n elements do not overlap (or
// are the same elements). A fused block that runs several of its blocks
// per iteration can then issue every block's loads before any block's
// stores (thread coarsening with the loads ahead), when it checks at run
// time that the buffers lie apart; where they do not, it loads each
// block's elements right before that block's body, which is where the
// body reads them: every load read ahead comes before every store of the
// body.
//
// Default-deny: every access of the kernel must be a classified read or
// write (MemoryAccess.h) of element i of a pointer parameter the kernel
// never changes, at i = blockIdx.x * B + threadIdx.x for its block of B
// threads, under exactly the condition i < n for a scalar parameter n,
// outside loops and helpers; anything else and the kernel is not
// elementwise.
//
// Or its grid-stride form, where every access lies in the one loop
//
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
//
// whose body runs to its end in every iteration (no break, continue,
// return or goto) and never changes i. Each iteration touches element i,
// which no other iteration and no other thread touches, so a thread may
// issue the loads of its next iterations before the stores of this one,
// on the same terms; a read goes ahead only where the body makes it in
// every iteration, so that no load ahead reads an element the original
// would not.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_ELEMENTWISE_H
#define KFUSE_ANALYSIS_ELEMENTWISE_H

#include "kfuse/Analysis/Kernel/KernelModel.h"
#include "kfuse/Analysis/Kernel/MemoryAccess.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// A read of element i that may be issued before the body runs.
struct AheadRead {
  const clang::ArraySubscriptExpr *Site;
  const clang::ParmVarDecl *Buffer;
  clang::QualType Element; ///< Unqualified, arithmetic.
};

/// A buffer the kernel touches at element i, and whether it writes it.
struct ElementBuffer {
  const clang::ParmVarDecl *Param;
  bool Writes = false;
};

/// `for (T i = Init; i < n; i += Step) ...` of the grid-stride form.
struct GridStrideLoop {
  const clang::ForStmt *Loop = nullptr;
  const clang::VarDecl *Variable = nullptr; ///< i, of a builtin integer type.
  /// Init and Step, which read only the built-in variables and constants.
  const clang::Expr *Init = nullptr, *Step = nullptr;
};

struct ElementwiseKernel {
  const clang::ParmVarDecl *Bound = nullptr; ///< n of i < n.
  /// Set for the grid-stride form: its elements are the loop's.
  std::optional<GridStrideLoop> Loop;
  /// B of i = blockIdx.x * B + threadIdx.x: the block's threads, or none
  /// where the kernel reads blockDim.x and no block was given.
  std::optional<unsigned> BlockStride;
  std::vector<ElementBuffer> Buffers; ///< In parameter order.
  /// The element each thread (or iteration) touches, in the kernel's symbols.
  IndexExpr Element;
  std::vector<AheadRead> Ahead; ///< Never empty from findElementwise.
};

/// Whether \p Model's kernel, launched with blocks of \p Block and accessing
/// memory as \p Accesses says (analyzed with that block), is elementwise
/// with at least one read that can go ahead; or why not. Without a block
/// (`kfuse list`), for the 1-D block its index strides by.
struct ElementwiseResult {
  std::optional<ElementwiseKernel> Kernel;
  std::string WhyNot;
};
ElementwiseResult findElementwise(const KernelModel &Model, const KernelAccesses &Accesses,
                                  std::optional<std::array<unsigned, 3>> Block);

/// Whether the kernel has the elementwise form, whatever its loads: Ahead
/// stays empty.
ElementwiseResult findElementwiseForm(const KernelModel &Model, const KernelAccesses &Accesses,
                                      std::optional<std::array<unsigned, 3>> Block);

/// Whether the tuner may run several of the kernel's iterations at a time
/// (\p E, as findElementwise found it): a kernel launched with any grid
/// (\p AnyGrid) runs once on a persistent grid, so only its own grid-stride
/// loop can.
bool coarsenable(const ElementwiseResult &E, bool AnyGrid);

} // namespace kfuse

#endif
