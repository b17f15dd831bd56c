// Legacy-style kernels used as kfuse's bundled example: a memory-bound
// row reduction, a compute-bound integer hash and a fixed-size shared-memory
// histogram. Written for this project.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define HASH_MULT 0x9e3779b1u

// Sum of a value over the 32 lanes of a warp, left in lane 0.
__device__ __forceinline__ float warp_reduce_sum(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

__device__ uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

// out[row] = sum of in[row][c]^2. One block per row at a time, any block size
// that is a multiple of the warp size.
__global__ void row_sum_squares(const float *__restrict__ in, float *__restrict__ out, int rows,
                                int cols) {
  __shared__ float warp_sums[32];
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const int warps = (blockDim.x + WARP_SIZE - 1) / WARP_SIZE;
  for (int row = blockIdx.x; row < rows; row += gridDim.x) {
    const float *r = in + (size_t)row * cols;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
      float v = r[c];
      acc += v * v;
    }
    acc = warp_reduce_sum(acc);
    if (lane == 0)
      warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      acc = lane < warps ? warp_sums[lane] : 0.0f;
      acc = warp_reduce_sum(acc);
      if (lane == 0)
        out[row] = acc;
    }
    __syncthreads();
  }
}

// out[i] = rounds of an integer hash of in[i], grid-stride over n elements.
__global__ void hash_rounds(const uint32_t *in, uint32_t *out, int n, int rounds) {
  if (n <= 0)
    return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    uint32_t h = in[i];
    for (int r = 0; r < rounds; ++r)
      h = mix32(h + HASH_MULT * (uint32_t)r);
    out[i] = h;
  }
}

// bins[b] += how many bytes of data equal b. Written for blocks of exactly
// 256 threads: thread t owns bin t of the block's shared histogram.
__global__ void histogram256(const uint8_t *data, unsigned int *bins, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  if (local[threadIdx.x] != 0)
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// The host code the fused launcher replaces.
void launch_originals(const float *in, float *sums, int rows, int cols, const uint32_t *keys,
                      uint32_t *hashes, int n, int rounds, cudaStream_t stream) {
  row_sum_squares<<<rows, 512, 0, stream>>>(in, sums, rows, cols);
  hash_rounds<<<rows, 512, 0, stream>>>(keys, hashes, n, rounds);
}
