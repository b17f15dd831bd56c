// Bilinear 2-D upsampling of an NCHW tensor with align_corners=false: each
// output pixel maps back to a source position and blends its four
// neighbours. Written for this project.
#include "dl_common.cuh"

__device__ __forceinline__ float source_index(float scale, int dst_index, int input_size) {
  float src = scale * (dst_index + 0.5f) - 0.5f;
  return src < 0.0f ? 0.0f : src;
}

// Any 1-D block; a grid-stride loop over the output elements.
__global__ void upsample_bilinear2d(const float *input, float *output, int planes, int in_h,
                                    int in_w, int out_h, int out_w, float scale_h,
                                    float scale_w) {
  long long total = (long long)planes * out_h * out_w;
  CUDA_KERNEL_LOOP(index, total) {
    int ow = (int)(index % out_w);
    int oh = (int)((index / out_w) % out_h);
    int plane = (int)(index / ((long long)out_w * out_h));

    float h_src = source_index(scale_h, oh, in_h);
    int h_lo = (int)h_src;
    int h_step = h_lo < in_h - 1 ? 1 : 0;
    float h_lambda1 = h_src - h_lo;
    float h_lambda0 = 1.0f - h_lambda1;

    float w_src = source_index(scale_w, ow, in_w);
    int w_lo = (int)w_src;
    int w_step = w_lo < in_w - 1 ? 1 : 0;
    float w_lambda1 = w_src - w_lo;
    float w_lambda0 = 1.0f - w_lambda1;

    const float *p = input + (size_t)plane * in_h * in_w + h_lo * in_w + w_lo;
    output[index] = h_lambda0 * (w_lambda0 * p[0] + w_lambda1 * p[w_step]) +
                    h_lambda1 * (w_lambda0 * p[h_step * in_w] +
                                 w_lambda1 * p[h_step * in_w + w_step]);
  }
}
