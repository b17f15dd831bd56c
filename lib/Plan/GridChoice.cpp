//===- GridChoice.cpp - the grid mode a fusion runs on --------------------===//

#include "kfuse/Plan/GridChoice.h"

#include <algorithm>

namespace kfuse {

GridChoice chooseGrid(const Config &C, const FusionSpec &F, bool BlocksWait) {
  if (F.Grid)
    return {*F.Grid, false, ""};
  if (BlocksWait)
    return {GridMode::AsLaunched, true,
            "a kernel polls memory another block may write, which only this grid keeps safe"};
  std::vector<std::string> Kernels = C.kernelsOf(F);
  bool AllAnyGrid = std::all_of(Kernels.begin(), Kernels.end(), [&](const std::string &Id) {
    const KernelSpec *K = C.findKernel(Id);
    return K && K->AnyGrid;
  });
  if (F.Mode == FusionMode::Horizontal && AllAnyGrid)
    return {GridMode::Persistent, true,
            "every kernel works with any 1-D grid, so each runs once on as many blocks as fit "
            "at once"};
  return {GridMode::AsLaunched, true,
          AllAnyGrid ? "a vertical fusion's kernels keep the grid they share"
                     : "a kernel without 'any_grid: true' keeps its own grid"};
}

} // namespace kfuse
