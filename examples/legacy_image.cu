// A second legacy-style file whose names clash with legacy.cu's: its own TILE
// and its own average3 mean something else here. kfuse renames this file's
// average3 and redefines TILE around each kernel. Written for this project.
#define TILE 16

struct ImageSize {
  int width, height;
};

// Weights (1, 2, 1) / 4; static, so both files link into one program.
static __device__ float average3(float left, float mid, float right) {
  return 0.25f * left + 0.5f * mid + 0.25f * right;
}

// Blurs each row of an image; blocks of (TILE, TILE) on a 2-D grid stage
// their tile and one halo column on either side in shared memory.
__global__ void blur_rows(const float *in, float *out, ImageSize size) {
  __shared__ float tile[TILE][TILE + 2];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  bool inside = x < size.width && y < size.height;
  tile[threadIdx.y][threadIdx.x + 1] = inside ? in[(size_t)y * size.width + x] : 0.0f;
  if (threadIdx.x == 0)
    tile[threadIdx.y][0] = x > 0 && y < size.height ? in[(size_t)y * size.width + x - 1] : 0.0f;
  if (threadIdx.x == TILE - 1)
    tile[threadIdx.y][TILE + 1] =
        x + 1 < size.width && y < size.height ? in[(size_t)y * size.width + x + 1] : 0.0f;
  __syncthreads();
  if (inside)
    out[(size_t)y * size.width + x] =
        average3(tile[threadIdx.y][threadIdx.x], tile[threadIdx.y][threadIdx.x + 1],
                 tile[threadIdx.y][threadIdx.x + 2]);
}
