// A project header of the legacy example: a block reduction whose barriers
// sit inside a device function.
#pragma once

template <int Threads> __device__ float block_sum(float v) {
  __shared__ float partial[Threads];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = Threads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float total = partial[0];
  __syncthreads();
  return total;
}
