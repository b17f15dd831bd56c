// Buffers and launches shared by the legacy check's translation units: the
// original kernels and the fused file define the same helpers, so each
// lives in a file of its own.
#pragma once
#include <cuda_runtime.h>

struct LegacyBuffers {
  int width, height;       // transpose: in is height x width
  const float *matrix;     // height x width
  float *transposed;       // width x height
  int n;                   // smooth3, window_max, axpy, count_positive
  const float *signal;     // n
  int smooth_n;             // smooth3's elements: its last warp is partly out of range
  float *smoothed, *maxima;
  int *scanned;            // smooth_n: segment_scan of values
  int radius;
  int *segments;           // n ints, reversed in place
  float a;
  const float *x;
  float *y;                // n, updated in place
  const int *values;       // n
  int *counts;             // ceil(n / 128)
  int image_width, image_height; // blur_rows
  const float *image;      // image_height x image_width
  float *blurred;          // image_height x image_width
  int rows, cols;          // row_norms
  float *norms;            // rows
  int norm_grid;           // blocks striding over the rows
};

void run_legacy_originals(const LegacyBuffers &b);
void run_legacy_image_originals(const LegacyBuffers &b); // legacy_image.cu: names clash
cudaError_t run_legacy_smooth_blur(const LegacyBuffers &b);
cudaError_t run_legacy_transpose_smooth(const LegacyBuffers &b);
cudaError_t run_legacy_reverse_window(const LegacyBuffers &b);
cudaError_t run_legacy_axpy_positive_norms(const LegacyBuffers &b);
