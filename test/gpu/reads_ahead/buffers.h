// The buffers of one run of the kernels; pointers may alias.
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
  // The grid-stride loops: a = b + s * c over tn, then axpy over x and y
  // (on a grid of axpyBlocks), the hash over in and out.
  long long tn;
  float *ta;
  const float *tb, *tc;
  float s;
  unsigned axpyBlocks;
};

// The original launches, one after the other; the grid-stride ones when
// \p loops.
void runOriginals(const Buffers &b, bool loops);
// The fused launcher of the fusion (2 or 4 blocks or iterations at a time).
cudaError_t runFused(const Buffers &b, int coarsen, bool loops);
