// A 1-D histogram of a float tensor (values outside [min, max] are ignored),
// counted per block in shared memory with atomics and then added to the
// global bins. Written for this project.
#include "dl_common.cuh"

#define HIST_MAX_BINS 256

__device__ __forceinline__ int bin_of(float v, float min_value, float max_value, int nbins) {
  int bin = (int)((v - min_value) * nbins / (max_value - min_value));
  return bin == nbins ? bin - 1 : bin; // max_value itself goes to the last bin.
}

// Any 1-D block; nbins at most HIST_MAX_BINS.
__global__ void histogram1d(const float *data, unsigned int *hist, long long n, int nbins,
                            float min_value, float max_value) {
  __shared__ unsigned int local_hist[HIST_MAX_BINS];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    local_hist[b] = 0;
  __syncthreads();
  CUDA_KERNEL_LOOP(i, n) {
    float v = data[i];
    if (v >= min_value && v <= max_value)
      atomicAdd(&local_hist[bin_of(v, min_value, max_value, nbins)], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (local_hist[b] != 0)
      atomicAdd(&hist[b], local_hist[b]);
}
