// A time step of three grid-stride kernels, as legacy solvers write them:
// x -> y -> z -> out, with y and z dead after the step. kfuse suggest
// proposes the chain with y and z as temporaries; kfuse runs the three loops
// in step so that they stay in registers. Prints a checksum of out and the
// median time of a step (CUDA events, after a warm-up).
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

#define GRID_STRIDE (blockDim.x * gridDim.x)

__global__ void scale(const float *x, float *y, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += GRID_STRIDE)
    y[i] = alpha * x[i];
}

__global__ void shift(const float *in, float *out, float beta, int n) {
  const float twice = 2.0f * beta;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i] + twice;
    out[i] = v * v;
  }
}

__global__ void clamp(const float *in, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += GRID_STRIDE)
    out[i] = out[i] * 0.5f + fminf(in[i], 1.0f);
}

static void step(const float *x, float *y, float *z, float *out, int n, int grid) {
  scale<<<grid, 256>>>(x, y, 0.75f, n);
  shift<<<grid, 256>>>(y, z, -0.125f, n);
  clamp<<<grid, 256>>>(z, out, n);
}

int main() {
  const int n = 1 << 24;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int grid = 8 * sms;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = static_cast<float>((i * 37) % 1000) / 500.0f - 1.0f;
  float *x, *y, *z, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, n * sizeof(float));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int s = 0; s < 10; ++s)
    step(x, y, z, out, n, grid);
  std::vector<float> times;
  for (int s = 0; s < 200; ++s) {
    cudaEventRecord(start);
    step(x, y, z, out, n, grid);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : h)
    sum += v;
  std::sort(times.begin(), times.end());
  printf("checksum %.6f\n", sum);
  printf("ms per step %.4f (median of %zu)\n", times[times.size() / 2], times.size());
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  cudaFree(out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
