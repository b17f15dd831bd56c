// GPU check of the legacy fusions: the fused launches must produce what the
// original kernels produce on the same fresh random inputs. Outputs are
// poisoned and in-place buffers restored before each run.
#include "legacy_harness.h"
#include "check_util.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

template <typename T> T *upload(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

struct Outputs {
  std::vector<float> transposed, smoothed, maxima, y, norms;
  std::vector<int> segments, counts, scanned;
  std::vector<float> blurred;
};

int main(int argc, char **argv) {
  bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  unsigned seed = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : std::random_device{}();
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, seed %u, %s sizes\n", prop.name, seed, small ? "small" : "full");
  LegacyBuffers b{};
  b.width = small ? 200 : 3000;
  b.height = small ? 100 : 1777;
  b.n = 128 * (small ? 129 : 8191); // Not a multiple of 256: smooth3's tail returns early,
  b.smooth_n = b.n - 37;            // and part of a warp returns, part waits at the barrier.
  b.image_width = small ? 100 : 1921; // Neither a multiple of the 16 x 16 tiles.
  b.image_height = small ? 40 : 1079;
  b.radius = 3;
  b.a = 0.75f;
  b.rows = b.height;
  b.cols = b.width;
  b.norm_grid = 264;

  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  auto reals = [&](size_t n) {
    std::vector<float> v(n);
    for (float &f : v) f = real(rng);
    return v;
  };
  std::vector<float> h_matrix = reals((size_t)b.width * b.height), h_signal = reals(b.n),
                     h_x = reals(b.n), h_y = reals(b.n),
                     h_image = reals((size_t)b.image_width * b.image_height);
  std::vector<int> h_segments(b.n), h_values(b.n);
  for (int &v : h_segments) v = static_cast<int>(rng());
  for (int &v : h_values) v = static_cast<int>(rng() % 201) - 100;
  b.matrix = upload(h_matrix);
  b.signal = upload(h_signal);
  b.x = upload(h_x);
  b.image = upload(h_image);
  b.y = upload(h_y);
  b.values = upload(h_values);
  b.segments = upload(h_segments);
  int blocks128 = (b.n + 127) / 128;
  CHECK(cudaMalloc(&b.transposed, sizeof(float) * b.width * b.height));
  CHECK(cudaMalloc(&b.smoothed, sizeof(float) * b.n));
  CHECK(cudaMalloc(&b.maxima, sizeof(float) * b.n));
  CHECK(cudaMalloc(&b.scanned, sizeof(int) * b.n));
  size_t pixels = (size_t)b.image_width * b.image_height;
  CHECK(cudaMalloc(&b.blurred, sizeof(float) * pixels));
  CHECK(cudaMalloc(&b.counts, sizeof(int) * blocks128));
  CHECK(cudaMalloc(&b.norms, sizeof(float) * b.rows));

  auto reset = [&] {
    CHECK(cudaMemset(b.transposed, 0xff, sizeof(float) * b.width * b.height));
    CHECK(cudaMemset(b.smoothed, 0xff, sizeof(float) * b.n));
    CHECK(cudaMemset(b.maxima, 0xff, sizeof(float) * b.n));
    CHECK(cudaMemset(b.scanned, 0xff, sizeof(int) * b.n));
    CHECK(cudaMemset(b.blurred, 0xff, sizeof(float) * pixels));
    CHECK(cudaMemset(b.counts, 0xff, sizeof(int) * blocks128));
    CHECK(cudaMemset(b.norms, 0xff, sizeof(float) * b.rows));
    CHECK(cudaMemcpy(b.y, h_y.data(), sizeof(float) * b.n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b.segments, h_segments.data(), sizeof(int) * b.n, cudaMemcpyHostToDevice));
  };
  auto collect = [&] {
    CHECK(cudaDeviceSynchronize());
    return Outputs{download(b.transposed, (size_t)b.width * b.height), download(b.smoothed, b.n),
                   download(b.maxima, b.n), download(b.y, b.n), download(b.norms, b.rows),
                   download(b.segments, b.n), download(b.counts, blocks128),
                   download(b.scanned, b.n), download(b.blurred, pixels)};
  };

  reset();
  run_legacy_originals(b);
  run_legacy_image_originals(b);
  CHECK(cudaGetLastError());
  Outputs want = collect();
  reset();
  CHECK(run_legacy_transpose_smooth(b));
  CHECK(run_legacy_smooth_blur(b)); // Writes smoothed again, with the same values.
  CHECK(run_legacy_reverse_window(b));
  CHECK(run_legacy_axpy_positive_norms(b));
  Outputs got = collect();

  int failures = 0;
  auto compare = [&](const char *what, const auto &g, const auto &w) {
    size_t bad = 0;
    for (size_t i = 0; i < w.size(); ++i)
      bad += std::memcmp(&g[i], &w[i], sizeof(w[i])) != 0;
    std::printf("%-44s %9zu elements  %s\n", what, w.size(), bad ? "MISMATCH" : "identical");
    failures += bad != 0;
  };
  compare("transpose_smooth: transpose (2-D block, grid)", got.transposed, want.transposed);
  compare("transpose_smooth: smooth3 (early return)", got.smoothed, want.smoothed);
  compare("transpose_smooth: segment_scan (early return)", got.scanned, want.scanned);
  compare("smooth_blur: blur_rows (names clash)", got.blurred, want.blurred);
  compare("reverse_window: reverse_segments (dyn. shared)", got.segments, want.segments);
  compare("reverse_window: window_max (dyn. shared)", got.maxima, want.maxima);
  compare("axpy_positive_norms: axpy<float> (template)", got.y, want.y);
  compare("axpy_positive_norms: count_positive (bar.red)", got.counts, want.counts);
  compare("axpy_positive_norms: row_norms (helper barriers)", got.norms, want.norms);
  std::printf("%s\n", failures ? "LEGACY GPU CHECK FAILED" : "LEGACY GPU CHECK PASSED");
  return failures ? 1 : 0;
}
