// STREAM's triad, a = b + s * c, over a grid-stride loop: memory bound, with
// few registers. Written for this project.
#include "dl_common.cuh"

__global__ void stream_triad(float *a, const float *b, const float *c, float s, long long n) {
  CUDA_KERNEL_LOOP(i, n) { a[i] = b[i] + s * c[i]; }
}
