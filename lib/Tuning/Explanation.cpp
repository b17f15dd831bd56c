//===- Explanation.cpp - why a fusion gains what it gains -----------------===//

#include "kfuse/Tuning/Explanation.h"

#include <algorithm>

namespace kfuse {

double FusionExplanation::measuredSpeedup() const {
  return Sequential && Fastest && Fastest->Median > 0 ? Sequential->Median / Fastest->Median : 0;
}

double FusionExplanation::error() const {
  return Estimate && Fastest && Fastest->Median > 0
             ? Estimate->FusedUs / (1000 * Fastest->Median) - 1
             : 0;
}

std::optional<double> FusionExplanation::extraInstructions(const ProfiledKernel &Fused) const {
  double Originals = 0;
  for (const ProfiledKernel *O : this->Originals) {
    if (!O->WarpInsts)
      return std::nullopt;
    Originals += *O->WarpInsts;
  }
  if (!Fused.WarpInsts || Originals <= 0)
    return std::nullopt;
  return *Fused.WarpInsts / Originals - 1;
}

FusionExplanation explain(const TuneResults &R, const FusionResult &F, const EvaluationRow &Row,
                          const std::vector<TuneMember> &Shape, unsigned Step) {
  FusionExplanation E;
  E.Fusion = F.Fusion;
  E.Sequential = Row.Sequential;
  E.Fastest = Row.BestFused;
  E.Even = Row.Even;
  if (!F.Profile) {
    E.Missing = "the harness that measured it profiles nothing";
    return E;
  }
  if (!F.Profile->Error.empty()) {
    E.Missing = "no profile: " + F.Profile->Error;
    return E;
  }
  for (size_t K = 0; K < Row.Kernels.size(); ++K) {
    const CandidateResult *Alone = F.alone(K);
    const ProfiledKernel *P = F.Profile->of(Row.Kernels[K] + " alone");
    if (!Alone || !P || K >= Shape.size()) {
      E.Missing = "'" + Row.Kernels[K] + "' was not measured or profiled alone";
      return E;
    }
    E.Originals.push_back(P);
    KernelDemand D = demandOf(*P);
    D.Name = Row.Kernels[K];
    D.Us = 1000 * Alone->Median; // The harness's clock, as the fused time's.
    D.Threads = Shape[K].Threads;
    D.Resizable = Shape[K].Resizable;
    D.Coarsen = estimatedCoarsening(Shape[K].Elementwise);
    if (K < F.Natives.size()) {
      D.Registers = static_cast<unsigned>(F.Natives[K].Registers);
      D.SharedBytes = static_cast<size_t>(F.Natives[K].StaticShared);
    }
    E.Kernels.push_back(D);
  }
  DeviceLimits Device = R.Limits.value_or(DeviceLimits());
  DevicePeaks Peaks = R.Peaks.value_or(DevicePeaks());
  E.Estimate = estimateFusion(E.Kernels, Device, Peaks, Step);
  if (E.Fastest) {
    E.FastestProfile = F.Profile->of(E.Fastest->Name);
    if (!E.Fastest->Layout.Vertical && E.Fastest->BlocksPerSm > 0)
      E.FastestRanges =
          rangeTimes(E.Kernels, Device, Peaks, E.Fastest->Layout.Threads,
                     static_cast<unsigned>(E.Fastest->BlocksPerSm), E.Fastest->Layout.Coarsen);
  }
  if (E.Even)
    E.EvenProfile = F.Profile->of(E.Even->Name);
  return E;
}

} // namespace kfuse
