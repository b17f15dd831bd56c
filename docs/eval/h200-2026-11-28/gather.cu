// Random 4-byte loads against a streaming copy: rates, and under ncu (with an argument) the DRAM bytes per load.
// Run on the H200 of docs/benchmarks.md (2026-11-28): nvcc -O3 -arch=sm_90 gather.cu && ./a.out && ncu --csv --page raw --metrics gpu__time_duration.sum,dram__bytes.sum,dram__bytes_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum ./a.out 1
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
__global__ void gather(const float *__restrict__ t, float *out, unsigned mask, int iters) {
  unsigned h = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u + 12345u;
  float s = 0;
  for (int i = 0; i < iters; ++i) {
    h ^= h << 13; h ^= h >> 17; h ^= h << 5;
    s += t[h & mask];
  }
  if (s == 1.2345f) out[0] = s;
}
__global__ void copy(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}
template <class F> float ms(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> v;
  for (int r = 0; r < 9; ++r) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float t; cudaEventElapsedTime(&t, a, b); if (r >= 2) v.push_back(t); }
  std::sort(v.begin(), v.end()); return v[v.size() / 2];
}
int main(int argc, char **argv) {
  bool once = argc > 1;
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  int sms = p.multiProcessorCount;
  unsigned n = 1u << 27; // 512 MB of floats
  float *t, *o; cudaMalloc(&t, size_t(n) * 4); cudaMalloc(&o, 4); cudaMemset(t, 0, size_t(n) * 4);
  size_t cn = size_t(p.l2CacheSize) * 8 / 16; float4 *ci, *co; cudaMalloc(&ci, cn * 16); cudaMalloc(&co, cn * 16);
  int iters = 256;
  if (once) { // under ncu: one launch each, 64 warps/SM
    gather<<<sms * 8, 256>>>(t, o, n - 1, iters); copy<<<sms * 32, 64>>>(ci, co, cn); cudaDeviceSynchronize(); return 0;
  }
  double best = 0;
  for (int w : {8, 16, 32, 48, 64}) {
    float c = ms([&] { copy<<<sms * (w / 2), 64>>>(ci, co, cn); });
    best = std::max(best, 2.0 * cn * 16 / (c * 1e3));
  }
  printf("copy best %.0f bytes/us\n", best);
  for (int w : {4, 8, 16, 24, 32, 48, 64}) {
    int blocks = sms * w / 8;
    float g = ms([&] { gather<<<blocks, 256>>>(t, o, n - 1, iters); });
    double loads = double(blocks) * 256 * iters;
    printf("gather warps/SM %d: %.0f loads/us (x32 B = %.2f of copy, x64 B = %.2f)\n", w, loads / (g * 1e3), loads * 32 / (g * 1e3) / best, loads * 64 / (g * 1e3) / best);
  }
  return 0;
}
