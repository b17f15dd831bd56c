// Buffers shared by the original and the fused launches of the GPU check.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>

struct Buffers {
  int grid;
  const float *in;   // rows x cols
  float *sums;       // rows
  int rows, cols;
  const uint32_t *keys;
  uint32_t *hashes;  // n
  int n, rounds;
  const uint8_t *bytes;
  unsigned *bins;    // 256
  int nbytes;
};

// The original kernels, launched one after the other as legacy code does.
void run_originals(const Buffers &b);
// Fusion sumsq_hash (row sums + hashes), then hist_hash (histogram + hashes again).
cudaError_t run_fused_sumsq_hash(const Buffers &b);
cudaError_t run_fused_hist_hash(const Buffers &b);
// Launch configurations the fused kernels were not built for; each must be refused.
int count_refused_launches(const Buffers &b);
