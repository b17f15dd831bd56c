//===- GridChoice.h - the grid mode a fusion runs on -----------*- C++ -*-===//
//
// The config may ask for a grid mode; tuning results name the one measured
// fastest; otherwise kfuse chooses here, the one place that does.
// Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PLAN_GRIDCHOICE_H
#define KFUSE_PLAN_GRIDCHOICE_H

#include "kfuse/Config/Config.h"

namespace kfuse {

struct GridChoice {
  GridMode Mode = GridMode::AsLaunched;
  bool Default = false; ///< kfuse chose: the config names none.
  const char *Why = ""; ///< For a default: the reason, as a clause.
};

/// The grid \p F asks for, or kfuse's default. With every kernel promising
/// any 1-D grid, a persistent grid runs each once on as many blocks as fit
/// at once (a grid-stride launch that fills the GPU, with no loop), unless
/// \p BlocksWait (a kernel polls memory another block may write, which only
/// the grid as launched keeps safe: analysis's pollsOtherBlocks); otherwise
/// the grid as launched, which the measurements with data-sized grids favour
/// as often as the persistent ones (docs/benchmarks.md): `kfuse tune` tries
/// them all.
GridChoice chooseGrid(const Config &C, const FusionSpec &F, bool BlocksWait = false);

} // namespace kfuse

#endif
