// A legacy-style program for `kfuse suggest`: six launches on the default
// stream, written one after the other as such code usually is. Sizes are
// compile-time constants, so suggest can fill in every launch.
//   kfuse suggest examples/suggest/app.cu -o suggested.yaml
//   ncu --csv --page raw --metrics <see docs/suggest.md> ./app > profile.csv
//   kfuse suggest examples/suggest/app.cu --profile profile.csv -o suggested.yaml
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

#define N_VALUES (1 << 24)
#define ROWS 4096
#define COLS 4096
#define N_KEYS (1 << 21)
#define ROUNDS 64
#define N_BYTES (1 << 26)
#define THREADS 256

// y = a * x + y: streams memory.
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// One sum of squares per row: streams memory, one block per row.
__global__ void row_sums(const float *m, float *sums, int rows, int cols) {
  __shared__ float part[THREADS];
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = m[(size_t)blockIdx.x * cols + c];
    s += v * v;
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0 && blockIdx.x < rows)
    sums[blockIdx.x] = part[0];
}

__device__ uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352dU;
  h ^= h >> 15;
  h *= 0x846ca68bU;
  return h ^ (h >> 16);
}

// Many rounds of integer mixing per key: bound by the SMs.
__global__ void hash_keys(const uint32_t *keys, uint32_t *out, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  uint32_t h = keys[i];
  for (int r = 0; r < rounds; ++r)
    h = mix(h + 0x9e3779b9U * (uint32_t)r);
  out[i] = h;
}

// bins[b] += how many bytes equal b; blocks of 256 threads.
__global__ void byte_histogram(const uint8_t *data, unsigned int *bins, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// dst = s * src: streams memory.
__global__ void scale_copy(const float *src, float *dst, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = s * src[i];
}

int main() {
  float *d_x, *d_y, *d_sums, *d_src, *d_dst;
  uint32_t *d_keys, *d_hashes, *d_keys2, *d_hashes2;
  uint8_t *d_bytes;
  unsigned int *d_bins;
  CHECK(cudaMalloc(&d_x, N_VALUES * sizeof(float)));
  CHECK(cudaMalloc(&d_y, N_VALUES * sizeof(float)));
  CHECK(cudaMalloc(&d_sums, ROWS * sizeof(float)));
  CHECK(cudaMalloc(&d_keys, N_KEYS * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_hashes, N_KEYS * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_keys2, N_KEYS * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_hashes2, N_KEYS * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_bytes, N_BYTES));
  CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_src, N_VALUES * sizeof(float)));
  CHECK(cudaMalloc(&d_dst, N_VALUES * sizeof(float)));
  CHECK(cudaMemset(d_x, 0, N_VALUES * sizeof(float)));
  CHECK(cudaMemset(d_y, 0, N_VALUES * sizeof(float)));
  CHECK(cudaMemset(d_keys, 1, N_KEYS * sizeof(uint32_t)));
  CHECK(cudaMemset(d_keys2, 2, N_KEYS * sizeof(uint32_t)));
  CHECK(cudaMemset(d_bytes, 3, N_BYTES));
  CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));
  CHECK(cudaMemset(d_src, 0, N_VALUES * sizeof(float)));

  const int blocks = (N_VALUES + THREADS - 1) / THREADS;
  saxpy<<<blocks, THREADS>>>(2.0f, d_x, d_y, N_VALUES);
  row_sums<<<ROWS, THREADS>>>(d_y, d_sums, ROWS, COLS);
  hash_keys<<<N_KEYS / THREADS, THREADS>>>(d_keys, d_hashes, N_KEYS, ROUNDS);
  byte_histogram<<<264, 256>>>(d_bytes, d_bins, N_BYTES);
  hash_keys<<<N_KEYS / THREADS, THREADS>>>(d_keys2, d_hashes2, N_KEYS, ROUNDS);
  CHECK(cudaDeviceSynchronize());
  scale_copy<<<blocks, THREADS>>>(d_src, d_dst, 0.5f, N_VALUES);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<unsigned int> bins(256);
  CHECK(cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  std::printf("app: bin 3 holds %u bytes\n", bins[3]);
  return bins[3] == N_BYTES ? 0 : 1;
}
