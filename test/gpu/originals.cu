// The unfused kernels, straight from the example.
#include "../../examples/pair.cu"
#include "harness.h"

void run_originals(const Buffers &b) {
  row_sum_squares<<<b.grid, 512>>>(b.in, b.sums, b.rows, b.cols);
  hash_rounds<<<b.grid, 512>>>(b.keys, b.hashes, b.n, b.rounds);
  histogram256<<<b.grid, 256>>>(b.bytes, b.bins, b.nbytes);
}
