//===- WhyPrinter.cpp - why.md and the throughput chart -------------------===//

#include "kfuse/Emission/TuningReports.h"

#include "kfuse/Tuning/Format.h"

#include "Svg.h"

#include <algorithm>
#include <cmath>

namespace kfuse {

namespace {

std::string percent(std::optional<double> V) { return V ? fixed(*V, 0) + "%" : "-"; }

std::string signedPercent(double V) { return (V >= 0 ? "+" : "") + fixed(100 * V, 0) + "%"; }

/// "a and b", "a, b and c".
std::string listed(const std::vector<std::string> &Items) {
  std::string S;
  for (size_t I = 0; I < Items.size(); ++I)
    S += (I == 0 ? "" : I + 1 == Items.size() ? " and " : ", ") + Items[I];
  return S;
}

} // namespace

namespace {

/// "61% (originals 45% and 12%)".
std::string against(std::optional<double> Fused,
                    const std::vector<std::optional<double>> &Originals, bool Percent) {
  auto Show = [&](std::optional<double> V) {
    return Percent ? percent(V) : V ? fixed(*V, 1) : "-";
  };
  std::vector<std::string> Them;
  for (std::optional<double> V : Originals)
    Them.push_back(Show(V));
  return Show(Fused) + " (originals " + listed(Them) + ")";
}

std::string describeProfile(const FusionExplanation &E, const CandidateResult &C,
                            const ProfiledKernel &P) {
  std::vector<std::optional<double>> Dram, Sm, Warps;
  for (const ProfiledKernel *O : E.Originals) {
    Dram.push_back(O->DramPercent);
    Sm.push_back(O->ComputePercent);
    Warps.push_back(O->ActiveWarps);
  }
  std::string S = "'" + C.Name + "': DRAM at " + against(P.DramPercent, Dram, true) +
                  " of peak, SM at " + against(P.ComputePercent, Sm, true) + ", " +
                  against(P.ActiveWarps, Warps, false) + " warps active per multiprocessor";
  if (P.BarrierStalls)
    S += ", " + fixed(*P.BarrierStalls, 0) + "% of active warps waiting at a barrier";
  if (std::optional<double> Extra = E.extraInstructions(P))
    S += "; it executes " + fixed(100 * std::abs(*Extra), 0) + "% " +
         (*Extra < 0 ? "fewer" : "more") + " warp instructions than the originals together";
  return S + ".";
}

/// "12% under the measured time".
std::string errorWords(double Error) {
  return fixed(100 * std::abs(Error), 0) + "% " + (Error < 0 ? "under" : "over") +
         " the measured time";
}

/// ", 'triad' 4 iterations at a time" for the estimate's coarsened kernels.
std::string coarsened(const FusionExplanation &E) {
  std::string S;
  const std::vector<unsigned> &Counts = E.Estimate->Coarsen;
  for (size_t I = 0; I < Counts.size() && I < E.Kernels.size(); ++I)
    if (Counts[I] > 1)
      S += ", '" + E.Kernels[I].Name + "' " + std::to_string(Counts[I]) + " iterations at a time";
  return S;
}

std::string paragraph(const FusionExplanation &E) {
  std::string S = "### " + E.Fusion + "\n\n";
  if (!E.Estimate) {
    S += "No explanation: " + E.Missing + ".\n";
    return S;
  }
  const FusionEstimate &Est = *E.Estimate;
  std::vector<std::string> Split;
  for (unsigned T : Est.Threads)
    Split.push_back(std::to_string(T));
  S += "Estimated " + fixed(Est.Speedup, 2) + "x over the launches one after the other (" +
       fixed(Est.FusedUs / 1000, 4) + " ms fused, " + fixed(Est.Overlap, 2) +
       "x for perfect overlap), bound by ";
  if (Est.Bound == EstimateBound::Kernel)
    S += "'" + Est.boundName(E.Kernels) + "' with the warps the best split (" +
         (Split.empty() ? std::string("none") : listed(Split)) + " threads, " +
         std::to_string(Est.BlocksPerSm) + " blocks per multiprocessor" + coarsened(E) +
         ") leaves it";
  else
    S += std::string(Est.Bound == EstimateBound::Memory ? "all kernels' DRAM traffic"
                                                        : "all kernels' instructions") +
         " at the device's achievable " +
         (Est.Bound == EstimateBound::Memory ? "bandwidth" : "issue rate");
  S += Est.Calibrated ? "." : " (shares of peak: the profile lacks DRAM bytes or instructions).";
  if (E.Fastest && E.Sequential)
    S += " Measured: '" + E.Fastest->Name + "' " + fixed(E.measuredSpeedup(), 2) + "x over '" +
         E.Sequential->Name + "' (" + fixed(E.Fastest->Median, 4) + " ms); the estimated time is " +
         errorWords(E.error()) + ".";
  S += "\n\n";
  if (E.Fastest && E.FastestProfile)
    S += "The fastest variant, " + describeProfile(E, *E.Fastest, *E.FastestProfile) + "\n\n";
  if (E.Even && E.EvenProfile && E.Even != E.Fastest)
    S += "The even split, " + describeProfile(E, *E.Even, *E.EvenProfile) + "\n\n";
  if (!E.FastestRanges.empty()) {
    size_t Last =
        std::max_element(E.FastestRanges.begin(), E.FastestRanges.end()) - E.FastestRanges.begin();
    S += "In the model, '" + E.Kernels[Last].Name + "' finishes last in '" + E.Fastest->Name +
         "' (" + fixed(E.FastestRanges[Last] / 1000, 4) + " ms";
    if (E.FastestRanges[Last] > E.Kernels[Last].Us * 1.005)
      S += ", slowed from " + fixed(E.Kernels[Last].Us / 1000, 4) +
           " ms alone by the warps its range leaves it and the other ranges' use of its busier "
           "resource";
    S += ").\n";
  }
  return S;
}

} // namespace

std::string printExplanations(const TuneResults &R, const std::vector<FusionExplanation> &All) {
  std::string S = "# Why each fusion gains what it gains\n\nDevice: " + R.Device + ".";
  if (R.Peaks)
    S += " Achievable peaks measured by the harness: DRAM " +
         fixed(R.Peaks->DramBytesPerUs / 1000, 0) + " GB/s, " + fixed(R.Peaks->WarpInstsPerUs, 0) +
         " warp instructions per microsecond, issue " + "saturated by " +
         std::to_string(R.Peaks->IssueWarps) + " warps per multiprocessor.";
  else
    S += " The harness measured no peaks: estimates use the profile's shares of peak.";
  S += "\n\nThe estimate (kfuse suggest's model, docs/suggest.md) against the fastest variant "
       "the harness measured, both over the launches one after the other:\n\n"
       "| fusion | estimate | measured (over sequential) | fastest variant | estimate's error | "
       "bound by |\n"
       "|---|---|---|---|---|---|\n";
  for (const FusionExplanation &E : All) {
    S += "| " + E.Fusion + " | ";
    if (!E.Estimate) {
      S += "- | " + (E.measuredSpeedup() ? fixed(E.measuredSpeedup(), 3) + "x" : "-") + " | " +
           (E.Fastest ? E.Fastest->Name : "-") + " | - | " + E.Missing + " |\n";
      continue;
    }
    S += fixed(E.Estimate->Speedup, 3) + "x | " +
         (E.measuredSpeedup() ? fixed(E.measuredSpeedup(), 3) + "x" : "-") + " | " +
         (E.Fastest ? E.Fastest->Name : "-") + " | " +
         (E.Fastest ? signedPercent(E.error()) : "-") + " | " + E.Estimate->boundName(E.Kernels) +
         " |\n";
  }
  if (measuredThroughput(All))
    S += "\n![DRAM and SM throughput of the originals, the fastest variant and the even split](" +
         std::string(ThroughputChartFileName) + ")\n\n";
  else
    S += "\nNo profile measured DRAM and SM throughput (the harness's profile run), so there is "
         "no throughput chart.\n\n";
  for (const FusionExplanation &E : All)
    S += paragraph(E) + "\n";
  return S;
}

bool measuredThroughput(const std::vector<FusionExplanation> &All) {
  return std::any_of(All.begin(), All.end(), [](const FusionExplanation &E) {
    return !E.Originals.empty() || E.FastestProfile || E.EvenProfile;
  });
}

std::string renderThroughputChartSvg(const std::vector<FusionExplanation> &All) {
  using svg::RowHeight;
  struct Bar {
    std::string Label;
    std::optional<double> Dram, Sm;
  };
  std::vector<std::pair<std::string, std::vector<Bar>>> Groups;
  double Label = 0;
  for (const FusionExplanation &E : All) {
    std::vector<Bar> Bars;
    for (size_t K = 0; K < E.Originals.size(); ++K)
      Bars.push_back({E.Kernels[K].Name + " alone", E.Originals[K]->DramPercent,
                      E.Originals[K]->ComputePercent});
    if (E.FastestProfile)
      Bars.push_back({E.Fastest->Name + " (fastest)", E.FastestProfile->DramPercent,
                      E.FastestProfile->ComputePercent});
    if (E.EvenProfile && E.Even != E.Fastest)
      Bars.push_back(
          {E.Even->Name + " (even)", E.EvenProfile->DramPercent, E.EvenProfile->ComputePercent});
    for (const Bar &B : Bars)
      Label = std::max(Label, svg::textWidth(B.Label));
    if (!Bars.empty())
      Groups.push_back({E.Fusion, std::move(Bars)});
  }
  const svg::Colour Ink{20, 20, 20}, Dram{70, 120, 200}, Sm{230, 140, 40}, Grid{210, 210, 210};
  const std::string Title = "kfuse tune: DRAM (blue) and SM (orange) throughput, % of peak";
  const double Left = 20 + Label + 10, Area = 400, Top = 2 * RowHeight;
  size_t Rows = 0;
  for (const auto &G : Groups)
    Rows += 1 + G.second.size();
  const double W = std::max(Left + Area + 60, 20 + svg::textWidth(Title));
  svg::Document Chart(W, Top + Rows * RowHeight + RowHeight);
  Chart.text("title", 10, RowHeight, Title, Ink);
  for (int P = 0; P <= 100; P += 25) {
    double X = Left + Area * P / 100;
    Chart.line("grid", X, Top, X, Top + Rows * RowHeight, Grid);
    Chart.text("axis", X, Top + Rows * RowHeight + RowHeight * 0.8, std::to_string(P) + "%", Ink,
               svg::Anchor::Middle);
  }
  svg::groupedRows(Chart, Top, Groups, Ink, [&](const Bar &B, double Y) {
    double H = (RowHeight - 6) / 2;
    if (B.Dram)
      Chart.rect("dram", Left, Y + 2, Area * std::clamp(*B.Dram, 0.0, 100.0) / 100, H, Dram);
    if (B.Sm)
      Chart.rect("sm", Left, Y + 2 + H, Area * std::clamp(*B.Sm, 0.0, 100.0) / 100, H, Sm);
  });
  return Chart.str();
}

} // namespace kfuse
