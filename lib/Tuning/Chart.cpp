//===- Chart.cpp - a PNG bar chart of one fusion's measurements -----------===//

#include "kfuse/Tuning/Chart.h"

#include "Canvas.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace kfuse {
namespace {

using chart::Canvas;
using chart::CharWidth;
using chart::Rgb;
using chart::RowHeight;

std::string ms(double V) {
  char Buffer[32];
  std::snprintf(Buffer, sizeof Buffer, "%.4f ms", V);
  return Buffer;
}

} // namespace

std::string renderChartPng(const FusionResult &R, const Verdict &V) {
  std::vector<const CandidateResult *> Shown;
  size_t Label = 0;
  double Longest = 0;
  for (const CandidateResult &C : R.Candidates)
    if (C.Valid && C.Median > 0) {
      Shown.push_back(&C);
      Label = std::max(Label, C.Name.size());
      Longest = std::max(Longest, C.Median);
    }
  const int Left = 10 + static_cast<int>(Label) * CharWidth + 10, BarArea = 520;
  const int W = Left + BarArea + 12 * CharWidth, Top = 3 * RowHeight;
  const int H = Top + static_cast<int>(Shown.size()) * RowHeight + RowHeight;
  Canvas Image(W, H);
  const Rgb Ink{20, 20, 20}, Native{150, 150, 150}, Fused{70, 120, 200}, Winner{40, 160, 70};
  Image.text(10, 8, "kfuse tune: " + R.Fusion + " (median time, shorter is faster)", Ink);
  Image.text(10, 8 + RowHeight,
             V.Fuse ? "verdict: fuse with " + V.Fastest->Name : "verdict: keep native launches",
             V.Fuse ? Winner : Ink);
  for (size_t I = 0; I < Shown.size(); ++I) {
    const CandidateResult &C = *Shown[I];
    int Y = Top + static_cast<int>(I) * RowHeight;
    int Length = std::max(1, static_cast<int>(BarArea * C.Median / Longest));
    Rgb Colour = C.native() || C.alone() ? Native : (V.Fuse && &C == V.Fastest ? Winner : Fused);
    Image.text(10, Y + 5, C.Name, Ink);
    Image.fill(Left, Y + 3, Length, RowHeight - 6, Colour);
    Image.text(Left + Length + 6, Y + 5, ms(C.Median), Ink);
  }
  if (V.NativeBest) {
    int X = Left + static_cast<int>(BarArea * V.NativeBest->Median / Longest);
    Image.fill(X, Top - 4, 2, static_cast<int>(Shown.size()) * RowHeight + 8, Rgb{200, 40, 40});
  }
  return Image.png();
}

} // namespace kfuse
