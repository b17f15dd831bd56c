// The vertical fusions kfuse emitted; KFUSE_VERTICAL_FILE names the generated source.
#include KFUSE_VERTICAL_FILE
#include "vertical_harness.h"

namespace {
kfuse_launch elements(const VerticalBuffers &b) { return {elementGrid(b), dim3(256), 0}; }
kfuse_launch image(const VerticalBuffers &b) { return {imageGrid(b), dim3(16, 16), 0}; }
kfuse_launch hashes() { return {dim3(264), dim3(256), 0}; }
} // namespace

cudaError_t chain_fused(const VerticalBuffers &b) {
  return chain_launch(elements(b), b.x, b.alpha, b.n, elements(b), b.bias, b.channels, elements(b),
                      b.out, b.slope);
}

cudaError_t map_reduce_fused(const VerticalBuffers &b) {
  return map_reduce_launch(elements(b), b.x, b.n, elements(b), b.partial);
}

cudaError_t filter_fused(const VerticalBuffers &b) {
  return filter_launch(image(b), b.img, b.bright, b.gain, b.offset, b.width, b.height, image(b),
                       b.smooth);
}

cudaError_t chain_hash_fused(const VerticalBuffers &b) {
  return chain_hash_launch(elements(b), b.x, b.alpha, b.n, elements(b), b.bias, b.channels,
                           elements(b), b.out, b.slope, hashes(), b.words, b.hashed, b.words_n,
                           b.rounds);
}

cudaError_t square_then_hash_fused(const VerticalBuffers &b) {
  return square_then_hash_launch(elements(b), b.x, b.squares, b.n, hashes(), b.words, b.hashed,
                                 b.words_n, b.rounds);
}
