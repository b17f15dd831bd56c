// Runs the fused launcher kfuse generated for blend + value_histogram and
// checks its results against the original kernels, launched one after the
// other on the same inputs. Usage: blend_stats [ELEMENTS] (default 4M).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "blend_stats.fused.h"  // Written by kfuse_add_fusion() at build time.
#include "kernels.cuh"

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                   cudaGetErrorString(err_));                                             \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

namespace {

struct Outputs {
  std::vector<float> blended;
  std::vector<unsigned int> bins;
};

struct Buffers {
  float *a, *b, *out, *values;
  unsigned int *bins;
};

Outputs download(const Buffers &d, int n) {
  Outputs o{std::vector<float>(n), std::vector<unsigned int>(STATS_BINS)};
  CHECK(cudaMemcpy(o.blended.data(), d.out, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o.bins.data(), d.bins, STATS_BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return o;
}

} // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 22;
  if (n <= 0) {
    std::fprintf(stderr, "usage: %s [ELEMENTS > 0]\n", argv[0]);
    return 2;
  }
  const float alpha = 0.25f, range = 3.0f;
  set_stats_range(range);
  std::vector<float> a(n), b(n), values(n);
  unsigned seed = 12345u;
  auto next = [&] { return (seed = seed * 1664525u + 1013904223u) / 4294967296.0f; };
  for (int i = 0; i < n; ++i) {
    a[i] = next();
    b[i] = next();
    values[i] = (next() - 0.5f) * 2.5f * range;
  }

  Buffers d;
  CHECK(cudaMalloc(&d.a, n * sizeof(float)));
  CHECK(cudaMalloc(&d.b, n * sizeof(float)));
  CHECK(cudaMalloc(&d.out, n * sizeof(float)));
  CHECK(cudaMalloc(&d.values, n * sizeof(float)));
  CHECK(cudaMalloc(&d.bins, STATS_BINS * sizeof(unsigned)));
  CHECK(cudaMemcpy(d.a, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d.b, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d.values, values.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const dim3 grid(264), block(HISTOGRAM_BLOCK);
  auto clear = [&] {
    CHECK(cudaMemset(d.out, 0, n * sizeof(float)));
    CHECK(cudaMemset(d.bins, 0, STATS_BINS * sizeof(unsigned)));
  };

  // The original launches.
  clear();
  blend<<<grid, block>>>(d.a, d.b, d.out, alpha, n);
  value_histogram<<<grid, block>>>(d.values, d.bins, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Outputs original = download(d, n);

  // One fused launch in their place, given the same launch configurations.
  clear();
  CHECK(blend_stats_launch(kfuse_launch{grid, block, 0}, d.a, d.b, d.out, alpha, n,
                           kfuse_launch{grid, block, 0}, d.values, d.bins, n));
  CHECK(cudaDeviceSynchronize());
  Outputs fused = download(d, n);

  int mismatches = 0;
  for (int i = 0; i < n; ++i)
    mismatches += fused.blended[i] != original.blended[i];
  unsigned long long counted = 0;
  for (int bin = 0; bin < STATS_BINS; ++bin) {
    mismatches += fused.bins[bin] != original.bins[bin];
    counted += original.bins[bin];
  }
  if (counted != static_cast<unsigned long long>(n)) {
    std::printf("kfuse example: the original histogram counted %llu of %d values\n", counted, n);
    return 1;
  }
  std::printf("kfuse example: blend_stats_launch %s the original kernels "
              "(%d blended values, %d histogram bins, %d mismatches)\n",
              mismatches == 0 ? "matches" : "DIFFERS FROM", n, STATS_BINS, mismatches);
  return mismatches == 0 ? 0 : 1;
}
