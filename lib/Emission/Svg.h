//===- Svg.h - a small SVG writer for kfuse tune's charts -------*- C++ -*-===//
//
// Rectangles, lines and text, each with a class that says what it shows, so
// tests can read a chart back. SVG renders on code-hosting pages, scales,
// and draws every character in the viewer's own font. Internal to
// lib/Emission.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_LIB_EMISSION_SVG_H
#define KFUSE_LIB_EMISSION_SVG_H

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kfuse {
namespace svg {

/// Text is set in a monospace font of this size, so its width is known:
/// about 0.6 em per character.
constexpr double FontSize = 12, CharWidth = 0.6 * FontSize, RowHeight = 22;

struct Colour {
  uint8_t R, G, B;
};

enum class Anchor { Start, Middle, End };

/// Width of \p Text in the chart's font.
inline double textWidth(const std::string &Text) { return CharWidth * Text.size(); }

class Document {
public:
  Document(double Width, double Height);

  void rect(const char *Class, double X, double Y, double W, double H, Colour Fill);
  /// An outlined square, for a second round of a palette's colours.
  void hollowRect(const char *Class, double X, double Y, double W, double H, Colour Stroke);
  void line(const char *Class, double X0, double Y0, double X1, double Y1, Colour Stroke,
            double Width = 1, bool Dashed = false);
  /// \p Text with its baseline at \p Y.
  void text(const char *Class, double X, double Y, const std::string &Text, Colour Fill,
            Anchor A = Anchor::Start);

  std::string str() const;

private:
  double Width, Height;
  std::ostringstream Body;
};

/// Rows of bars in groups: a row naming each group, then a row per bar
/// labelled with its Label, which \p Draw draws at the row's top.
template <typename Bar, typename DrawBar>
void groupedRows(Document &Chart, double Top,
                 const std::vector<std::pair<std::string, std::vector<Bar>>> &Groups, Colour Ink,
                 DrawBar Draw) {
  double Y = Top;
  for (const auto &[Group, Bars] : Groups) {
    Chart.text("fusion", 10, Y + RowHeight * 0.7, Group, Ink);
    Y += RowHeight;
    for (const Bar &B : Bars) {
      Chart.text("candidate", 20, Y + RowHeight * 0.7, B.Label, Ink);
      Draw(B, Y);
      Y += RowHeight;
    }
  }
}

} // namespace svg
} // namespace kfuse

#endif
