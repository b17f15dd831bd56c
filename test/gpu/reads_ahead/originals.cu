#include "kernels.cu"
#include <cuda_runtime.h>
#include "buffers.h"

void runOriginals(const Buffers &b, bool loops) {
  if (loops) {
    triad_loop<<<97, 256>>>(b.ta, b.tb, b.tc, b.s, b.tn);
    axpy_loop<<<b.axpyBlocks, 128>>>(b.n, b.a, b.x, b.y);
    hash_loop<<<53, 128>>>(b.in, b.out, b.words, b.rounds);
    return;
  }
  saxpy<<<(b.n + 127) / 128, 128>>>(b.n, b.a, b.x, b.y);
  scale_twice<<<(b.m + 127) / 128, 128>>>(b.dx, b.dz, b.m);
  hash_words<<<(b.words + 127) / 128, 128>>>(b.in, b.out, b.words, b.rounds);
}
