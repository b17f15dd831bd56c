#include <cuda_runtime.h>
#include <cstdio>

__global__ void produce(const float *in, float *tmp, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = in[i] * scale;
}

__global__ void consume(const float *tmp, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] += tmp[i];
}

// A time-step loop: 'd_tmp' lives only from one launch to the next.
void steps(const float *d_in, float *d_out, float scale, int n, int steps) {
  float *d_tmp;
  cudaMalloc(&d_tmp, n * sizeof(float));
  for (int t = 0; t < steps; ++t) {
    produce<<<(n + 255) / 256, 256>>>(d_in, d_tmp, scale, n);
    consume<<<(n + 255) / 256, 256>>>(d_tmp, d_out, n);
  }
  cudaFree(d_tmp);
}

int main() {
  const int n = 1000;
  float *d_in, *d_out, h[n];
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  for (int i = 0; i < n; ++i)
    h[i] = i;
  cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, sizeof h);
  steps(d_in, d_out, 0.5f, n, 3);
  cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("%g %g\n", h[1], h[n - 1]);
  return 0;
}
