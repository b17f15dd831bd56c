// The buffers of one run of the three kernels; pointers may alias.
#pragma once
#include <cstdint>

struct Buffers {
  int n;
  float a;
  const float *x;
  float *y;
  unsigned m;
  const double *dx;
  double *dz;
  int words, rounds;
  const uint32_t *in;
  uint32_t *out;
};

// The original launches, one after the other.
void runOriginals(const Buffers &b);
// The fused launcher of the fusion (2 or 4 blocks per iteration).
cudaError_t runFused(const Buffers &b, int coarsen);
