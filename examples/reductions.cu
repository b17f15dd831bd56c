// Legacy block reductions: a __shared__ array halved with a barrier per
// step, in the forms legacy code writes them, beside a compute-bound hash
// (configs/reductions.yaml fuses them; kfuse can run each tree in one warp).
// Written for this project.
#include <cstdint>

#define SUM_THREADS 256

// partial[b] = sum of block b's elements; every element of the tree is
// written out too, so a check sees the whole array the loop leaves.
__global__ void block_sums(const float *in, float *partial, float *tree, int n) {
  __shared__ float sums[SUM_THREADS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sums[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = SUM_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sums[threadIdx.x] += sums[threadIdx.x + s];
    __syncthreads();
  }
  tree[i] = sums[threadIdx.x];
  if (threadIdx.x == 0)
    partial[blockIdx.x] = sums[0];
}

// Counts of set bits per block of 512 words; the loop starts at half the block.
__global__ void bit_counts(const uint32_t *words, int *counts, int n) {
  __shared__ int part[1024];
  const unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  part[tid] = i < n ? __popc(words[i]) : 0;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w != 0; w /= 2) {
    if (tid < w)
      part[tid] = part[tid] + part[tid + w];
    __syncthreads();
  }
  if (tid == 0)
    counts[blockIdx.x] = part[0];
}

// A block's total in a helper, in double precision.
template <int Threads> __device__ double block_total(double v) {
  __shared__ double partial[Threads];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = Threads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  double total = partial[0];
  __syncthreads();
  return total;
}

__global__ void dot_blocks(const double *a, const double *b, double *dots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double t = block_total<128>(i < n ? a[i] * b[i] : 0.0);
  if (threadIdx.x == 0)
    dots[blockIdx.x] = t;
}

// Many rounds of integer mixing per word, grid-stride: bound by the SMs,
// correct for any 1-D block and grid.
__global__ void mix_words(const uint32_t *in, uint32_t *out, int n, int rounds) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
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
