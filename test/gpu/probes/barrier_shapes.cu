// Which barrier shapes does compute-sanitizer's synccheck accept? One block of
// 256 threads; warps 0-3 and warps 4-7 reach barrier 2 (count 256) from
// different places. Usage: nvcc -arch=sm_90 barrier_shapes.cu -o shapes &&
// for c in 1 2 3 4 5 6; do compute-sanitizer --tool synccheck ./shapes $c; done
// Results are in docs/gpu-check.md; they decided how kfuse's exit-aware
// barriers arrive (barrier.sync from any place, never barrier.red).
#include <cstdio>
#include <cstdlib>

#define SYNC() asm volatile("barrier.sync 2, 256;" ::: "memory")
#define ARRIVE() asm volatile("barrier.arrive 2, 256;" ::: "memory")
__device__ __forceinline__ unsigned red_and(unsigned p) {
  unsigned r;
  asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, %1, 0;\n\tbarrier.red.and.pred q, 2, 256, p;"
               "\n\tselp.u32 %0, 1, 0, q;\n\t}"
               : "=r"(r)
               : "r"(p)
               : "memory");
  return r;
}
__device__ __noinline__ void sync_in_function() { SYNC(); }

template <int Case> __global__ void shapes(unsigned *out) {
  __shared__ unsigned s[256];
  unsigned t = threadIdx.x;
  bool low = t < 128;
  s[t] = t;
  if (Case == 1) { if (low) { s[t] += 1; SYNC(); } else { s[t] += 2; SYNC(); } }
  if (Case == 2) { if (low) out[t] = red_and(1); else out[t] = red_and(0); }
  if (Case == 3) { if (low) ARRIVE(); else { SYNC(); out[t] = s[255 - t]; } }
  if (Case == 4) { if (low) sync_in_function(); else { s[t] += 2; sync_in_function(); } }
  if (Case == 5) { if (low) { for (int k = 0; k < 2; ++k) SYNC(); } else { SYNC(); s[t] += 2; SYNC(); } }
  if (Case == 6) { if (low) { s[t] += 1; __syncthreads(); } else { s[t] += 2; __syncthreads(); } }
  out[256 + t] = s[(t + 1) % 256];
}

template <int Case> void run(unsigned *out) {
  shapes<Case><<<1, 256>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("case %d: %s\n", Case, cudaGetErrorString(e));
}

int main(int argc, char **argv) {
  unsigned *out;
  cudaMalloc(&out, 512 * sizeof(unsigned));
  switch (argc > 1 ? std::atoi(argv[1]) : 0) {
  case 1: run<1>(out); break;
  case 2: run<2>(out); break;
  case 3: run<3>(out); break;
  case 4: run<4>(out); break;
  case 5: run<5>(out); break;
  case 6: run<6>(out); break;
  default: std::printf("usage: shapes 1..6\n"); return 2;
  }
  return 0;
}
