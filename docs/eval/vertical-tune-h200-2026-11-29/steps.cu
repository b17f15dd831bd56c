// A legacy time-step loop: a flux kernel, then an update that reads the
// flux at its own index; the flux lives only between the two launches.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void flux(const float *u, float *f, float c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float left = i > 0 ? u[i - 1] : u[i];
    float right = i + 1 < n ? u[i + 1] : u[i];
    f[i] = c * (right - 2.0f * u[i] + left);
  }
}

__global__ void update(const float *u, const float *f, float *next, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    next[i] = u[i] + dt * f[i];
}

// One run of the solver: the launches kfuse rewrites.
void solve(float *d_a, float *d_b, int n, int steps) {
  float *d_f;
  cudaMalloc(&d_f, n * sizeof(float));
  for (int s = 0; s < steps; ++s) {
    flux<<<(n + 255) / 256, 256>>>(d_a, d_f, 0.25f, n);
    update<<<(n + 255) / 256, 256>>>(d_a, d_f, d_b, 0.1f, n);
    flux<<<(n + 255) / 256, 256>>>(d_b, d_f, 0.25f, n);
    update<<<(n + 255) / 256, 256>>>(d_b, d_f, d_a, 0.1f, n);
  }
  cudaFree(d_f);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 24);
  const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 11;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = (i * 7919 % 1000) / 1000.0f;
  float *d_a, *d_b;
  cudaMalloc(&d_a, n * sizeof(float));
  cudaMalloc(&d_b, n * sizeof(float));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  double checksum = 0;
  for (int r = 0; r < reps + 1; ++r) {
    cudaMemcpy(d_a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_b, 0, n * sizeof(float));
    cudaEventRecord(start);
    solve(d_a, d_b, n, steps);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t;
    cudaEventElapsedTime(&t, start, stop);
    if (r > 0) // The first run warms up.
      ms.push_back(t);
  }
  std::vector<float> out(n);
  cudaMemcpy(out.data(), d_a, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    checksum += out[i] * ((i % 13) + 1);
  std::sort(ms.begin(), ms.end());
  cudaError_t e = cudaGetLastError();
  std::printf("checksum %.6e\nmedian_ms %.4f\nerror %s\n", checksum, ms[ms.size() / 2],
              cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
