// A memory-hard hash in the manner of Ethash: groups of 8 lanes work on one
// nonce, mixing a 128-byte state with 64 pages read from a large table at
// addresses that depend on the state so far (one random 128-byte read per
// access, shared out with warp shuffles). Not Ethash itself: the seed and the
// final compression are FNV-based. Written for this project.
#include "crypto_common.cuh"

#define FNV_PRIME 0x01000193u
#define FNV(x, y) ((x) * FNV_PRIME ^ (y))
#define LANES 8
#define ACCESSES 64
#define WORDS_PER_LANE 4 // 8 lanes x 4 words: one 128-byte page.

__device__ __forceinline__ uint32_t seed_of(const uint32_t *header, uint32_t nonce) {
  uint32_t s = 0x811c9dc5u;
#pragma unroll
  for (int i = 0; i < 8; ++i)
    s = FNV(s, header[i]);
  return FNV(s, nonce);
}

// dag: num_pages pages of 32 words; header: 8 words; out: 8 words per nonce.
// Blocks of a multiple of 32 threads.
__global__ void ethash_like_search(const uint32_t *dag, unsigned num_pages,
                                   const uint32_t *header, uint32_t start_nonce,
                                   unsigned count, uint32_t *out) {
  const uint4 *pages = reinterpret_cast<const uint4 *>(dag);
  unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % LANES;
  unsigned group_mask = 0xffu << (threadIdx.x % 32 / LANES * LANES);
  unsigned groups = blockDim.x * gridDim.x / LANES;
  for (unsigned g = thread / LANES; g < count; g += groups) {
    uint32_t seed = seed_of(header, start_nonce + g);
    uint32_t mix[WORDS_PER_LANE];
#pragma unroll
    for (int w = 0; w < WORDS_PER_LANE; ++w)
      mix[w] = FNV(seed, lane * WORDS_PER_LANE + w) * 0x9e3779b9u;

    for (int a = 0; a < ACCESSES; ++a) {
      // The lane that holds word a % 32 of the mix picks the page.
      uint32_t pick = FNV(a ^ seed, mix[a % WORDS_PER_LANE]);
      uint32_t page = __shfl_sync(group_mask, pick, (a / WORDS_PER_LANE) % LANES, LANES);
      uint4 d = pages[(size_t)(page % num_pages) * LANES + lane];
      mix[0] = FNV(mix[0], d.x);
      mix[1] = FNV(mix[1], d.y);
      mix[2] = FNV(mix[2], d.z);
      mix[3] = FNV(mix[3], d.w);
    }
    uint32_t folded = FNV(FNV(FNV(mix[0], mix[1]), mix[2]), mix[3]);
    out[(size_t)g * LANES + lane] = folded;
  }
}
