// GPU check and benchmark of kfuse's vertical fusions (configs/vertical.yaml).
//   check_vertical            outputs of every fusion against the original launches
//   check_vertical --small    the same on small inputs, for compute-sanitizer
//   check_vertical --bench    times the originals and the fused kernels
// Outputs are compared bit for bit when built with -fmad=false, and to a
// relative 1e-6 otherwise: a register temporary lets nvcc contract one
// kernel's multiply with the next kernel's add.
#include "check_util.h"
#include "vertical_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>

namespace {

struct Sizes {
  int n, width, height, words;
};

template <typename T> T *deviceBuffer(size_t n) {
  T *p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(T)));
  return p;
}

template <typename T> void upload(T *d, const std::vector<T> &h) {
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

std::vector<float> randomFloats(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

VerticalBuffers allocate(const Sizes &s, unsigned seed) {
  std::mt19937 rng(seed);
  VerticalBuffers b{};
  b.n = s.n;
  b.channels = 96;
  b.alpha = 1.5f;
  b.slope = 0.1f;
  float *x = deviceBuffer<float>(s.n), *bias = deviceBuffer<float>(b.channels);
  upload(x, randomFloats(s.n, rng));
  upload(bias, randomFloats(b.channels, rng));
  b.x = x;
  b.bias = bias;
  b.y = deviceBuffer<float>(s.n);
  b.z = deviceBuffer<float>(s.n);
  b.out = deviceBuffer<float>(s.n);
  b.squares = deviceBuffer<float>(s.n);
  b.partial = deviceBuffer<float>((s.n + 255) / 256);
  b.width = s.width;
  b.height = s.height;
  b.gain = 0.75f;
  b.offset = 0.25f;
  size_t pixels = size_t(s.width) * s.height;
  float *img = deviceBuffer<float>(pixels);
  upload(img, randomFloats(pixels, rng));
  b.img = img;
  b.bright = deviceBuffer<float>(pixels);
  b.smooth = deviceBuffer<float>(pixels);
  b.words_n = s.words;
  b.rounds = 64;
  std::vector<uint32_t> words(s.words);
  for (uint32_t &w : words)
    w = rng();
  uint32_t *dw = deviceBuffer<uint32_t>(s.words);
  upload(dw, words);
  b.words = dw;
  b.hashed = deviceBuffer<uint32_t>(s.words);
  return b;
}

/// The outputs a fusion writes, which both runs must agree on.
struct Output {
  const char *name;
  void *data;
  size_t bytes;
  bool floats;
};

std::vector<Output> outputsOf(const std::string &fusion, const VerticalBuffers &b) {
  size_t n = b.n, pixels = size_t(b.width) * b.height, words = b.words_n;
  if (fusion == "chain")
    return {{"out", b.out, n * 4, true}};
  if (fusion == "map_reduce")
    return {{"partial", b.partial, (n + 255) / 256 * 4, true}};
  if (fusion == "filter")
    return {{"bright", b.bright, pixels * 4, true}, {"smooth", b.smooth, pixels * 4, true}};
  if (fusion == "chain_hash")
    return {{"out", b.out, n * 4, true}, {"hashed", b.hashed, words * 4, false}};
  return {{"squares", b.squares, n * 4, true}, {"hashed", b.hashed, words * 4, false}};
}

std::vector<std::vector<unsigned char>> runAndRead(const std::vector<Output> &outs,
                                                   const std::function<void()> &run) {
  for (const Output &o : outs)
    CHECK(cudaMemset(o.data, 0xff, o.bytes)); // NaN / all ones: unwritten elements show.
  run();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<std::vector<unsigned char>> r;
  for (const Output &o : outs)
    r.push_back(download(static_cast<unsigned char *>(o.data), o.bytes));
  return r;
}

bool compare(const Output &o, const std::vector<unsigned char> &a,
             const std::vector<unsigned char> &b, bool exact) {
  size_t differ = 0, first = size_t(-1);
  double worst = 0.0;
  if (o.floats) {
    const float *x = reinterpret_cast<const float *>(a.data());
    const float *y = reinterpret_cast<const float *>(b.data());
    for (size_t i = 0; i < o.bytes / 4; ++i) {
      if (std::memcmp(&x[i], &y[i], 4) == 0)
        continue;
      double rel = std::fabs(double(x[i]) - y[i]) / std::max(1e-30, std::fabs(double(x[i])));
      worst = std::max(worst, std::isnan(rel) ? 1e300 : rel);
      if (exact || !(rel <= 1e-6)) {
        ++differ;
        first = std::min(first, i);
      }
    }
  } else if (a != b) {
    for (size_t i = 0; i < o.bytes; ++i)
      if (a[i] != b[i]) {
        ++differ;
        first = std::min(first, i / 4);
      }
  }
  std::printf("  %-8s %10zu elements: %s", o.name, o.bytes / 4, differ ? "DIFFER" : "match");
  if (differ)
    std::printf(" (%zu differ, first at %zu)", differ, first);
  else if (worst > 0.0)
    std::printf(" (largest relative difference %.2e)", worst);
  std::printf("\n");
  return differ == 0;
}

using Runs = std::pair<std::function<void(const VerticalBuffers &)>,
                       std::function<cudaError_t(const VerticalBuffers &)>>;

std::vector<std::pair<std::string, Runs>> fusions() {
  std::vector<std::pair<std::string, Runs>> all;
#define KFUSE_ENTRY(name) all.push_back({#name, {name##_original, name##_fused}});
  KFUSE_VERTICAL_FUSIONS(KFUSE_ENTRY)
#undef KFUSE_ENTRY
  return all;
}

int check(const Sizes &s, unsigned seed, bool exact) {
  VerticalBuffers b = allocate(s, seed);
  bool ok = true;
  for (const auto &entry : fusions()) {
    const std::string &name = entry.first;
    const Runs &runs = entry.second;
    std::printf("%s:\n", name.c_str());
    std::vector<Output> outs = outputsOf(name, b);
    auto original = runAndRead(outs, [&] { runs.first(b); });
    auto fused = runAndRead(outs, [&] { CHECK(runs.second(b)); });
    for (size_t i = 0; i < outs.size(); ++i)
      ok &= compare(outs[i], original[i], fused[i], exact);
  }
  std::printf("GPU CHECK (%s): %s\n", exact ? "bitwise" : "relative 1e-6",
              ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}

/// Median of event-timed samples of each runner, interleaved round by
/// round, the L2 flushed before each sample.
std::vector<double> timeInterleaved(const std::vector<std::function<void()>> &runners,
                                    int samples) {
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  size_t flushBytes = size_t(l2) * 4;
  void *flush = deviceBuffer<unsigned char>(flushBytes);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<std::vector<float>> times(runners.size());
  for (int round = -3; round < samples; ++round)
    for (size_t k = 0; k < runners.size(); ++k) {
      size_t r = (k + size_t(std::max(round, 0))) % runners.size();
      CHECK(cudaMemsetAsync(flush, round & 0xff, flushBytes));
      CHECK(cudaEventRecord(start));
      runners[r]();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (round >= 0)
        times[r].push_back(ms);
    }
  std::vector<double> medians;
  for (auto &t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  CHECK(cudaFree(flush));
  return medians;
}

int bench(const Sizes &s, unsigned seed, int samples) {
  VerticalBuffers b = allocate(s, seed);
  double n = s.n, pixels = double(s.width) * s.height;
  // Bytes each version must move through DRAM (4-byte elements; the bias
  // table and the partial sums are negligible).
  struct Row {
    std::string name;
    double originalBytes, fusedBytes;
  };
  std::vector<Row> rows = {{"chain", 6 * n * 4, 2 * n * 4},
                           {"map_reduce", 3 * n * 4, 1 * n * 4},
                           {"filter", 4 * pixels * 4, 3 * pixels * 4}};
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("device: %s, driver API %d, runtime %d; %d samples, medians\n", prop.name, driver,
              runtime, samples);
  std::printf("%-11s %12s %12s %8s %14s %12s %12s\n", "fusion", "original ms", "fused ms",
              "speedup", "bytes ratio", "orig GB/s", "fused GB/s");
  for (const Row &row : rows) {
    Runs runs;
    for (const auto &entry : fusions())
      if (entry.first == row.name)
        runs = entry.second;
    std::vector<double> t = timeInterleaved(
        {[&] { runs.first(b); }, [&] { CHECK(runs.second(b)); }}, samples);
    std::printf("%-11s %12.4f %12.4f %7.2fx %13.2fx %12.0f %12.0f\n", row.name.c_str(), t[0], t[1],
                t[0] / t[1], row.originalBytes / row.fusedBytes, row.originalBytes / t[0] / 1e6,
                row.fusedBytes / t[1] / 1e6);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  bool small = false, benchmark = false;
  unsigned seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--small")
      small = true;
    else if (a == "--bench")
      benchmark = true;
    else if (a == "--seed" && i + 1 < argc)
      seed = unsigned(std::stoul(argv[++i]));
  }
  std::printf("seed %u\n", seed);
#ifdef KFUSE_EXACT
  const bool exact = true;
#else
  const bool exact = false;
#endif
  if (benchmark)
    return bench({1 << 26, 8192, 8192, 1 << 20}, seed, 50);
  if (small)
    return check({1 << 14, 256, 128, 1 << 12}, seed, exact);
  return check({(1 << 24) + 77, 4100, 2050, 1 << 20}, seed, exact);
}
