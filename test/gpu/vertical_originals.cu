// The unfused kernels of examples/vertical.cu, launched as their authors would.
#include "../../examples/vertical.cu"
#include "vertical_harness.h"

void chain_original(const VerticalBuffers &b) {
  scale<<<elementGrid(b), 256>>>(b.x, b.y, b.alpha, b.n);
  add_bias<<<elementGrid(b), 256>>>(b.y, b.bias, b.z, b.channels, b.n);
  activate<<<elementGrid(b), 256>>>(b.z, b.out, b.slope, b.n);
}

void map_reduce_original(const VerticalBuffers &b) {
  square<<<elementGrid(b), 256>>>(b.x, b.squares, b.n);
  block_sum<<<elementGrid(b), 256>>>(b.squares, b.partial, b.n);
}

void filter_original(const VerticalBuffers &b) {
  brighten<<<imageGrid(b), dim3(16, 16)>>>(b.img, b.bright, b.gain, b.offset, b.width, b.height);
  tile_smooth<<<imageGrid(b), dim3(16, 16)>>>(b.bright, b.smooth, b.width, b.height);
}

void chain_hash_original(const VerticalBuffers &b) {
  chain_original(b);
  hash_words<<<264, 256>>>(b.words, b.hashed, b.words_n, b.rounds);
}

void square_then_hash_original(const VerticalBuffers &b) {
  square<<<elementGrid(b), 256>>>(b.x, b.squares, b.n);
  hash_words<<<264, 256>>>(b.words, b.hashed, b.words_n, b.rounds);
}
