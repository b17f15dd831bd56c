// Checks each kernel of examples/eval/ on its own against the CPU references
// of reference.h (which test/unit/EvalReferenceTest.cpp checks against
// published known answers), at two block sizes and two grids, so the
// evaluation fuses kernels known to be right. Prints one line per kernel and
// exits 1 on any mismatch.
//   nvcc -std=c++17 -O3 -arch=sm_90 -I examples/eval check_kernels.cu
#include "batchnorm_stats.cu"
#include "blake256.cu"
#include "blake2b.cu"
#include "ethash_like.cu"
#include "histogram.cu"
#include "im2col.cu"
#include "maxpool.cu"
#include "sha256d.cu"
#include "upsample.cu"

#include "../check_util.h"
#include "reference.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

namespace {

std::mt19937 rng(20261122);

template <typename T> struct Device {
  T *ptr = nullptr;
  size_t n = 0;
  explicit Device(size_t count) : n(count) {
    CHECK(cudaMalloc(&ptr, n * sizeof(T)));
    CHECK(cudaMemset(ptr, 0, n * sizeof(T)));
  }
  Device(const std::vector<T> &host) : Device(host.size()) {
    CHECK(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~Device() { cudaFree(ptr); }
  std::vector<T> get() const {
    CHECK(cudaDeviceSynchronize());
    return download(ptr, n);
  }
};

std::vector<float> uniform(size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

std::vector<uint32_t> words(size_t n) {
  std::vector<uint32_t> v(n);
  for (uint32_t &x : v)
    x = rng();
  return v;
}

bool close(double got, double want, double tol) {
  return std::fabs(got - want) <= tol * std::max(1.0, std::fabs(want));
}

// Launch shapes every kernel is checked with: small and large blocks, grids
// shorter and longer than the work.
const unsigned kBlocks[] = {128, 512};
const unsigned kGrids[] = {3, 70};

int failures = 0;

void report(const char *name, size_t bad, size_t total) {
  std::printf("%-24s %s (%zu of %zu elements differ)\n", name, bad ? "FAILED" : "ok", bad, total);
  failures += bad != 0;
}

void checkBatchNorm() {
  const int batch = 3, channels = 5, spatial = 37 * 29;
  std::vector<float> in = uniform(size_t(batch) * channels * spatial, -2, 3);
  std::vector<double> mean, var;
  eval_ref::batchNormStats(in, batch, channels, spatial, mean, var);
  Device<float> d_in(in);
  size_t bad = 0, total = 0;
  for (unsigned block : kBlocks) {
    Device<float> d_mean(channels), d_var(channels);
    batch_norm_collect_statistics<<<channels, block>>>(d_in.ptr, d_mean.ptr, d_var.ptr, batch,
                                                       channels, spatial);
    std::vector<float> m = d_mean.get(), v = d_var.get();
    for (int c = 0; c < channels; ++c, total += 2)
      bad += !close(m[c], mean[c], 1e-4) + !close(v[c], var[c], 1e-4);
  }
  report("batchnorm statistics", bad, total);
}

void checkHistogram() {
  const int n = 100003, bins = 100;
  std::vector<float> in = uniform(n, -0.1f, 1.1f); // Some values fall outside [0, 1].
  in[7] = 1.0f;
  std::vector<unsigned> want = eval_ref::histogram(in, bins, 0, 1);
  Device<float> d_in(in);
  size_t bad = 0, total = 0;
  for (unsigned block : kBlocks)
    for (unsigned grid : kGrids) {
      Device<unsigned> d_hist(bins);
      histogram1d<<<grid, block>>>(d_in.ptr, d_hist.ptr, n, bins, 0.0f, 1.0f);
      std::vector<unsigned> got = d_hist.get();
      for (int b = 0; b < bins; ++b, ++total)
        bad += got[b] != want[b];
    }
  report("histogram", bad, total);
}

void checkMaxPool() {
  const int planes = 6, h = 33, w = 47, oh = (h + 1) / 2, ow = (w + 1) / 2;
  std::vector<float> in = uniform(size_t(planes) * h * w, -5, 5);
  std::vector<float> want;
  std::vector<int> where;
  eval_ref::maxPool(in, planes, h, w, oh, ow, want, where);
  Device<float> d_in(in);
  size_t bad = 0, total = 0;
  for (unsigned block : kBlocks)
    for (unsigned grid : kGrids) {
      Device<float> d_out(want.size());
      Device<int> d_idx(want.size());
      max_pool2d_forward<<<grid, block>>>(d_in.ptr, d_out.ptr, d_idx.ptr, planes, h, w, oh, ow);
      std::vector<float> got = d_out.get();
      std::vector<int> idx = d_idx.get();
      for (size_t i = 0; i < want.size(); ++i, ++total)
        bad += got[i] != want[i] || idx[i] != where[i];
    }
  report("max pooling", bad, total);
}

void checkUpsample() {
  const int planes = 5, h = 13, w = 21, oh = 2 * h, ow = 2 * w;
  std::vector<float> in = uniform(size_t(planes) * h * w, -1, 1);
  std::vector<double> want = eval_ref::upsampleBilinear(in, planes, h, w, oh, ow);
  Device<float> d_in(in);
  size_t bad = 0, total = 0;
  for (unsigned block : kBlocks)
    for (unsigned grid : kGrids) {
      Device<float> d_out(want.size());
      upsample_bilinear2d<<<grid, block>>>(d_in.ptr, d_out.ptr, planes, h, w, oh, ow,
                                           float(h) / oh, float(w) / ow);
      std::vector<float> got = d_out.get();
      for (size_t i = 0; i < want.size(); ++i, ++total)
        bad += !close(got[i], want[i], 1e-5);
    }
  report("bilinear upsampling", bad, total);
}

void checkIm2col() {
  const int c = 3, h = 19, w = 23, k = 3, pad = 1, stride = 2;
  const int oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  std::vector<float> in = uniform(size_t(c) * h * w, -1, 1);
  std::vector<float> want = eval_ref::im2col(in, c, h, w, k, k, pad, stride, oh, ow);
  Device<float> d_in(in);
  size_t bad = 0, total = 0;
  for (unsigned block : kBlocks)
    for (unsigned grid : kGrids) {
      Device<float> d_out(want.size());
      im2col_kernel<<<grid, block>>>(d_in.ptr, d_out.ptr, c, h, w, k, k, pad, stride, oh, ow);
      std::vector<float> got = d_out.get();
      for (size_t i = 0; i < want.size(); ++i, ++total)
        bad += got[i] != want[i];
    }
  report("im2col", bad, total);
}

/// The 80 header bytes with the nonce in bytes 76..79, little-endian.
eval_ref::Bytes headerBytes(const eval_ref::Bytes &header, uint32_t nonce) {
  eval_ref::Bytes b = header;
  for (int i = 0; i < 4; ++i)
    b[76 + i] = static_cast<uint8_t>(nonce >> (8 * i));
  return b;
}

std::vector<uint32_t> wordsOf(const eval_ref::Bytes &b, bool bigEndian) {
  std::vector<uint32_t> w(b.size() / 4);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = bigEndian ? eval_ref::loadBe32(&b[4 * i])
                     : uint32_t(b[4 * i]) | uint32_t(b[4 * i + 1]) << 8 |
                           uint32_t(b[4 * i + 2]) << 16 | uint32_t(b[4 * i + 3]) << 24;
  return w;
}

/// Runs a 32-bit-word hash kernel for \p count nonces and compares with \p ref.
template <typename Word, typename Launch, typename Ref>
size_t checkHashes(const eval_ref::Bytes &header, bool bigEndian, uint32_t start, unsigned count,
                   unsigned block, unsigned grid, Launch launch, Ref ref, size_t &total) {
  Device<uint32_t> d_header(wordsOf(header, bigEndian));
  Device<Word> d_out(size_t(count) * 8);
  launch(grid, block, d_header.ptr, start, count, d_out.ptr);
  CHECK(cudaGetLastError());
  std::vector<Word> got = d_out.get();
  size_t bad = 0;
  for (unsigned i = 0; i < count; ++i) {
    eval_ref::Bytes want = ref(headerBytes(header, start + i));
    for (int w = 0; w < 8; ++w, ++total) {
      Word v = 0;
      for (size_t b = 0; b < sizeof(Word); ++b) // Digest words: big-endian for 32-bit hashes.
        v = sizeof(Word) == 4 ? Word(v << 8 | want[4 * w + b])
                              : Word(v | Word(want[8 * w + b]) << (8 * b));
      bad += got[size_t(i) * 8 + w] != v;
    }
  }
  return bad;
}

void checkCrypto() {
  using eval_ref::Bytes;
  // Known answer: Bitcoin's genesis header, nonce 2083236893 at index 5.
  Bytes genesis = eval_ref::fromHex(
      "0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b2"
      "7ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c");
  {
    Device<uint32_t> d_header(wordsOf(genesis, true));
    Device<uint32_t> d_out(8 * 8);
    sha256d_hash<<<1, 32>>>(d_header.ptr, 2083236893u - 5, 8, d_out.ptr);
    std::vector<uint32_t> got = d_out.get();
    const uint32_t want[8] = {0x6fe28c0a, 0xb6f1b372, 0xc1a6a246, 0xae63f74f,
                              0x931e8365, 0xe15a089c, 0x68d61900, 0x00000000};
    size_t bad = 0;
    for (int w = 0; w < 8; ++w)
      bad += got[5 * 8 + w] != want[w];
    report("sha256d genesis block", bad, 8);
  }
  std::vector<uint32_t> random = words(20);
  Bytes header(80);
  for (int i = 0; i < 80; ++i)
    header[i] = static_cast<uint8_t>(random[i / 4] >> (8 * (i % 4)));
  auto sha256d = [](const Bytes &b) { return eval_ref::sha256(eval_ref::sha256(b)); };
  size_t bad[3] = {}, total[3] = {};
  for (unsigned block : kBlocks)
    for (unsigned grid : kGrids) {
      uint32_t start = rng();
      bad[0] += checkHashes<uint32_t>(
          header, true, start, 3001, block, grid,
          [](unsigned g, unsigned b, const uint32_t *h, uint32_t s, unsigned c, uint32_t *o) {
            sha256d_hash<<<g, b>>>(h, s, c, o);
          },
          sha256d, total[0]);
      bad[1] += checkHashes<uint32_t>(
          header, true, start, 3001, block, grid,
          [](unsigned g, unsigned b, const uint32_t *h, uint32_t s, unsigned c, uint32_t *o) {
            blake256_hash<<<g, b>>>(h, s, c, o);
          },
          eval_ref::blake256, total[1]);
      bad[2] += checkHashes<uint64_t>(
          header, false, start, 3001, block, grid,
          [](unsigned g, unsigned b, const uint32_t *h, uint32_t s, unsigned c, uint64_t *o) {
            blake2b_hash<<<g, b>>>(h, s, c, o);
          },
          eval_ref::blake2b, total[2]);
    }
  report("sha256d", bad[0], total[0]);
  report("blake256", bad[1], total[1]);
  report("blake2b", bad[2], total[2]);
}

void checkEthashLike() {
  const unsigned pages = 4099, count = 2500;
  std::vector<uint32_t> dag = words(size_t(pages) * 32), header = words(8);
  Device<uint32_t> d_dag(dag), d_header(header);
  size_t bad = 0, total = 0;
  for (unsigned block : kBlocks)
    for (unsigned grid : kGrids) {
      uint32_t start = rng();
      Device<uint32_t> d_out(size_t(count) * 8);
      ethash_like_search<<<grid, block>>>(d_dag.ptr, pages, d_header.ptr, start, count,
                                          d_out.ptr);
      std::vector<uint32_t> got = d_out.get();
      for (unsigned i = 0; i < count; ++i) {
        uint32_t want[8];
        eval_ref::ethashLike(dag, pages, header.data(), start + i, want);
        for (int w = 0; w < 8; ++w, ++total)
          bad += got[size_t(i) * 8 + w] != want[w];
      }
    }
  report("ethash-like", bad, total);
}

} // namespace

int main() {
  checkBatchNorm();
  checkHistogram();
  checkMaxPool();
  checkUpsample();
  checkIm2col();
  checkCrypto();
  checkEthashLike();
  CHECK(cudaDeviceSynchronize());
  std::printf("evaluation kernels: %s\n", failures ? "FAILED" : "all match their references");
  return failures ? 1 : 0;
}
