// BLAKE-256 (14 rounds, the SHA-3 finalist) of an 80-byte block header, the
// nonce (header word 19) counting up from start_nonce, as Blake-based coins
// hash their headers; every digest's eight words are written out. Written for
// this project from the BLAKE specification.
#include "crypto_common.cuh"

__constant__ const uint8_t blake256_sigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};

__constant__ const uint32_t blake256_c[16] = {
    0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0,
    0x082EFA98, 0xEC4E6C89, 0x452821E6, 0x38D01377, 0xBE5466CF, 0x34E90C6C,
    0xC0AC29B7, 0xC97C50DD, 0x3F84D5B5, 0xB5470917};

#define BLAKE256_G(r, i, a, b, c, d)                                                               \
  do {                                                                                             \
    a += b + (m[blake256_sigma[r][2 * i]] ^ blake256_c[blake256_sigma[r][2 * i + 1]]);             \
    d = ROTR32(d ^ a, 16);                                                                         \
    c += d;                                                                                        \
    b = ROTR32(b ^ c, 12);                                                                         \
    a += b + (m[blake256_sigma[r][2 * i + 1]] ^ blake256_c[blake256_sigma[r][2 * i]]);             \
    d = ROTR32(d ^ a, 8);                                                                          \
    c += d;                                                                                        \
    b = ROTR32(b ^ c, 7);                                                                          \
  } while (0)

// One compression: h is the chain value, m the block's 16 big-endian words,
// t the number of message bits hashed once this block is done.
__device__ __forceinline__ void blake256_compress(uint32_t *h, const uint32_t *m, uint32_t t) {
  uint32_t v[16];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    v[i] = h[i];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    v[8 + i] = blake256_c[i];
  v[12] ^= t;
  v[13] ^= t;
#pragma unroll
  for (int r = 0; r < 14; ++r) {
    BLAKE256_G(r % 10, 0, v[0], v[4], v[8], v[12]);
    BLAKE256_G(r % 10, 1, v[1], v[5], v[9], v[13]);
    BLAKE256_G(r % 10, 2, v[2], v[6], v[10], v[14]);
    BLAKE256_G(r % 10, 3, v[3], v[7], v[11], v[15]);
    BLAKE256_G(r % 10, 4, v[0], v[5], v[10], v[15]);
    BLAKE256_G(r % 10, 5, v[1], v[6], v[11], v[12]);
    BLAKE256_G(r % 10, 6, v[2], v[7], v[8], v[13]);
    BLAKE256_G(r % 10, 7, v[3], v[4], v[9], v[14]);
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
    h[i] ^= v[i] ^ v[8 + i];
}

// header: the 20 big-endian words of the 80-byte header; out: 8 words per nonce.
__global__ void blake256_hash(const uint32_t *header, uint32_t start_nonce, unsigned count,
                              uint32_t *out) {
  NONCE_LOOP(idx, count) {
    uint32_t h[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                     0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
    uint32_t m[16];
#pragma unroll
    for (int i = 0; i < 16; ++i)
      m[i] = header[i];
    blake256_compress(h, m, 512);
    m[0] = header[16];
    m[1] = header[17];
    m[2] = header[18];
    m[3] = swab32(start_nonce + idx);
    m[4] = 0x80000000; // Padding: a one bit after the message,
#pragma unroll
    for (int i = 5; i < 13; ++i)
      m[i] = 0;
    m[13] = 0x00000001; // another before the length,
    m[14] = 0;
    m[15] = 640; // and the length in bits.
    blake256_compress(h, m, 640);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      out[(size_t)idx * 8 + i] = h[i];
  }
}
