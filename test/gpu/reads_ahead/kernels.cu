// Elementwise kernels in the legacy style, one thread per element, for the
// GPU check of loads issued ahead (test/gpu/reads_ahead/run.sh).
#include <cstdint>

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// The early-return form; the second read of x follows a store to z, which
// may be x itself.
__global__ void scale_twice(const double *x, double *z, unsigned n) {
  const int i = threadIdx.x + blockIdx.x * 128;
  if (i >= n)
    return;
  double v = x[i];
  z[i] = 2.0 * v;
  z[i] += x[i];
}

__device__ uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

__global__ void hash_words(const uint32_t *in, uint32_t *out, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  uint32_t h = in[i];
  for (int r = 0; r < rounds; ++r)
    h = mix(h + 0x9e3779b9u * r);
  out[i] = h;
}
