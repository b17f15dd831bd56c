// The vertical fusions of configs/vertical.yaml, run as the original launches
// and through kfuse's launchers, on the same device buffers.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

struct VerticalBuffers {
  // chain: out = leaky(alpha * x + bias[i % channels]); y and z are the
  // originals' temporaries.
  const float *x, *bias;
  float *y, *z, *out;
  float alpha, slope;
  int channels, n;
  // map_reduce: partial[b] = sum over block b of x^2; squares is its temporary.
  float *squares, *partial;
  // filter: bright = gain * img + offset, smooth = tile-local stencil of it.
  const float *img;
  float *bright, *smooth;
  float gain, offset;
  int width, height;
  // hash beside or after the others.
  const uint32_t *words;
  uint32_t *hashed;
  int words_n, rounds;
};

inline dim3 elementGrid(const VerticalBuffers &b) { return dim3((b.n + 255) / 256); }
inline dim3 imageGrid(const VerticalBuffers &b) {
  return dim3((b.width + 15) / 16, (b.height + 15) / 16);
}

// Each runs one fusion's original kernels (suffix _original) or its fused
// launcher (suffix _fused) on the default stream.
#define KFUSE_VERTICAL_FUSIONS(X) X(chain) X(map_reduce) X(filter) X(chain_hash) X(square_then_hash)
#define KFUSE_DECLARE(name)                                                                        \
  void name##_original(const VerticalBuffers &b);                                                  \
  cudaError_t name##_fused(const VerticalBuffers &b);
KFUSE_VERTICAL_FUSIONS(KFUSE_DECLARE)
#undef KFUSE_DECLARE
