// The legacy fusions kfuse emitted; KFUSE_LEGACY_FILE names the generated source.
#include KFUSE_LEGACY_FILE
#include "legacy_harness.h"

cudaError_t run_legacy_transpose_smooth(const LegacyBuffers &b) {
  kfuse_launch transpose{dim3((b.width + 31) / 32, (b.height + 31) / 32), dim3(32, 8), 0};
  kfuse_launch smooth{dim3((b.smooth_n + 255) / 256), dim3(256), 0};
  return transpose_smooth_launch(transpose, b.matrix, b.transposed, b.width, b.height, smooth,
                                 b.signal, b.smoothed, b.smooth_n, smooth, b.values, b.scanned,
                                 b.smooth_n);
}

cudaError_t run_legacy_smooth_blur(const LegacyBuffers &b) {
  kfuse_launch smooth{dim3((b.smooth_n + 255) / 256), dim3(256), 0};
  kfuse_launch blur{dim3((b.image_width + 15) / 16, (b.image_height + 15) / 16), dim3(16, 16), 0};
  return smooth_blur_launch(smooth, b.signal, b.smoothed, b.smooth_n, blur, b.image, b.blurred,
                            ImageSize{b.image_width, b.image_height});
}

cudaError_t run_legacy_reverse_window(const LegacyBuffers &b) {
  kfuse_launch reverse{dim3(b.n / 128), dim3(128), 128 * sizeof(int)};
  kfuse_launch window{dim3((b.n + 255) / 256), dim3(256), (256 + 2 * b.radius) * sizeof(float)};
  return reverse_window_launch(reverse, b.segments, b.n, window, b.signal, b.maxima, b.n,
                               b.radius);
}

cudaError_t run_legacy_axpy_positive_norms(const LegacyBuffers &b) {
  kfuse_launch axpy{dim3((b.n + 255) / 256), dim3(256), 0};
  kfuse_launch positive{dim3((b.n + 127) / 128), dim3(128), 0};
  kfuse_launch norms{dim3(b.norm_grid), dim3(256), 0};
  return axpy_positive_norms_launch(axpy, b.a, b.x, b.y, b.n, positive, b.values, b.counts, b.n,
                                    norms, b.matrix, b.norms, b.rows, b.cols);
}
