// Bitcoin-style SHA-256d: SHA-256 of SHA-256 of an 80-byte block header, the
// nonce (header word 19) counting up from start_nonce; every hash's eight
// state words are written out. Written for this project from FIPS 180-4.
#include "crypto_common.cuh"

__constant__ const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x) (ROTR32(x, 2) ^ ROTR32(x, 13) ^ ROTR32(x, 22))
#define BSIG1(x) (ROTR32(x, 6) ^ ROTR32(x, 11) ^ ROTR32(x, 25))
#define SSIG0(x) (ROTR32(x, 7) ^ ROTR32(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (ROTR32(x, 17) ^ ROTR32(x, 19) ^ ((x) >> 10))

__device__ __forceinline__ void sha256_init(uint32_t *state) {
  state[0] = 0x6a09e667;
  state[1] = 0xbb67ae85;
  state[2] = 0x3c6ef372;
  state[3] = 0xa54ff53a;
  state[4] = 0x510e527f;
  state[5] = 0x9b05688c;
  state[6] = 0x1f83d9ab;
  state[7] = 0x5be0cd19;
}

// One compression of a 16-word block into state; the block is overwritten by
// the message schedule.
__device__ __forceinline__ void sha256_transform(uint32_t *state, uint32_t *w) {
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    if (i >= 16)
      w[i & 15] += SSIG1(w[(i - 2) & 15]) + w[(i - 7) & 15] + SSIG0(w[(i - 15) & 15]);
    uint32_t t1 = h + BSIG1(e) + CH(e, f, g) + sha256_k[i] + w[i & 15];
    uint32_t t2 = BSIG0(a) + MAJ(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

// header: the 20 big-endian words of the 80-byte header; out: 8 words per nonce.
__global__ void sha256d_hash(const uint32_t *header, uint32_t start_nonce, unsigned count,
                             uint32_t *out) {
  NONCE_LOOP(idx, count) {
    uint32_t state[8], w[16];
    sha256_init(state);
#pragma unroll
    for (int i = 0; i < 16; ++i)
      w[i] = header[i];
    sha256_transform(state, w);
    w[0] = header[16];
    w[1] = header[17];
    w[2] = header[18];
    w[3] = swab32(start_nonce + idx); // The nonce is stored little-endian.
    w[4] = 0x80000000;
#pragma unroll
    for (int i = 5; i < 15; ++i)
      w[i] = 0;
    w[15] = 640;
    sha256_transform(state, w);

#pragma unroll
    for (int i = 0; i < 8; ++i)
      w[i] = state[i];
    w[8] = 0x80000000;
#pragma unroll
    for (int i = 9; i < 15; ++i)
      w[i] = 0;
    w[15] = 256;
    sha256_init(state);
    sha256_transform(state, w);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      out[(size_t)idx * 8 + i] = state[i];
  }
}
