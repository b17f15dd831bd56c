// out = table[index] * w through an index array spread over a large table:
// one dependent load per element, bound by memory latency, with few
// registers. Written for this project.
#include "dl_common.cuh"

__global__ void gather_scale(const float *table, const unsigned *index, float *out, float w,
                             long long n) {
  CUDA_KERNEL_LOOP(i, n) { out[i] = __ldg(&table[index[i]]) * w; }
}
