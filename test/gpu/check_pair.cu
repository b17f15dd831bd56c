// GPU check of the example fusions: the fused launches must produce what the
// original kernels produce on the same fresh random inputs. Outputs are
// poisoned before each launch so unwritten elements show. Integer results
// must match exactly; row sums of squares within a relative 1e-5 (a resized
// block may add in another order).
#include "harness.h"
#include "check_util.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

struct Device {
  Buffers b{};
  float *in, *sums;
  uint32_t *keys, *hashes;
  uint8_t *bytes;
  unsigned *bins;

  Device(int rows, int cols, int n, int rounds, int nbytes, int grid, unsigned seed) {
    CHECK(cudaMalloc(&in, sizeof(float) * rows * cols));
    CHECK(cudaMalloc(&sums, sizeof(float) * rows));
    CHECK(cudaMalloc(&keys, sizeof(uint32_t) * n));
    CHECK(cudaMalloc(&hashes, sizeof(uint32_t) * n));
    CHECK(cudaMalloc(&bytes, nbytes));
    CHECK(cudaMalloc(&bins, sizeof(unsigned) * 256));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::vector<float> h_in((size_t)rows * cols);
    for (float &v : h_in) v = real(rng);
    std::vector<uint32_t> h_keys(n);
    for (uint32_t &k : h_keys) k = rng();
    std::vector<uint8_t> h_bytes(nbytes);
    for (uint8_t &v : h_bytes) v = static_cast<uint8_t>(rng() % 97 + rng() % 160);
    CHECK(cudaMemcpy(in, h_in.data(), h_in.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(keys, h_keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(bytes, h_bytes.data(), nbytes, cudaMemcpyHostToDevice));
    b = Buffers{grid, in, sums, rows, cols, keys, hashes, n, rounds, bytes, bins, nbytes};
  }
  void poison() {
    CHECK(cudaMemset(sums, 0xff, sizeof(float) * b.rows));
    CHECK(cudaMemset(hashes, 0xff, sizeof(uint32_t) * b.n));
    CHECK(cudaMemset(bins, 0, sizeof(unsigned) * 256)); // histograms accumulate
  }
};

int main(int argc, char **argv) {
  bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  unsigned seed = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : std::random_device{}();
  int rows = small ? 64 : 4096, cols = small ? 1024 : 8192;
  int n = small ? 1 << 16 : 1 << 21, rounds = small ? 4 : 64;
  int nbytes = small ? 1 << 18 : 1 << 26, grid = rows;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, seed %u, %s sizes\n", prop.name, seed, small ? "small" : "full");

  Device d(rows, cols, n, rounds, nbytes, grid, seed);
  d.poison();
  run_originals(d.b);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  auto want_sums = download(d.sums, rows);
  auto want_hashes = download(d.hashes, n);
  auto want_bins = download(d.bins, 256);

  int failures = 0;
  auto compare = [&](const char *what, auto got, auto want, bool exact) {
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      double g = got[i], w = want[i];
      double rel = std::fabs(g - w) / std::fmax(1e-30, std::fabs(w));
      if (exact ? got[i] != want[i] : !(rel <= 1e-5)) ++bad;
      if (!exact && rel > worst) worst = rel;
    }
    std::printf("%-34s %8zu elements  %s", what, want.size(), bad ? "MISMATCH" : "identical");
    if (!exact) std::printf(" (max relative difference %.2e)", worst);
    std::printf("\n");
    failures += bad != 0;
  };

  d.poison();
  CHECK(run_fused_sumsq_hash(d.b));
  CHECK(cudaDeviceSynchronize());
  compare("sumsq_hash: row sums of squares", download(d.sums, rows), want_sums, false);
  compare("sumsq_hash: hashes", download(d.hashes, n), want_hashes, true);

  d.poison();
  CHECK(run_fused_hist_hash(d.b));
  CHECK(cudaDeviceSynchronize());
  compare("hist_hash: histogram", download(d.bins, 256), want_bins, true);
  compare("hist_hash: hashes", download(d.hashes, n), want_hashes, true);

  int refused = count_refused_launches(d.b);
  std::printf("%-34s %d of 3 refused with cudaErrorInvalidConfiguration\n", "mismatched launches",
              refused);
  failures += refused != 3;
  CHECK(cudaDeviceSynchronize());
  std::printf("%s\n", failures ? "GPU CHECK FAILED" : "GPU CHECK PASSED");
  return failures ? 1 : 0;
}
