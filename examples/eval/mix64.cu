// A 64-bit mixing hash of each element's seed over 16 words of state kept in
// registers: integer compute bound, with many registers. Written for this
// project.
#include "crypto_common.cuh"

#define MIX_WORDS 24

__global__ void mix64_hash(const uint32_t *seeds, uint64_t *out, unsigned count, int rounds) {
  NONCE_LOOP(idx, count) {
    uint64_t s[MIX_WORDS];
#pragma unroll
    for (int k = 0; k < MIX_WORDS; ++k)
      s[k] = (uint64_t)seeds[idx] * 0x9e3779b97f4a7c15ull + k;
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
      for (int k = 0; k < MIX_WORDS; ++k) {
        s[k] += ROTR64(s[(k + 5) % MIX_WORDS], 23) ^ s[(k + 11) % MIX_WORDS];
        s[k] *= 0xbf58476d1ce4e5b9ull;
      }
    }
    uint64_t h = 0;
#pragma unroll
    for (int k = 0; k < MIX_WORDS; ++k)
      h ^= s[k];
    out[idx] = h;
  }
}
