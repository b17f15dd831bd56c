// Legacy-style kernels that kfuse fuses with configs/legacy.yaml: a 2-D tiled
// transpose, a stencil and a scan whose tail threads return before barriers, a
// reduction whose barriers live in a helper from a project header, two
// kernels with dynamic shared memory, a template kernel in a namespace and a
// barrier reduction. Written for this project.
#include "legacy_helpers.cuh"

#include <cstdint>

#define TILE 32
#define ROWS_PER_PASS 8
#define GRID_STRIDE_LOOP(i, n)                                                                     \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

// Transposes a width x height matrix; blocks of (32, 8), a 2-D grid of tiles.
__global__ void transpose_tiled(const float *in, float *out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < height && y + j < width)
      out[(size_t)(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__device__ float average3(float left, float mid, float right) { return (left + mid + right) / 3.0f; }

// Three-point moving average; blocks of 256. Threads past the end return
// before the barrier.
__global__ void smooth3(const float *in, float *out, int n) {
  __shared__ float s[258];
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= n)
    return;
  s[threadIdx.x + 1] = in[i];
  if (threadIdx.x == 0)
    s[0] = i > 0 ? in[i - 1] : 0.0f;
  if (threadIdx.x == 255 || i == n - 1)
    s[threadIdx.x + 2] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  out[i] = average3(s[threadIdx.x], s[threadIdx.x + 1], s[threadIdx.x + 2]);
}

// Inclusive prefix sum of each block-sized segment in log2(256) steps;
// threads past the end return before the first of its many barriers.
__global__ void segment_scan(const int *in, int *out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= n)
    return;
  s[threadIdx.x] = in[i];
  __syncthreads();
  for (int d = 1; d < 256; d *= 2) {
    int v = threadIdx.x >= d ? s[threadIdx.x - d] : 0; // Lower threads never returned.
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  out[i] = s[threadIdx.x];
}

// Euclidean norm of each row; blocks of 256 stride over the rows.
__global__ void row_norms(const float *m, float *norms, int rows, int cols) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
      acc += m[(size_t)r * cols + c] * m[(size_t)r * cols + c];
    float total = block_sum<256>(acc);
    if (threadIdx.x == 0)
      norms[r] = sqrtf(total);
  }
}

extern __shared__ int segment_buf[];

// Reverses each block-sized segment of data (n a multiple of the block) in
// blockDim.x ints of dynamic shared memory.
__global__ void reverse_segments(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  segment_buf[threadIdx.x] = data[i];
  __syncthreads();
  data[i] = segment_buf[blockDim.x - 1 - threadIdx.x];
}

// Maximum over a window of 2 * radius + 1 elements, staged in
// blockDim.x + 2 * radius floats of dynamic shared memory.
__global__ void window_max(const float *in, float *out, int n, int radius) {
  extern __shared__ float window[];
  int base = blockIdx.x * blockDim.x;
  for (int k = threadIdx.x; k < blockDim.x + 2 * radius; k += blockDim.x) {
    int g = base + k - radius;
    window[k] = (g >= 0 && g < n) ? in[g] : -1e30f;
  }
  __syncthreads();
  int i = base + threadIdx.x;
  if (i < n) {
    float m = -1e30f;
    for (int d = 0; d <= 2 * radius; ++d)
      m = fmaxf(m, window[threadIdx.x + d]);
    out[i] = m;
  }
}

namespace blas {
// y += a * x over any 1-D grid and block.
template <typename T> __global__ void axpy(T a, const T *x, T *y, int n) {
  GRID_STRIDE_LOOP(i, n)
  y[i] += a * x[i];
}
} // namespace blas

// How many of each block's 128 values are positive.
__global__ void count_positive(const int *v, int *counts, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  int c = __syncthreads_count(i < n && v[i] > 0);
  if (threadIdx.x == 0)
    counts[blockIdx.x] = c;
}

void launch_axpy(float a, const float *x, float *y, int n) {
  blas::axpy<float><<<(n + 255) / 256, 256>>>(a, x, y, n);
}
