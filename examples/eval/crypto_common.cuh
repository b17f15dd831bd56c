// Helpers shared by the hash kernels of kfuse's evaluation, in the style of a
// miner's headers. Written for this project.
#pragma once

#include <cstdint>

#define ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

__device__ __forceinline__ uint32_t swab32(uint32_t x) { return __byte_perm(x, 0, 0x0123); }

// The nonce of a grid-stride loop's iteration: miners hash one header with
// consecutive nonces.
#define NONCE_LOOP(idx, count)                                                                     \
  for (unsigned idx = blockIdx.x * blockDim.x + threadIdx.x; idx < (count);                        \
       idx += blockDim.x * gridDim.x)
