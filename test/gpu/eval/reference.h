// CPU references for the kernels of examples/eval/, written independently of
// them (only the algorithms' constants are the same, by definition): plain loops for the deep-learning kernels, byte-oriented hash
// functions for the crypto kernels (checked against published known answers
// by test/unit/EvalReferenceTest.cpp). Host-only C++17.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace eval_ref {

// ---- Deep learning --------------------------------------------------------

/// Mean and biased variance per channel of an NCHW tensor, in double.
inline void batchNormStats(const std::vector<float> &in, int batch, int channels, int spatial,
                           std::vector<double> &mean, std::vector<double> &var) {
  mean.assign(channels, 0);
  var.assign(channels, 0);
  for (int c = 0; c < channels; ++c) {
    double sum = 0, sq = 0;
    for (int n = 0; n < batch; ++n)
      for (int s = 0; s < spatial; ++s) {
        double v = in[(static_cast<size_t>(n) * channels + c) * spatial + s];
        sum += v;
      }
    double m = sum / (static_cast<double>(batch) * spatial);
    for (int n = 0; n < batch; ++n)
      for (int s = 0; s < spatial; ++s) {
        double d = in[(static_cast<size_t>(n) * channels + c) * spatial + s] - m;
        sq += d * d;
      }
    mean[c] = m;
    var[c] = sq / (static_cast<double>(batch) * spatial);
  }
}

inline std::vector<unsigned> histogram(const std::vector<float> &data, int bins, float lo,
                                       float hi) {
  std::vector<unsigned> h(bins, 0);
  for (float v : data) {
    if (!(v >= lo && v <= hi))
      continue;
    int b = static_cast<int>((v - lo) * bins / (hi - lo));
    h[std::min(b, bins - 1)]++;
  }
  return h;
}

/// 3x3 windows, stride 2, padding 1; the first maximum in row-major order.
inline void maxPool(const std::vector<float> &in, int planes, int h, int w, int oh, int ow,
                    std::vector<float> &out, std::vector<int> &where) {
  out.assign(static_cast<size_t>(planes) * oh * ow, 0);
  where.assign(out.size(), 0);
  for (int p = 0; p < planes; ++p)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x) {
        float best = -INFINITY;
        int at = -1;
        for (int dy = 0; dy < 3; ++dy)
          for (int dx = 0; dx < 3; ++dx) {
            int sy = 2 * y - 1 + dy, sx = 2 * x - 1 + dx;
            if (sy < 0 || sx < 0 || sy >= h || sx >= w)
              continue;
            float v = in[(static_cast<size_t>(p) * h + sy) * w + sx];
            if (at < 0 || v > best) {
              best = v;
              at = sy * w + sx;
            }
          }
        size_t o = (static_cast<size_t>(p) * oh + y) * ow + x;
        out[o] = best;
        where[o] = at;
      }
}

/// Bilinear, align_corners=false, in double.
inline std::vector<double> upsampleBilinear(const std::vector<float> &in, int planes, int h,
                                            int w, int oh, int ow) {
  std::vector<double> out(static_cast<size_t>(planes) * oh * ow);
  double sh = static_cast<double>(h) / oh, sw = static_cast<double>(w) / ow;
  for (int p = 0; p < planes; ++p)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x) {
        double fy = std::max(0.0, sh * (y + 0.5) - 0.5), fx = std::max(0.0, sw * (x + 0.5) - 0.5);
        int y0 = static_cast<int>(fy), x0 = static_cast<int>(fx);
        int y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
        double ly = fy - y0, lx = fx - x0;
        auto at = [&](int yy, int xx) {
          return static_cast<double>(in[(static_cast<size_t>(p) * h + yy) * w + xx]);
        };
        out[(static_cast<size_t>(p) * oh + y) * ow + x] =
            (1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) +
            ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1));
      }
  return out;
}

inline std::vector<float> im2col(const std::vector<float> &im, int channels, int h, int w, int kh,
                                 int kw, int pad, int stride, int oh, int ow) {
  std::vector<float> col(static_cast<size_t>(channels) * kh * kw * oh * ow);
  for (int c = 0; c < channels; ++c)
    for (int i = 0; i < kh; ++i)
      for (int j = 0; j < kw; ++j)
        for (int y = 0; y < oh; ++y)
          for (int x = 0; x < ow; ++x) {
            int sy = y * stride - pad + i, sx = x * stride - pad + j;
            bool inside = sy >= 0 && sx >= 0 && sy < h && sx < w;
            size_t row = (static_cast<size_t>(c) * kh + i) * kw + j;
            col[(row * oh + y) * ow + x] =
                inside ? im[(static_cast<size_t>(c) * h + sy) * w + sx] : 0.0f;
          }
  return col;
}

