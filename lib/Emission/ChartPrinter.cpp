//===- ChartPrinter.cpp - an SVG bar chart of one fusion's measurements ---===//

#include "kfuse/Emission/TuningReports.h"

#include "Svg.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

namespace kfuse {
namespace {

using svg::Anchor;
using svg::CharWidth;
using svg::Colour;
using svg::RowHeight;

std::string ms(double V) {
  char Buffer[32];
  std::snprintf(Buffer, sizeof Buffer, "%.4f ms", V);
  return Buffer;
}

} // namespace

std::string renderChartSvg(const FusionResult &R, const Verdict &V) {
  std::vector<const CandidateResult *> Shown;
  double Label = 0, Longest = 0, Value = 0;
  for (const CandidateResult &C : R.Candidates)
    if (C.Valid && C.Median > 0) {
      Shown.push_back(&C);
      Label = std::max(Label, svg::textWidth(C.Name));
      Longest = std::max({Longest, C.Median, C.P75});
      Value = std::max(Value, svg::textWidth(ms(C.Median)));
    }
  const Colour Ink{20, 20, 20}, Native{150, 150, 150}, Fused{70, 120, 200}, Winner{40, 160, 70},
      Best{200, 40, 40};
  const std::string Title = "kfuse tune: " + R.Fusion +
                            " (median time; whiskers from the 25th to the 75th percentile; "
                            "shorter is faster)";
  const std::string Said =
      V.Fuse ? "verdict: fuse with " + V.Fastest->Name : "verdict: keep the original launches";
  const std::string BestLabel =
      V.NativeBest ? "native best: " + V.NativeBest->Name + ", " + ms(V.NativeBest->Median) : "";
  const double Left = 10 + Label + 10, BarArea = 520, Top = 4 * RowHeight;
  const double W = std::max({Left + BarArea + 6 + Value + 10, 20 + svg::textWidth(Title),
                             20 + svg::textWidth(Said), 20 + svg::textWidth(BestLabel)});
  const double H = Top + Shown.size() * RowHeight + RowHeight / 2;
  svg::Document Chart(W, H);
  Chart.text("title", 10, RowHeight, Title, Ink);
  Chart.text("verdict", 10, 2 * RowHeight, Said, V.Fuse ? Winner : Ink);
  // Nothing measured longer than 0 ms draws every bar empty, not at x="inf".
  auto X = [&](double Ms) { return Longest > 0 ? Left + BarArea * Ms / Longest : Left; };
  std::optional<double> BestX;
  if (V.NativeBest)
    BestX = X(V.NativeBest->Median);
  for (size_t I = 0; I < Shown.size(); ++I) {
    const CandidateResult &C = *Shown[I];
    double Y = Top + I * RowHeight;
    Colour Fill = C.native() || C.alone() ? Native : (V.Fuse && &C == V.Fastest ? Winner : Fused);
    Chart.text("label", 10, Y + 15, C.Name, Ink);
    Chart.rect("bar", Left, Y + 4, std::max(1.0, X(C.Median) - Left), RowHeight - 8, Fill);
    double End = X(C.Median);
    if (C.P25 > 0 && C.P75 >= C.P25) {
      double Mid = Y + RowHeight / 2;
      Chart.line("whisker", X(C.P25), Mid, X(C.P75), Mid, Ink);
      Chart.line("whisker", X(C.P25), Mid - 4, X(C.P25), Mid + 4, Ink);
      Chart.line("whisker", X(C.P75), Mid - 4, X(C.P75), Mid + 4, Ink);
      End = std::max(End, X(C.P75));
    }
    // Right of the bar and its whisker, and of the native-best line when it
    // would cross the text, so nothing is drawn over it.
    double TX = End + 6;
    if (BestX && TX < *BestX + 2 && TX + svg::textWidth(ms(C.Median)) > *BestX - 2)
      TX = *BestX + 6;
    Chart.text("value", TX, Y + 15, ms(C.Median), Ink);
  }
  if (BestX) {
    double BX = *BestX;
    Chart.line("native-best", BX, Top - 6, BX, Top + Shown.size() * RowHeight, Best, 2, true);
    // Above the bars, on its own row, ending at the line when it would run
    // off the right edge.
    bool FitsRight = BX + svg::textWidth(BestLabel) + 10 <= W;
    Chart.text("native-best-label", FitsRight ? BX : std::max(10.0, BX - svg::textWidth(BestLabel)),
               3 * RowHeight, BestLabel, Best);
  }
  return Chart.str();
}

} // namespace kfuse
