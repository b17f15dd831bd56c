// The kernels kfuse emitted; KFUSE_FUSED_FILE names the generated source.
#include KFUSE_FUSED_FILE
#include "harness.h"

cudaError_t run_fused_sumsq_hash(const Buffers &b) {
  kfuse_launch sums{dim3(b.grid), dim3(512), 0}, hashes{dim3(b.grid), dim3(512), 0};
  return sumsq_hash_launch(sums, b.in, b.sums, b.rows, b.cols, hashes, b.keys, b.hashes, b.n,
                           b.rounds);
}

cudaError_t run_fused_hist_hash(const Buffers &b) {
  kfuse_launch hist{dim3(b.grid), dim3(256), 0}, hashes{dim3(b.grid), dim3(512), 0};
  return hist_hash_launch(hist, b.bytes, b.bins, b.nbytes, hashes, b.keys, b.hashes, b.n,
                          b.rounds);
}

int count_refused_launches(const Buffers &b) {
  int refused = 0;
  kfuse_launch ok{dim3(b.grid), dim3(512), 0};
  kfuse_launch two_d{dim3(b.grid), dim3(256, 2), 0};
  kfuse_launch no_blocks{dim3(0), dim3(512), 0};
  kfuse_launch hist_128{dim3(b.grid), dim3(128), 0};
  refused += sumsq_hash_launch(two_d, b.in, b.sums, b.rows, b.cols, ok, b.keys, b.hashes, b.n,
                               b.rounds) == cudaErrorInvalidConfiguration;
  refused += sumsq_hash_launch(ok, b.in, b.sums, b.rows, b.cols, no_blocks, b.keys, b.hashes,
                               b.n, b.rounds) == cudaErrorInvalidConfiguration;
  refused += hist_hash_launch(hist_128, b.bytes, b.bins, b.nbytes, ok, b.keys, b.hashes, b.n,
                              b.rounds) == cudaErrorInvalidConfiguration;
  return refused;
}
