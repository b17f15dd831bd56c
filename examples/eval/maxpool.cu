// 2-D max pooling of an NCHW tensor (3x3 windows, stride 2, padding 1, as in
// a ResNet stem), writing the maximum and where it was. Written for this project.
#include "dl_common.cuh"

#define POOL_K 3
#define POOL_STRIDE 2
#define POOL_PAD 1

// Any 1-D block; a grid-stride loop over the output elements.
__global__ void max_pool2d_forward(const float *input, float *output, int *indices,
                                   int planes, int height, int width, int out_height,
                                   int out_width) {
  long long total = (long long)planes * out_height * out_width;
  CUDA_KERNEL_LOOP(index, total) {
    int ow = (int)(index % out_width);
    int oh = (int)((index / out_width) % out_height);
    int plane = (int)(index / ((long long)out_width * out_height));
    int h0 = oh * POOL_STRIDE - POOL_PAD;
    int w0 = ow * POOL_STRIDE - POOL_PAD;
    int h1 = device_min(h0 + POOL_K, height);
    int w1 = device_min(w0 + POOL_K, width);
    h0 = device_max(h0, 0);
    w0 = device_max(w0, 0);
    const float *in_plane = input + (size_t)plane * height * width;
    int best_index = h0 * width + w0;
    float best = in_plane[best_index];
    for (int h = h0; h < h1; ++h)
      for (int w = w0; w < w1; ++w) {
        float v = in_plane[h * width + w];
        if (v > best || v != v) { // NaN propagates, as frameworks do.
          best = v;
          best_index = h * width + w;
        }
      }
    output[index] = best;
    indices[index] = best_index;
  }
}
