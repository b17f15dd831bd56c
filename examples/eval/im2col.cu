// im2col for a convolution: every (channel, kernel offset) row of the column
// matrix holds the input pixels that offset sees at each output position,
// zero outside the padded image. Written for this project.
#include "dl_common.cuh"

// Any 1-D block; a grid-stride loop over channel x output position.
__global__ void im2col_kernel(const float *image, float *columns, int channels, int height,
                              int width, int kernel_h, int kernel_w, int pad, int stride,
                              int out_h, int out_w) {
  long long total = (long long)channels * out_h * out_w;
  CUDA_KERNEL_LOOP(index, total) {
    int w_out = (int)(index % out_w);
    int h_out = (int)((index / out_w) % out_h);
    int channel = (int)(index / ((long long)out_w * out_h));
    int h_in = h_out * stride - pad;
    int w_in = w_out * stride - pad;
    float *col = columns + ((size_t)channel * kernel_h * kernel_w * out_h + h_out) * out_w + w_out;
    const float *im = image + ((size_t)channel * height + h_in) * width + w_in;
    for (int i = 0; i < kernel_h; ++i)
      for (int j = 0; j < kernel_w; ++j) {
        int h = h_in + i, w = w_in + j;
        *col = (h >= 0 && w >= 0 && h < height && w < width) ? im[i * width + j] : 0.0f;
        col += (size_t)out_h * out_w;
      }
  }
}
