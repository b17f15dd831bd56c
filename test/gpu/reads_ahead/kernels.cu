// Elementwise kernels in the legacy style, one thread per element, and in
// the grid-stride style, for the GPU check of loads issued ahead
// (test/gpu/reads_ahead/run.sh).
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

// Grid-stride loops: a triad through a loop macro, an unsigned loop whose y
// is read and written, and a compute loop after an early return.
#define KERNEL_LOOP(i, n)                                                                          \
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

__global__ void triad_loop(float *a, const float *b, const float *c, float s, long long n) {
  KERNEL_LOOP(i, n) { a[i] = b[i] + s * c[i]; }
}

__global__ void axpy_loop(unsigned n, float a, const float *x, float *y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void hash_loop(const uint32_t *in, uint32_t *out, int n, int rounds) {
  if (n <= 0)
    return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    uint32_t h = in[i];
    for (int r = 0; r < rounds; ++r)
      h = mix(h + 0x9e3779b9u * r);
    out[i] = h;
  }
}
