// Checks the fused kernels of config.yaml against the original launches, bit
// for bit (build with -fmad=false), on ragged sizes, on fewer blocks than one
// iteration takes, and with buffers that are the same buffer (in place): the
// kernels of one thread per element, then the grid-stride loops.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "../check_util.h"
#include "buffers.h"

namespace {

struct Case {
  const char *name;
  int n;
  unsigned m;
  int words;
  bool inPlace;
};

template <typename T> T *upload(const std::vector<T> &h) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// The outputs of one run from the same inputs, as bytes.
std::vector<unsigned char> run(const Case &c, int coarsen, bool fused, bool loops) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> f(-4, 4);
  std::vector<float> x(c.n), y(c.n);
  std::vector<double> dx(c.m), dz(c.m);
  std::vector<uint32_t> in(c.words), out(c.words, 0);
  std::vector<float> ta(c.m), tb(c.m), tc(c.m);
  for (auto &v : x) v = f(rng);
  for (auto &v : y) v = f(rng);
  for (auto &v : dx) v = f(rng);
  for (auto &v : dz) v = f(rng);
  for (auto &v : in) v = rng();
  for (auto *t : {&ta, &tb, &tc})
    for (auto &v : *t) v = f(rng);
  float *dX = upload(x), *dY = upload(y);
  double *dDx = upload(dx), *dDz = upload(dz);
  uint32_t *dIn = upload(in), *dOut = upload(out);
  float *dTa = upload(ta), *dTb = upload(tb), *dTc = upload(tc);
  unsigned axpyBlocks = std::min((c.n + 127) / 128, 37);
  Buffers b{c.n,   1.5f,  c.inPlace ? dY : dX, dY,  c.m,   c.inPlace ? dDz : dDx,
            dDz,   c.words, 32,                dIn, dOut,  c.m,
            dTa,   c.inPlace ? dTa : dTb,      dTc, 0.75f, axpyBlocks};
  if (fused)
    CHECK(runFused(b, coarsen, loops));
  else
    runOriginals(b, loops);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> bytes;
  auto append = [&](const void *d, size_t size) {
    size_t at = bytes.size();
    bytes.resize(at + size);
    CHECK(cudaMemcpy(bytes.data() + at, d, size, cudaMemcpyDeviceToHost));
  };
  append(dY, c.n * sizeof(float));
  append(dDz, c.m * sizeof(double));
  append(dOut, c.words * sizeof(uint32_t));
  append(dTa, c.m * sizeof(float));
  for (void *p : {(void *)dX, (void *)dY, (void *)dDx, (void *)dDz, (void *)dIn, (void *)dOut,
                  (void *)dTa, (void *)dTb, (void *)dTc})
    CHECK(cudaFree(p));
  return bytes;
}

} // namespace

int main(int argc, char **argv) {
  // Under the sanitizers, the small cases only.
  bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  const Case cases[] = {
      {"ragged", 1000003, 777777, 500001, false},
      {"in place", 1000003, 777777, 500001, true},
      {"fewer blocks than an iteration", 1, 129, 300, false},
      {"large", 1 << 25, 1u << 23, 1 << 22, false},
  };
  int failures = 0;
  for (bool loops : {false, true})
    for (const Case &c : cases)
      for (int coarsen : {2, 4}) {
        if (small && c.n > 2000000)
          continue;
        std::vector<unsigned char> want = run(c, coarsen, false, loops),
                                   got = run(c, coarsen, true, loops);
        size_t differ = 0;
        for (size_t k = 0; k < want.size(); ++k)
          differ += want[k] != got[k];
        std::printf("%-6s %-32s coarsen %d: %s (%zu of %zu bytes differ)\n",
                    loops ? "loops" : "blocks", c.name, coarsen,
                    differ ? "MISMATCH" : "same bits", differ, want.size());
        failures += differ != 0;
      }
  std::printf("reads-ahead check: %s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
