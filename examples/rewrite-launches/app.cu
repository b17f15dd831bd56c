// A program kfuse rewrites: its two launches in run() become one call of a
// fused launcher at build time (kfuse_add_fusion(... REWRITE_LAUNCHES) or
// the Makefile beside this file), with no edit of this file. It checks both
// outputs against the CPU and prints PASS or FAIL, as benchmark programs do.
//   app [ELEMENTS]   (default 4M)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

// y = a * x + y: streams memory.
__global__ void saxpy(float a, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// Many rounds of integer mixing per key: bound by the multiprocessors.
__global__ void mix_keys(const unsigned *keys, unsigned *out, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned h = keys[i];
  for (int r = 0; r < rounds; ++r) {
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h += 0x9e3779b9U * r;
  }
  out[i] = h;
}

unsigned mix_on_cpu(unsigned h, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h += 0x9e3779b9U * r;
  }
  return h;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 22;
  const int rounds = 64, threads = 256;
  std::vector<float> x(n), y(n);
  std::vector<unsigned> keys(n), hashes(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * (i % 100);
    y[i] = 1.0f;
    keys[i] = 2654435761u * i;
  }
  float *d_x, *d_y;
  unsigned *d_keys, *d_hashes;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CHECK(cudaMalloc(&d_keys, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_hashes, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  saxpy<<<1024, threads>>>(2.0f, d_x, d_y, n);
  CHECK(cudaGetLastError());
  mix_keys<<<(n + threads - 1) / threads, threads>>>(d_keys, d_hashes, n, rounds);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hashes.data(), d_hashes, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += std::fabs(y[i] - (2.0f * 0.5f * (i % 100) + 1.0f)) > 1e-5f ||
             hashes[i] != mix_on_cpu(2654435761u * i, rounds);
  std::printf("kernel time: %.3f ms\n", ms);
  std::printf("%s (%d of %d elements wrong)\n", wrong ? "FAIL" : "PASS", wrong, n);
  return wrong ? 1 : 0;
}
