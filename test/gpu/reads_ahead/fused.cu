#include KFUSE_FILE
#include "buffers.h"

cudaError_t runFused(const Buffers &b, int coarsen, bool loops) {
  if (loops) {
    // The grids of any_grid kernels do not matter: they run once on the fused grid.
    kfuse_launch t{dim3(97), dim3(256)};
    kfuse_launch x{dim3(b.axpyBlocks), dim3(128)};
    kfuse_launch h{dim3(53), dim3(128)};
    if (coarsen == 2)
      return loops2_launch(t, b.ta, b.tb, b.tc, b.s, b.tn, x, b.n, b.a, b.x, b.y, h, b.in, b.out,
                           b.words, b.rounds);
    return loops4_launch(t, b.ta, b.tb, b.tc, b.s, b.tn, x, b.n, b.a, b.x, b.y, h, b.in, b.out,
                         b.words, b.rounds);
  }
  kfuse_launch s{dim3((b.n + 127) / 128), dim3(128)};
  kfuse_launch t{dim3((b.m + 127) / 128), dim3(128)};
  kfuse_launch h{dim3((b.words + 127) / 128), dim3(128)};
  if (coarsen == 2)
    return ahead2_launch(s, b.n, b.a, b.x, b.y, t, b.dx, b.dz, b.m, h, b.in, b.out, b.words,
                         b.rounds);
  return ahead4_launch(s, b.n, b.a, b.x, b.y, t, b.dx, b.dz, b.m, h, b.in, b.out, b.words,
                       b.rounds);
}
