//===- EvaluationPrinter.cpp - evaluation.md and the time-ratio chart -----===//

#include "kfuse/Emission/TuningReports.h"

#include "kfuse/Tuning/Format.h"

#include "Svg.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kfuse {

namespace {

std::string ms(const CandidateResult *C) { return C ? fixed(C->Median, 4) : "-"; }
std::string times(double V) { return V > 0 ? fixed(V, 3) + "x" : "-"; }

std::string joined(const std::vector<std::string> &Parts, const char *Separator) {
  std::string S;
  for (const std::string &P : Parts)
    S += (S.empty() ? "" : Separator) + P;
  return S;
}

std::string nativeResources(const EvaluationRow &Row, int NativeKernel::*Field) {
  if (Row.Natives.empty())
    return "-";
  std::vector<std::string> Parts;
  for (const NativeKernel &K : Row.Natives)
    Parts.push_back(std::to_string(K.*Field));
  return joined(Parts, "/");
}

std::string summary(const EvaluationRow &Row) {
  std::ostringstream OS;
  OS << "- **" << Row.Fusion << "**: ";
  if (!Row.NativeBest || !Row.BestFused)
    return OS.str() + "not measured.\n";
  OS << (Row.Fuse ? "fuse with " + Row.BestFused->Name : "keep the original launches") << ", "
     << times(Row.tunedSpeedup()) << " over native best (" << Row.NativeBest->Name << ")";
  if (Row.Overlap != 0)
    OS << ", " << fixed(100 * Row.Overlap, 0) << "% of the perfect overlap";
  OS << "; the fastest fused variant " << Row.BestFused->Name << " "
     << times(Row.speedup(Row.BestFused));
  if (Row.Even)
    OS << ", the even split " << times(Row.speedup(Row.Even));
  if (Row.Vertical)
    OS << ", vertical " << times(Row.speedup(Row.Vertical));
  if (Row.Bound && Row.Bound->ratio() > 0) {
    const double MiB = 1024.0 * 1024.0;
    OS << "; bytes bound " << times(Row.Bound->ratio()) << " (the originals move "
       << fixed(Row.Bound->Original / MiB, 1) << " MiB, the fused kernel "
       << fixed(Row.Bound->Fused / MiB, 1) << " MiB), the tuned choice at "
       << fixed(100 * Row.tunedSpeedup() / Row.Bound->ratio(), 0) << "% of it";
  }
  if (Row.Ratio > 0)
    OS << "; time ratio " << fixed(Row.Ratio, 2);
  OS << "; " << Row.BestFused->Registers << " registers (originals "
     << nativeResources(Row, &NativeKernel::Registers) << "), " << Row.BestFused->BlocksPerSm
     << " blocks/SM of " << Row.BestFused->BlockThreads << " threads (originals "
     << nativeResources(Row, &NativeKernel::BlocksPerSm) << " of "
     << nativeResources(Row, &NativeKernel::BlockThreads) << ")";
  if (Row.BestFused->SpillBytes)
    OS << ", " << Row.BestFused->SpillBytes << " bytes spilled";
  OS << ".\n";
  return OS.str();
}

} // namespace

