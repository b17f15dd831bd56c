// Legacy-style kernels that kfuse fuses vertically with configs/vertical.yaml:
// an elementwise chain (scale, add bias, activation), a map followed by a
// block reduction, an image filter followed by a tile-local stencil that
// reads its neighbours' pixels, and a compute-bound hash to run beside a
// chain. Written for this project.
#include <cstdint>

#define GLOBAL_INDEX (blockIdx.x * blockDim.x + threadIdx.x)
#define REDUCE_THREADS 256
#define TILE_W 16
#define TILE_H 16

__device__ __forceinline__ float leaky(float v, float slope) { return v > 0.0f ? v : slope * v; }

// y[i] = alpha * x[i]
__global__ void scale(const float *x, float *y, float alpha, int n) {
  int i = GLOBAL_INDEX;
  if (i >= n)
    return;
  y[i] = alpha * x[i];
}

// out[i] = in[i] + bias[i % channels]
__global__ void add_bias(const float *in, const float *bias, float *out, int channels, int n) {
  const int i = GLOBAL_INDEX;
  if (i < n) {
    float b = bias[i % channels];
    out[i] = in[i] + b;
  }
}

// out[i] = leaky ReLU of in[i]
__global__ void activate(const float *in, float *out, float slope, int n) {
  int i = GLOBAL_INDEX;
  if (i < n)
    out[i] = leaky(in[i], slope);
}

// y[i] = x[i]^2
__global__ void square(const float *x, float *y, int n) {
  int i = GLOBAL_INDEX;
  if (i < n)
    y[i] = x[i] * x[i];
}

// partial[b] = sum of y over block b's elements; blocks of REDUCE_THREADS.
__global__ void block_sum(const float *y, float *partial, int n) {
  __shared__ float sums[REDUCE_THREADS];
  int i = GLOBAL_INDEX;
  sums[threadIdx.x] = i < n ? y[i] : 0.0f;
  __syncthreads();
  for (int s = REDUCE_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sums[threadIdx.x] += sums[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = sums[0];
}

// out = gain * img + offset over a width x height image, in 16 x 16 tiles.
__global__ void brighten(const float *img, float *out, float gain, float offset, int width,
                         int height) {
  int col = blockIdx.x * TILE_W + threadIdx.x;
  int row = blockIdx.y * TILE_H + threadIdx.y;
  if (row >= height || col >= width)
    return;
  out[row * width + col] = gain * img[row * width + col] + offset;
}

// A five-point average inside each tile's interior (tiles are processed
// independently, as a blocked filter); the border pixels of each tile are
// copied.
__global__ void tile_smooth(const float *in, float *out, int width, int height) {
  int col = blockIdx.x * TILE_W + threadIdx.x;
  int row = blockIdx.y * TILE_H + threadIdx.y;
  if (row >= height || col >= width)
    return;
  int at = row * width + col;
  if (threadIdx.x > 0 && threadIdx.x < TILE_W - 1 && threadIdx.y > 0 &&
      threadIdx.y < TILE_H - 1 && col < width - 1 && row < height - 1)
    out[at] = 0.2f * (in[at] + in[at - 1] + in[at + 1] + in[at - width] + in[at + width]);
  else
    out[at] = in[at];
}

// A compute-bound integer hash, grid-stride.
__global__ void hash_words(const uint32_t *in, uint32_t *out, int n, int rounds) {
  for (int i = GLOBAL_INDEX; i < n; i += gridDim.x * blockDim.x) {
    uint32_t h = in[i];
    for (int r = 0; r < rounds; ++r) {
      h ^= h >> 16;
      h *= 0x7feb352du;
      h ^= h >> 15;
      h *= 0x846ca68bu;
      h += (uint32_t)r;
    }
    out[i] = h;
  }
}

// Reads its right neighbour: a thread at the end of a block needs the
// element the next block wrote, which no fusion can wait for.
__global__ void right_difference(const float *in, float *out, int n) {
  int i = GLOBAL_INDEX;
  if (i + 1 < n)
    out[i] = in[i + 1] - in[i];
}
