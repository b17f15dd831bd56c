// A legacy time-step program, as the Quick start of README.md takes it: a
// helper launches the step's kernels, main calls it in a timed loop, and
// every CUDA call is checked. A logistic growth of one state (flux, then
// update, which reads what flux wrote) beside a decay and a shift of two
// others, independent of it and of each other.
#include "check.h"

#include <vector>

__global__ void flux(const float *u, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    f[i] = 0.25f * u[i] * (1.0f - u[i]);
}

__global__ void update(float *u, const float *f, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = u[i] + dt * f[i];
}

__global__ void decay(float *v, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = a * v[i] + 0.5f;
}

__global__ void shift(float *w, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = w[i] + b * (1.0f - w[i]);
}

static void step(float *d_u, float *d_f, float *d_v, float *d_w, int n, dim3 grid, dim3 block) {
  flux<<<grid, block>>>(d_u, d_f, n);
  CHECK(cudaGetLastError());
  update<<<grid, block>>>(d_u, d_f, 0.01f, n);
  CHECK(cudaGetLastError());
  decay<<<grid, block>>>(d_v, 0.5f, n);
  CHECK(cudaGetLastError());
  shift<<<grid, block>>>(d_w, 0.125f, n);
  CHECK(cudaGetLastError());
}

int main() {
  const int n = 1 << 24;
  const int steps = 200;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = (i % 1000) / 1000.0f;
  float *d_u, *d_f, *d_v, *d_w;
  CHECK(cudaMalloc(&d_u, n * sizeof(float)));
  CHECK(cudaMalloc(&d_f, n * sizeof(float)));
  CHECK(cudaMalloc(&d_v, n * sizeof(float)));
  CHECK(cudaMalloc(&d_w, n * sizeof(float)));
  CHECK(cudaMemcpy(d_u, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_v, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_w, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(256);
  dim3 grid((n + block.x - 1) / block.x);
  step(d_u, d_f, d_v, d_w, n, grid, block); // warm-up
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  for (int t = 1; t < steps; ++t)
    step(d_u, d_f, d_v, d_w, n, grid, block);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  double sums[3] = {0, 0, 0};
  float *outs[3] = {d_u, d_v, d_w};
  for (int k = 0; k < 3; ++k) {
    CHECK(cudaMemcpy(h.data(), outs[k], n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      sums[k] += h[i];
  }
  printf("checksums %.6f %.6f %.6f\n", sums[0], sums[1], sums[2]);
  printf("time per step %.4f ms\n", ms / (steps - 1));
  return 0;
}