std::string printEvaluation(const TuneResults &R, const std::vector<EvaluationRow> &Rows) {
  std::ostringstream OS;
  OS << "# kfuse evaluation\n\n"
     << "Device: " << R.Device << " (sm_" << R.Sm << "), CUDA driver API " << R.DriverApi
     << ", runtime " << R.Runtime << ", input seed " << R.Seed
     << ". Medians in ms; speedups over native best, the fastest of the four native "
        "launches.\n\n"
     << "![native best, untuned and tuned per fusion](" << SummaryChartFileName << ")\n\n"
     << "![speedup of the fastest fused variant against the time ratio of the kernels]("
     << RatioChartFileName << ")\n\n"
     << "## Times\n\n"
     << "| fusion | kernels | alone | ratio | sequential | streams | streams reversed | graph "
        "| vertical | even split | tuned |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const EvaluationRow &Row : Rows) {
    std::vector<std::string> Alone;
    for (double A : Row.Alone)
      Alone.push_back(A > 0 ? fixed(A, 4) : "-");
    OS << "| " << Row.Fusion << " | " << joined(Row.Kernels, " + ") << " | " << joined(Alone, " / ")
       << " | " << (Row.Ratio > 0 ? fixed(Row.Ratio, 2) : "-") << " | " << ms(Row.Sequential)
       << " | " << ms(Row.Streams) << " | " << ms(Row.StreamsReversed) << " | " << ms(Row.Graph)
       << " | " << ms(Row.Vertical) << " | " << ms(Row.Even) << " | "
       << (Row.TunedMs > 0 ? fixed(Row.TunedMs, 4) : "-") << " |\n";
  }
  OS << "\n## Speedups and resources\n\n"
     << "| fusion | native best | vertical | even split | fastest fused | kfuse tuned | "
        "perfect overlap | registers fused (originals) | blocks/SM fused (originals) | "
        "spill B |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const EvaluationRow &Row : Rows) {
    const CandidateResult *B = Row.BestFused;
    OS << "| " << Row.Fusion << " | " << (Row.NativeBest ? Row.NativeBest->Name : "-") << " | "
       << times(Row.speedup(Row.Vertical)) << " | " << times(Row.speedup(Row.Even)) << " | "
       << (B ? B->Name + " " + times(Row.speedup(B)) : "-") << " | " << times(Row.tunedSpeedup())
       << (Row.Fuse ? "" : " (kept)") << " | "
       << (Row.Overlap != 0 ? fixed(100 * Row.Overlap, 0) + "%" : "-") << " | "
       << (B ? std::to_string(B->Registers) : "-") << " ("
       << nativeResources(Row, &NativeKernel::Registers) << ") | "
       << (B ? std::to_string(B->BlocksPerSm) + " x " + std::to_string(B->BlockThreads) : "-")
       << " (" << nativeResources(Row, &NativeKernel::BlocksPerSm) << ") | "
       << (B ? std::to_string(B->SpillBytes) : "-") << " |\n";
  }
  OS << "\n## Summary\n\n";
  for (const EvaluationRow &Row : Rows)
    OS << summary(Row);
  return OS.str();
}

