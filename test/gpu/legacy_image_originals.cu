// The unfused kernel of the second legacy file, in a translation unit of its
// own: its TILE and average3 clash with legacy.cu's.
#include "../../examples/legacy_image.cu"
#include "legacy_harness.h"

void run_legacy_image_originals(const LegacyBuffers &b) {
  blur_rows<<<dim3((b.image_width + TILE - 1) / TILE, (b.image_height + TILE - 1) / TILE),
              dim3(TILE, TILE)>>>(b.image, b.blurred, ImageSize{b.image_width, b.image_height});
}
