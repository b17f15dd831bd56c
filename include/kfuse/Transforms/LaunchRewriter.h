//===- LaunchRewriter.h - host code that calls the fused launchers -*- C++ -*-===//
//
// Each group of launches Analysis proved rewritable becomes one block at
// the first launch: the launch configurations as written, the fused
// launcher where it takes them (its `_fits` function says so), else the
// original launches, verbatim. The later launches go; the statements
// between them stay, so the program's own error checks now follow the
// fused launch. The file includes the launchers' header before the first
// function that calls one.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_LAUNCHREWRITER_H
#define KFUSE_TRANSFORMS_LAUNCHREWRITER_H

#include "kfuse/Analysis/Host/LaunchRewrites.h"
#include "kfuse/Transforms/FusedFile.h"

#include <string>
#include <vector>

namespace kfuse {

/// One host file with its launches replaced.
struct RewrittenHost {
  std::string File;     ///< The original, absolute.
  std::string Original; ///< Its text.
  std::string Text;     ///< Rewritten.
};

/// Where the rewritten files go and what they include.
struct HostRewriteTarget {
  std::string Header; ///< The launchers' header.
  /// The directory the rewritten copies go to; empty: each file is
  /// rewritten where it is. A copy's quoted includes that name files beside
  /// the original are re-pointed there.
  std::string CopyDir;
  std::string Config; ///< The config, as the comments name it.
};

/// The directory a rewritten \p File goes to.
std::string rewrittenDirectory(const std::string &File, const HostRewriteTarget &Target);

/// Each file of \p Groups rewritten; \p Kernels[I] is the fused kernel of
/// \p Groups[I].
std::vector<RewrittenHost> rewriteLaunches(const std::vector<LaunchGroup> &Groups,
                                           const std::vector<const FusedKernel *> &Kernels,
                                           const HostRewriteTarget &Target);

} // namespace kfuse

#endif
