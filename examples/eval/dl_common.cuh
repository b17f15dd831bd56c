// Helpers shared by the deep-learning kernels of kfuse's evaluation, in the
// style of a framework's kernel headers. Written for this project.
#pragma once

#define C10_WARP_SIZE 32
#define MAX_BLOCK_WARPS 32

// A grid-stride loop over [0, n), as frameworks spell it.
#define CUDA_KERNEL_LOOP(i, n)                                                                     \
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                    \
       i += (long long)blockDim.x * gridDim.x)

template <typename T> __device__ __forceinline__ T device_min(T a, T b) { return a < b ? a : b; }
template <typename T> __device__ __forceinline__ T device_max(T a, T b) { return a > b ? a : b; }
