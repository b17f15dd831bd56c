// compute-sanitizer racecheck reports hazards in this kernel (CUDA 13.0, H100:
// "Race reported between Write access at ...:NN and Read access at ...") though
// it has none. kfuse's proportional grids run kernels whose barriers count fewer
// threads than the block in the same loop, and racecheck reports them alike.
// Run: nvcc -arch=sm_90 -lineinfo racecheck_partial_barrier.cu -o r &&
//      compute-sanitizer --tool racecheck ./r
// Race-free by construction: a value thread 0 writes before a block-wide
// barrier and every thread reads after it, the next write after a second
// block-wide barrier. On odd iterations warps 0-7 also sync among themselves
// on a named barrier of 256 threads.
#include <cstdio>
__global__ void ticket_loop(int *out, int iters) {
  __shared__ unsigned next;
  __shared__ int buf[256];
  for (int it = 0; it < iters; ++it) {
    if (threadIdx.x == 0) next = it;
    __syncthreads();
    unsigned v = next;
    if (threadIdx.x < 256 && (v & 1u)) {
      buf[threadIdx.x] = v;
      asm volatile("bar.sync 1, 256;" ::: "memory");
      out[blockIdx.x * 256 + threadIdx.x] += buf[255 - threadIdx.x];
      asm volatile("bar.sync 1, 256;" ::: "memory");
    }
    __syncthreads();
  }
}
int main() {
  int *out;
  cudaMalloc(&out, 4 * 256 * sizeof(int));
  cudaMemset(out, 0, 4 * 256 * sizeof(int));
  ticket_loop<<<4, 768>>>(out, 6);
  int h[4 * 256];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("out[0] = %d (expect 1 + 3 + 5 = 9), %s\n", h[0], cudaGetErrorString(cudaGetLastError()));
  return h[0] == 9 ? 0 : 1;
}
