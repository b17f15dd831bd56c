//===- KernelRewrites.h - the rewrites of one kernel's body -----*- C++ -*-===//
//
// Each rewrite does one thing to a kernel's body, reading the kernel model
// and adding edits. Each returns false after reporting what it cannot
// rewrite.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_KERNELREWRITES_H
#define KFUSE_TRANSFORMS_KERNELREWRITES_H

#include "kfuse/Analysis/KernelModel.h"
#include "kfuse/Transforms/EditSet.h"

#include <map>
#include <string>

namespace kfuse {

/// New names for the kernel's parameters, locals and labels.
using RenameMap = std::map<const clang::NamedDecl *, std::string>;

/// Renames declarations and every reference to them, so that the bodies of
/// several kernels and their parameters can share one function.
bool renameSymbols(const KernelModel &Model, const RenameMap &Names, EditSet &Edits);

/// Points threadIdx and blockDim at the variables that hold the kernel's own
/// position in its thread range. blockIdx and gridDim stay: the fused grid is
/// the kernels' common grid.
bool rewriteThreadIndices(const KernelModel &Model, const std::string &ThreadIdxName,
                          const std::string &BlockDimName, EditSet &Edits);

/// The PTX statement that waits for \p Count threads at barrier \p Id.
std::string partialBarrier(unsigned Id, unsigned Count);

/// Turns each __syncthreads() into a partial barrier over the kernel's range.
bool rewriteBarriers(const KernelModel &Model, unsigned BarrierId, unsigned Count,
                     EditSet &Edits);

/// Turns each return into a jump to \p EndLabel at the end of the kernel's
/// part, so threads go on to the other kernels' parts and the launcher's end.
bool rewriteReturns(const KernelModel &Model, const std::string &EndLabel, EditSet &Edits);

} // namespace kfuse

#endif