// ---- Hashes over bytes ----------------------------------------------------

using Bytes = std::vector<uint8_t>;

inline uint32_t rotr32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
inline uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }
inline uint32_t loadBe32(const uint8_t *p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline void storeBe32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

/// Merkle-Damgard padding shared by SHA-256 and BLAKE-256 (BLAKE-256 sets
/// the bit before the length, \p blakeBit).
inline Bytes pad64(const Bytes &msg, bool blakeBit) {
  Bytes b = msg;
  b.push_back(0x80);
  while (b.size() % 64 != 56)
    b.push_back(0);
  if (blakeBit)
    b[b.size() - 1] |= 0x01;
  uint64_t bits = static_cast<uint64_t>(msg.size()) * 8;
  for (int i = 7; i >= 0; --i)
    b.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  return b;
}

inline Bytes sha256(const Bytes &msg) {
  static const uint32_t K[64] = {
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
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  Bytes b = pad64(msg, false);
  for (size_t off = 0; off < b.size(); off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = loadBe32(&b[off + 4 * i]);
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t v[8];
    std::copy(h, h + 8, v);
    for (int i = 0; i < 64; ++i) {
      uint32_t s1 = rotr32(v[4], 6) ^ rotr32(v[4], 11) ^ rotr32(v[4], 25);
      uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      uint32_t t1 = v[7] + s1 + ch + K[i] + w[i];
      uint32_t s0 = rotr32(v[0], 2) ^ rotr32(v[0], 13) ^ rotr32(v[0], 22);
      uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      std::copy_backward(v, v + 7, v + 8);
      v[4] += t1;
      v[0] = t1 + s0 + maj;
    }
    for (int i = 0; i < 8; ++i)
      h[i] += v[i];
  }
  Bytes out(32);
  for (int i = 0; i < 8; ++i)
    storeBe32(&out[4 * i], h[i]);
  return out;
}

/// The message permutations BLAKE-256 and BLAKE2b share (round r uses row r % 10).
inline const uint8_t (&blakeSigma())[10][16] {
  static const uint8_t S[10][16] = {
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
  return S;
}

/// One BLAKE round: G on the four columns, then on the four diagonals, of
/// the 4x4 state; g(r, i, a, b, c, d) mixes state words a, b, c, d.
template <typename G> void blakeRound(G g, int r) {
  g(r, 0, 0, 4, 8, 12);
  g(r, 1, 1, 5, 9, 13);
  g(r, 2, 2, 6, 10, 14);
  g(r, 3, 3, 7, 11, 15);
  g(r, 4, 0, 5, 10, 15);
  g(r, 5, 1, 6, 11, 12);
  g(r, 6, 2, 7, 8, 13);
  g(r, 7, 3, 4, 9, 14);
}

inline Bytes blake256(const Bytes &msg) {
  static const uint32_t C[16] = {0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344,
                                 0xA4093822, 0x299F31D0, 0x082EFA98, 0xEC4E6C89,
                                 0x452821E6, 0x38D01377, 0xBE5466CF, 0x34E90C6C,
                                 0xC0AC29B7, 0xC97C50DD, 0x3F84D5B5, 0xB5470917};
  uint32_t h[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                   0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
  Bytes b = pad64(msg, true);
  uint64_t total = static_cast<uint64_t>(msg.size()) * 8;
  for (size_t off = 0; off < b.size(); off += 64) {
    // The counter: message bits up to the end of this block; 0 for a block
    // of padding only.
    uint64_t end = std::min<uint64_t>(total, (off + 64) * 8);
    uint64_t t = end > off * 8 ? end : 0;
    uint32_t m[16], v[16];
    for (int i = 0; i < 16; ++i)
      m[i] = loadBe32(&b[off + 4 * i]);
    for (int i = 0; i < 8; ++i) {
      v[i] = h[i];
      v[8 + i] = C[i];
    }
    v[12] ^= static_cast<uint32_t>(t);
    v[13] ^= static_cast<uint32_t>(t);
    v[14] ^= static_cast<uint32_t>(t >> 32);
    v[15] ^= static_cast<uint32_t>(t >> 32);
    auto g = [&](int r, int i, int a, int bb, int c, int d) {
      const uint8_t *s = blakeSigma()[r % 10];
      v[a] += v[bb] + (m[s[2 * i]] ^ C[s[2 * i + 1]]);
      v[d] = rotr32(v[d] ^ v[a], 16);
      v[c] += v[d];
      v[bb] = rotr32(v[bb] ^ v[c], 12);
      v[a] += v[bb] + (m[s[2 * i + 1]] ^ C[s[2 * i]]);
      v[d] = rotr32(v[d] ^ v[a], 8);
      v[c] += v[d];
      v[bb] = rotr32(v[bb] ^ v[c], 7);
    };
    for (int r = 0; r < 14; ++r)
      blakeRound(g, r);
    for (int i = 0; i < 8; ++i)
      h[i] ^= v[i] ^ v[8 + i];
  }
  Bytes out(32);
  for (int i = 0; i < 8; ++i)
    storeBe32(&out[4 * i], h[i]);
  return out;
}

/// BLAKE2b-512 without a key, any length.
inline Bytes blake2b(const Bytes &msg) {
  static const uint64_t IV[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull,
                                 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
                                 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                                 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};
  uint64_t h[8];
  std::copy(IV, IV + 8, h);
  h[0] ^= 0x01010040ull;
  size_t blocks = std::max<size_t>(1, (msg.size() + 127) / 128);
  for (size_t k = 0; k < blocks; ++k) {
    uint8_t block[128] = {};
    size_t take = std::min<size_t>(128, msg.size() - std::min(msg.size(), k * 128));
    if (take)
      std::memcpy(block, msg.data() + k * 128, take);
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; ++i) {
      m[i] = 0;
      for (int j = 7; j >= 0; --j)
        m[i] = m[i] << 8 | block[8 * i + j];
    }
    bool last = k + 1 == blocks;
    uint64_t t = last ? msg.size() : (k + 1) * 128;
    for (int i = 0; i < 8; ++i) {
      v[i] = h[i];
      v[8 + i] = IV[i];
    }
    v[12] ^= t;
    if (last)
      v[14] = ~v[14];
    auto g = [&](int r, int i, int a, int b, int c, int d) {
      const uint8_t *s = blakeSigma()[r % 10];
      v[a] = v[a] + v[b] + m[s[2 * i]];
      v[d] = rotr64(v[d] ^ v[a], 32);
      v[c] = v[c] + v[d];
      v[b] = rotr64(v[b] ^ v[c], 24);
      v[a] = v[a] + v[b] + m[s[2 * i + 1]];
      v[d] = rotr64(v[d] ^ v[a], 16);
      v[c] = v[c] + v[d];
      v[b] = rotr64(v[b] ^ v[c], 63);
    };
    for (int r = 0; r < 12; ++r)
      blakeRound(g, r);
    for (int i = 0; i < 8; ++i)
      h[i] ^= v[i] ^ v[8 + i];
  }
  Bytes out(64);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      out[8 * i + j] = static_cast<uint8_t>(h[i] >> (8 * j));
  return out;
}

inline std::string hex(const Bytes &b) {
  static const char *digits = "0123456789abcdef";
  std::string s;
  for (uint8_t v : b) {
    s += digits[v >> 4];
    s += digits[v & 15];
  }
  return s;
}

inline Bytes fromHex(const std::string &s) {
  Bytes b;
  for (size_t i = 0; i + 1 < s.size(); i += 2)
    b.push_back(static_cast<uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return b;
}

// ---- The memory-hard hash ---------------------------------------------------

inline uint32_t fnv(uint32_t x, uint32_t y) { return x * 0x01000193u ^ y; }

/// The 8 output words of one nonce, lane by lane as the kernel's groups of 8
/// lanes compute them.
inline void ethashLike(const std::vector<uint32_t> &dag, unsigned pages,
                       const uint32_t *header, uint32_t nonce, uint32_t *out) {
  uint32_t seed = 0x811c9dc5u;
  for (int i = 0; i < 8; ++i)
    seed = fnv(seed, header[i]);
  seed = fnv(seed, nonce);
  uint32_t mix[32];
  for (int w = 0; w < 32; ++w)
    mix[w] = fnv(seed, w) * 0x9e3779b9u;
  for (int a = 0; a < 64; ++a) {
    // Word a % 32 of the whole mix, held by lane (a / 4) % 8 as its word a % 4.
    int lane = (a / 4) % 8;
    uint32_t page = fnv(a ^ seed, mix[lane * 4 + a % 4]) % pages;
    for (int w = 0; w < 32; ++w)
      mix[w] = fnv(mix[w], dag[static_cast<size_t>(page) * 32 + w]);
  }
  for (int lane = 0; lane < 8; ++lane)
    out[lane] = fnv(fnv(fnv(mix[lane * 4], mix[lane * 4 + 1]), mix[lane * 4 + 2]),
                    mix[lane * 4 + 3]);
}

} // namespace eval_ref
