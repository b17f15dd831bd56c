// Two kernels of the application: a memory-bound blend and a histogram that
// mostly works in shared memory. kfuse fuses them side by side.
#include "kernels.cuh"

// The histogram's range, which the host sets: the fused kernel must read this
// very variable, so the fused file is compiled in place of this file
// ('replace:' in blend_stats.yaml).
__constant__ float c_range = STATS_RANGE;

void set_stats_range(float range) { cudaMemcpyToSymbol(c_range, &range, sizeof range); }

__device__ __forceinline__ int bin_of(float v) {
  int bin = static_cast<int>((v + c_range) * (STATS_BINS / (2.0f * c_range)));
  return bin < 0 ? 0 : bin >= STATS_BINS ? STATS_BINS - 1 : bin;
}

// out = alpha * a + (1 - alpha) * b, grid-stride: any block size works.
__global__ void blend(const float *a, const float *b, float *out, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = alpha * a[i] + (1.0f - alpha) * b[i];
}

// bins[bin_of(v)] += 1 for every value; each block counts in shared memory
// first. Written for blocks of HISTOGRAM_BLOCK threads.
__global__ void value_histogram(const float *values, unsigned int *bins, int n) {
  __shared__ unsigned int local[STATS_BINS];
  for (int b = threadIdx.x; b < STATS_BINS; b += HISTOGRAM_BLOCK)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * HISTOGRAM_BLOCK + threadIdx.x; i < n; i += HISTOGRAM_BLOCK * gridDim.x)
    atomicAdd(&local[bin_of(values[i])], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < STATS_BINS; b += HISTOGRAM_BLOCK)
    atomicAdd(&bins[b], local[b]);
}
