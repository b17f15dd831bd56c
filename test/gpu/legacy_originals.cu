// The unfused legacy kernels, launched as their authors would.
#include "../../examples/legacy.cu"
#include "legacy_harness.h"

void run_legacy_originals(const LegacyBuffers &b) {
  transpose_tiled<<<dim3((b.width + 31) / 32, (b.height + 31) / 32), dim3(32, 8)>>>(
      b.matrix, b.transposed, b.width, b.height);
  smooth3<<<(b.smooth_n + 255) / 256, 256>>>(b.signal, b.smoothed, b.smooth_n);
  segment_scan<<<(b.smooth_n + 255) / 256, 256>>>(b.values, b.scanned, b.smooth_n);
  reverse_segments<<<b.n / 128, 128, 128 * sizeof(int)>>>(b.segments, b.n);
  window_max<<<(b.n + 255) / 256, 256, (256 + 2 * b.radius) * sizeof(float)>>>(
      b.signal, b.maxima, b.n, b.radius);
  blas::axpy<float><<<(b.n + 255) / 256, 256>>>(b.a, b.x, b.y, b.n);
  count_positive<<<(b.n + 127) / 128, 128>>>(b.values, b.counts, b.n);
  row_norms<<<b.norm_grid, 256>>>(b.matrix, b.norms, b.rows, b.cols);
}
