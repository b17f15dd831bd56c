//===- Canvas.h - pixels, a 5x7 font and a PNG encoder ----------*- C++ -*-===//
//
// Enough graphics for kfuse tune's charts without a graphics library: filled
// rectangles, lines, text in a 5x7 pixel font, and PNG output with deflate's
// fixed codes. Internal to lib/Tuning.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_LIB_TUNING_CANVAS_H
#define KFUSE_LIB_TUNING_CANVAS_H

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kfuse {
namespace chart {

constexpr int Scale = 2, CharWidth = 6 * Scale, RowHeight = 24;

struct Rgb {
  uint8_t R, G, B;
};

class Canvas {
public:
  Canvas(int W, int H) : W(W), H(H), Pixels(size_t(W) * H, Rgb{255, 255, 255}) {}

  void fill(int X, int Y, int Width, int Height, Rgb C) {
    for (int Y1 = std::max(Y, 0); Y1 < std::min(Y + Height, H); ++Y1)
      for (int X1 = std::max(X, 0); X1 < std::min(X + Width, W); ++X1)
        Pixels[size_t(Y1) * W + X1] = C;
  }

  /// \p S in the 5x7 font scaled by 2, its top left corner at (X, Y).
  void text(int X, int Y, const std::string &S, Rgb C);

  /// A line of width 2 from (X0, Y0) to (X1, Y1).
  void line(int X0, int Y0, int X1, int Y1, Rgb C);

  std::string png() const;

private:
  int W, H;
  std::vector<Rgb> Pixels;
};

} // namespace chart
} // namespace kfuse

#endif
