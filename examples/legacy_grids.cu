// Kernels launched the way legacy code launches them: one thread per element
// and a grid sized to the data (configs/persistent.yaml fuses them).
#include <cstdint>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// y = a * x + y, one thread per element.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// An integer hash of each word, many rounds: compute-bound, one thread per word.
__device__ uint32_t mix_word(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

__global__ void hash_words(const uint32_t *in, uint32_t *out, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  uint32_t h = in[i];
  for (int r = 0; r < rounds; ++r)
    h = mix_word(h + 0x9e3779b9u * r);
  out[i] = h;
}

// Tiled transpose of a width x height matrix through shared memory: a 2-D grid
// of 32x32 tiles, 32x8 threads each.
__global__ void transpose(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
