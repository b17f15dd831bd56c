//===- UnifiedDiff.h - a file's change as `diff -u` prints it ---*- C++ -*-===//
//
// What `kfuse fuse --rewrite-launches --diff` prints for each host file it
// would rewrite, for `patch -p0` or a review.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_EMISSION_UNIFIEDDIFF_H
#define KFUSE_EMISSION_UNIFIEDDIFF_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kfuse {

/// The unified diff (three lines of context) from \p Old to \p New, both
/// named \p Path in its header; empty when they are equal.
std::string printUnifiedDiff(llvm::StringRef Path, llvm::StringRef Old, llvm::StringRef New);

} // namespace kfuse

#endif
