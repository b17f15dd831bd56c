// BLAKE2b-512 (RFC 7693) of an 80-byte block header, the nonce (header word
// 19, little-endian) counting up from start_nonce; every digest's eight
// 64-bit words are written out. Written for this project from RFC 7693.
#include "crypto_common.cuh"

__constant__ const uint64_t blake2b_iv[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

__constant__ const uint8_t blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

#define B2B_G(r, i, a, b, c, d)                                                                    \
  do {                                                                                             \
    a = a + b + m[blake2b_sigma[r][2 * i]];                                                        \
    d = ROTR64(d ^ a, 32);                                                                         \
    c = c + d;                                                                                     \
    b = ROTR64(b ^ c, 24);                                                                         \
    a = a + b + m[blake2b_sigma[r][2 * i + 1]];                                                    \
    d = ROTR64(d ^ a, 16);                                                                         \
    c = c + d;                                                                                     \
    b = ROTR64(b ^ c, 63);                                                                         \
  } while (0)

// header: the 80 header bytes as 20 little-endian words; out: 8 words per nonce.
__global__ void blake2b_hash(const uint32_t *header, uint32_t start_nonce, unsigned count,
                             uint64_t *out) {
  NONCE_LOOP(idx, count) {
    uint64_t m[16];
#pragma unroll
    for (int i = 0; i < 9; ++i)
      m[i] = (uint64_t)header[2 * i] | ((uint64_t)header[2 * i + 1] << 32);
    m[9] = (uint64_t)header[18] | ((uint64_t)(start_nonce + idx) << 32);
#pragma unroll
    for (int i = 10; i < 16; ++i)
      m[i] = 0;

    uint64_t h[8], v[16];
#pragma unroll
    for (int i = 0; i < 8; ++i)
      h[i] = blake2b_iv[i];
    h[0] ^= 0x01010040ull; // Digest length 64, no key, fanout and depth 1.
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      v[i] = h[i];
      v[8 + i] = blake2b_iv[i];
    }
    v[12] ^= 80;  // Bytes hashed.
    v[14] = ~v[14]; // The last block.
#pragma unroll
    for (int r = 0; r < 12; ++r) {
      B2B_G(r, 0, v[0], v[4], v[8], v[12]);
      B2B_G(r, 1, v[1], v[5], v[9], v[13]);
      B2B_G(r, 2, v[2], v[6], v[10], v[14]);
      B2B_G(r, 3, v[3], v[7], v[11], v[15]);
      B2B_G(r, 4, v[0], v[5], v[10], v[15]);
      B2B_G(r, 5, v[1], v[6], v[11], v[12]);
      B2B_G(r, 6, v[2], v[7], v[8], v[13]);
      B2B_G(r, 7, v[3], v[4], v[9], v[14]);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
      out[(size_t)idx * 8 + i] = h[i] ^ v[i] ^ v[8 + i];
  }
}
