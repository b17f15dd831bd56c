// Batch-norm statistics: the mean and biased variance of every channel of an
// NCHW tensor, one block per channel. Each thread runs Welford's update over
// its share of the channel, warps merge their partial (count, mean, M2) with
// shuffles, and the first warp merges the warps' results from shared memory.
// Written for this project.
#include "dl_common.cuh"

struct WelfordState {
  float mean;
  float m2;
  int count;
};

__device__ __forceinline__ WelfordState welford_merge(WelfordState a, WelfordState b) {
  if (b.count == 0)
    return a;
  if (a.count == 0)
    return b;
  int count = a.count + b.count;
  float delta = b.mean - a.mean;
  float nb_over_n = (float)b.count / (float)count;
  WelfordState r;
  r.mean = a.mean + delta * nb_over_n;
  r.m2 = a.m2 + b.m2 + delta * delta * (float)a.count * nb_over_n;
  r.count = count;
  return r;
}

__device__ __forceinline__ WelfordState warp_welford(WelfordState s) {
#pragma unroll
  for (int offset = C10_WARP_SIZE / 2; offset > 0; offset >>= 1) {
    WelfordState o;
    o.mean = __shfl_xor_sync(0xffffffffu, s.mean, offset);
    o.m2 = __shfl_xor_sync(0xffffffffu, s.m2, offset);
    o.count = __shfl_xor_sync(0xffffffffu, s.count, offset);
    s = welford_merge(s, o);
  }
  return s;
}

// Blocks of any multiple of 32 threads up to 1024; grid: one block per channel.
__global__ void batch_norm_collect_statistics(const float *input, float *save_mean,
                                              float *save_var, int batch, int channels,
                                              int spatial) {
  __shared__ float shared_mean[MAX_BLOCK_WARPS];
  __shared__ float shared_m2[MAX_BLOCK_WARPS];
  __shared__ int shared_count[MAX_BLOCK_WARPS];

  int plane = blockIdx.x;
  int per_channel = batch * spatial;
  WelfordState s = {0.0f, 0.0f, 0};
  for (int i = threadIdx.x; i < per_channel; i += blockDim.x) {
    int n = i / spatial;
    int hw = i - n * spatial;
    float v = input[((size_t)n * channels + plane) * spatial + hw];
    s.count += 1;
    float delta = v - s.mean;
    s.mean += delta / (float)s.count;
    s.m2 += delta * (v - s.mean);
  }
  s = warp_welford(s);

  int lane = threadIdx.x % C10_WARP_SIZE;
  int warp = threadIdx.x / C10_WARP_SIZE;
  if (lane == 0) {
    shared_mean[warp] = s.mean;
    shared_m2[warp] = s.m2;
    shared_count[warp] = s.count;
  }
  __syncthreads();
  if (warp == 0) {
    int warps = blockDim.x / C10_WARP_SIZE;
    WelfordState w = {0.0f, 0.0f, 0};
    if (lane < warps) {
      w.mean = shared_mean[lane];
      w.m2 = shared_m2[lane];
      w.count = shared_count[lane];
    }
    w = warp_welford(w);
    if (lane == 0) {
      save_mean[plane] = w.mean;
      save_var[plane] = w.count > 0 ? w.m2 / (float)w.count : 0.0f;
    }
  }
}