std::string renderRatioChartSvg(const TuneResults &R, const std::vector<EvaluationRow> &Rows) {
  using svg::Anchor;
  using svg::CharWidth;
  using svg::Colour;
  using svg::RowHeight;
  static const Colour Palette[] = {
      {31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
      {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
  const size_t Colours = sizeof Palette / sizeof Palette[0];
  std::vector<std::string> Groups;
  double XLo = -2, XHi = 2, YLo = 0.8, YHi = 1.2;
  for (const EvaluationRow &Row : Rows) {
    if (std::find(Groups.begin(), Groups.end(), Row.Group) == Groups.end())
      Groups.push_back(Row.Group);
    if (Row.Ratio > 0 && Row.BestFused) {
      XLo = std::min(XLo, std::floor(std::log2(Row.Ratio)));
      XHi = std::max(XHi, std::ceil(std::log2(Row.Ratio)));
      YLo = std::min(YLo, Row.speedup(Row.BestFused) - 0.05);
      YHi = std::max(YHi, Row.speedup(Row.BestFused) + 0.05);
    }
  }
  YLo = std::floor(YLo * 10) / 10;
  YHi = std::ceil(YHi * 10) / 10;
  double Legend = 0;
  for (const std::string &G : Groups)
    Legend = std::max(Legend, svg::textWidth(G));
  const std::string Title =
      "speedup of the fastest fused variant over native best, against the time ratio of the "
      "kernels";
  const double Left = 60, Top = 3 * RowHeight, PlotW = 640, PlotH = 420;
  const double W = std::max(Left + PlotW + 30 + 20 + Legend + 10, 20 + svg::textWidth(Title));
  const double H = std::max(Top + PlotH + 2 * RowHeight + 10, Top + Groups.size() * RowHeight + 10);
  svg::Document Chart(W, H);
  const Colour Ink{20, 20, 20}, Grid{220, 220, 220}, Unity{200, 40, 40};
  // Past the palette's ten colours, groups repeat them as hollow squares.
  auto Mark = [&](double CX, double CY, size_t G) {
    if (G / Colours % 2)
      Chart.hollowRect("marker", CX - 4, CY - 4, 8, 8, Palette[G % Colours]);
    else
      Chart.rect("marker", CX - 4.5, CY - 4.5, 9, 9, Palette[G % Colours]);
  };
  auto X = [&](double Log2) { return Left + PlotW * (Log2 - XLo) / (XHi - XLo); };
  auto Y = [&](double S) { return Top + PlotH * (YHi - S) / (YHi - YLo); };
  Chart.text("title", 10, RowHeight, Title, Ink);
  Chart.text("device", 10, 2 * RowHeight, R.Device, Ink);
  // Powers of two past an int's are written as such (a ratio of 1e300).
  auto Tick = [](double L) {
    int N = static_cast<int>(L);
    if (N > 30 || N < -30)
      return "2^" + std::to_string(N);
    return N >= 0 ? std::to_string(1 << N) : "1/" + std::to_string(1 << -N);
  };
  // Every tick gets a line; labels skip ticks where they would touch.
  double Widest = std::max(svg::textWidth(Tick(XLo)), svg::textWidth(Tick(XHi)));
  int Every = static_cast<int>(std::ceil((Widest + 8) / (X(1) - X(0))));
  for (double L = XLo; L <= XHi + 1e-9; L += 1) {
    Chart.line("grid", X(L), Top, X(L), Top + PlotH, Grid);
    if (static_cast<int>(L - XLo) % Every == 0)
      Chart.text("x-tick", X(L), Top + PlotH + 16, Tick(L), Ink, Anchor::Middle);
  }
  double Span = YHi - YLo, YStep = Span > 1.2 ? 0.25 : 0.1;
  // Speedups over decades (a time of 1e-300 ms) get about ten ticks, each
  // 1, 2 or 5 times a power of ten, not billions of them.
  if (Span > 5) {
    double Power = std::pow(10.0, std::floor(std::log10(Span / 10)));
    double Want = Span / 10;
    YStep = Power * (Want <= Power ? 1 : Want <= 2 * Power ? 2 : Want <= 5 * Power ? 5 : 10);
  }
  for (double S = std::ceil(YLo / YStep) * YStep; S <= YHi + 1e-9; S += YStep) {
    Chart.line("grid", Left, Y(S), Left + PlotW, Y(S), Grid);
    // A speedup of 1e299 is a bad measurement, but its label stays short.
    char Label[32];
    std::snprintf(Label, sizeof Label, S < 1e4 ? "%.2f" : "%.0e", S);
    Chart.text("y-tick", Left - 8, Y(S) + 4, Label, Ink, Anchor::End);
  }
  Chart.text("x-label", Left + PlotW / 2, Top + PlotH + RowHeight + 16,
             "time of the first kernel / the last", Ink, Anchor::Middle);
  Chart.line("unity", Left, Y(1.0), Left + PlotW, Y(1.0), Unity, 2, true);
  Chart.line("axis", Left, Top, Left, Top + PlotH, Ink, 2);
  Chart.line("axis", Left, Top + PlotH, Left + PlotW, Top + PlotH, Ink, 2);
  for (const EvaluationRow &Row : Rows) {
    if (Row.Ratio <= 0 || !Row.BestFused)
      continue;
    size_t G =
        static_cast<size_t>(std::find(Groups.begin(), Groups.end(), Row.Group) - Groups.begin());
    Mark(X(std::log2(Row.Ratio)), Y(Row.speedup(Row.BestFused)), G);
  }
  for (size_t G = 0; G < Groups.size(); ++G) {
    double LY = Top + G * RowHeight;
    Mark(Left + PlotW + 34, LY + 8, G);
    Chart.text("legend", Left + PlotW + 30 + 2 * CharWidth, LY + 12, Groups[G], Ink);
  }
  return Chart.str();
}

/// A speedup short enough for a chart: 1.234x, or 1.5e+299x.
std::string shortTimes(double V) {
  if (V < 1000)
    return times(V);
  std::ostringstream OS;
  OS.precision(2);
  OS << V << "x";
  return OS.str();
}

std::string renderSummaryChartSvg(const TuneResults &R, const std::vector<EvaluationRow> &Rows) {
  using svg::RowHeight;
  struct Bar {
    std::string Label;
    double Speedup; ///< Over native best.
    svg::Colour Fill;
  };
  const svg::Colour Ink{20, 20, 20}, Native{150, 150, 150}, Untuned{70, 120, 200},
      Tuned{40, 160, 70}, Kept{200, 40, 40}, Grid{220, 220, 220};
  std::vector<std::pair<std::string, std::vector<Bar>>> Groups;
  double Label = 0, Most = 1, Value = 0;
  for (const EvaluationRow &Row : Rows) {
    if (!Row.NativeBest)
      continue;
    std::vector<Bar> Bars{{"native best: " + Row.NativeBest->Name, 1, Native}};
    if (Row.Untuned)
      Bars.push_back({"untuned: " + Row.Untuned->Name, Row.speedup(Row.Untuned), Untuned});
    Bars.push_back(
        {Row.Fuse ? "tuned: " + Row.BestFused->Name : "tuned: the original launches (kept)",
         Row.tunedSpeedup(), Row.Fuse ? Tuned : Kept});
    for (const Bar &B : Bars) {
      Label = std::max(Label, svg::textWidth(B.Label));
      Value = std::max(Value, svg::textWidth(shortTimes(B.Speedup)));
      if (std::isfinite(B.Speedup))
        Most = std::max(Most, B.Speedup);
    }
    Groups.push_back({Row.Fusion, std::move(Bars)});
  }
  const std::string Title =
      "kfuse tune: speedup over native best (the fastest way to launch the original kernels), "
      "higher is faster";
  const double Left = 20 + Label + 10, Area = 480, Top = 3 * RowHeight;
  // The axis ends at the half past the longest bar, and at 16x: a longer
  // one (a variant of 1e-300 ms) runs to the end with its value written.
  const double Scale = std::min(16.0, std::ceil(Most * 2) / 2);
  const double Step = Scale <= 4 ? 0.5 : Scale <= 8 ? 1 : 2;
  size_t Lines = 0;
  for (const auto &G : Groups)
    Lines += 1 + G.second.size();
  const double W = std::max(Left + Area + 6 + Value + 20, 20 + svg::textWidth(Title));
  svg::Document Chart(W, Top + Lines * RowHeight + RowHeight * 1.5);
  Chart.text("title", 10, RowHeight, Title, Ink);
  Chart.text("device", 10, 2 * RowHeight, R.Device, Ink);
  auto X = [&](double S) { return Left + Area * std::clamp(S, 0.0, Scale) / Scale; };
  const double Bottom = Top + Lines * RowHeight;
  for (double S = 0; S <= Scale + 1e-9; S += Step) {
    Chart.line("grid", X(S), Top, X(S), Bottom, Grid);
    Chart.text("axis", X(S), Bottom + RowHeight * 0.8, fixed(S, 1) + "x", Ink, svg::Anchor::Middle);
  }
  svg::groupedRows(Chart, Top, Groups, Ink, [&](const Bar &B, double Y) {
    Chart.rect("bar", Left, Y + 4, std::max(1.0, X(B.Speedup) - Left), RowHeight - 8, B.Fill);
    // Right of the bar, and of the native-best line where it would cross it.
    std::string Text = shortTimes(B.Speedup);
    double TX = X(B.Speedup) + 6;
    if (TX < X(1) + 2 && TX + svg::textWidth(Text) > X(1) - 2)
      TX = X(1) + 6;
    Chart.text("value", TX, Y + RowHeight * 0.7, Text, Ink);
  });
  Chart.line("native-best", X(1), Top, X(1), Bottom, Kept, 2, true);
  return Chart.str();
}

} // namespace kfuse
