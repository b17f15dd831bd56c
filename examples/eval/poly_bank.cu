// A bank of coupled recurrences per element, every state kept in registers
// across the rounds: compute bound, with many registers (a filter bank or a
// small ODE system integrated per point). Written for this project.
#include "dl_common.cuh"

#define POLY_BANK 96

__global__ void poly_bank(const float *x, float *y, long long n, int rounds) {
  CUDA_KERNEL_LOOP(i, n) {
    float v[POLY_BANK];
    const float xi = x[i];
#pragma unroll
    for (int k = 0; k < POLY_BANK; ++k)
      v[k] = xi * (0.5f + 0.01f * k);
    for (int r = 0; r < rounds; ++r) {
      const float first = v[0];
#pragma unroll
      for (int k = 0; k < POLY_BANK - 1; ++k)
        v[k] = fmaf(v[k], 0.75f, 0.25f * v[k + 1]);
      v[POLY_BANK - 1] = fmaf(v[POLY_BANK - 1], 0.75f, 0.25f * first);
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < POLY_BANK; ++k)
      sum += v[k];
    y[i] = sum;
  }
}
