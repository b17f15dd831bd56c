//===- Evaluation.cpp - fused kernels against every native baseline -------===//

#include "kfuse/Tuning/Evaluation.h"

#include "kfuse/Tuning/VariantSpace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace kfuse {

double EvaluationRow::speedup(const CandidateResult *C) const {
  return C && NativeBest && C->Median > 0 ? NativeBest->Median / C->Median : 0;
}

double EvaluationRow::tunedSpeedup() const {
  return NativeBest && TunedMs > 0 ? NativeBest->Median / TunedMs : 0;
}

std::optional<BytesBound> bytesBound(const std::vector<BufferTraffic> &Traffic,
                                     const std::vector<FlowSpec> &Flows) {
  // A flow's two parameters are one buffer of the fused kernel.
  auto Key = [](const std::string &Kernel, const std::string &Param) {
    return Kernel + "." + Param;
  };
  std::map<std::string, std::string> Same;
  for (const FlowSpec &F : Flows)
    Same[F.To.spelling()] = F.From.spelling();
  auto Root = [&](std::string K) {
    for (auto It = Same.find(K); It != Same.end(); It = Same.find(K))
      K = It->second;
    return K;
  };
  std::set<std::string> Temporary;
  for (const FlowSpec &F : Flows)
    if (F.Temporary)
      Temporary.insert(Root(F.From.spelling()));
  struct Fused {
    bool Touched = false, Loads = false, Stores = false;
    uint64_t Bytes = 0;
  };
  std::map<std::string, Fused> Buffers;
  BytesBound B;
  for (const BufferTraffic &T : Traffic) {
    B.Original += T.Bytes * (T.Reads + T.Writes);
    Fused &F = Buffers[Root(Key(T.Kernel, T.Param))];
    // The first kernel that touches it loads it if it reads it.
    if (!F.Touched)
      F.Loads = T.Reads;
    F.Touched |= T.Reads || T.Writes;
    F.Stores |= T.Writes;
    F.Bytes = std::max(F.Bytes, T.Bytes);
  }
  for (const auto &[Name, F] : Buffers)
    B.Fused += F.Bytes * (F.Loads + (F.Stores && !Temporary.count(Name)));
  if (B.Original == 0 || B.Fused == 0)
    return std::nullopt;
  return B;
}

namespace {

EvaluationRow row(const EvaluationCase &Case) {
  const FusionResult &R = *Case.Result;
  EvaluationRow Row;
  Row.Fusion = R.Fusion;
  Row.Group = Case.Group;
  Row.Natives = R.Natives;
  Row.Kernels = Case.Kernels;
  for (size_t K = 0; K < Row.Kernels.size(); ++K) {
    const CandidateResult *A = R.alone(K);
    Row.Alone.push_back(A ? A->Median : 0);
  }
  // Finite times can still divide to infinity (1e300 / 1e-300).
  if (Row.Alone.size() >= 2 && Row.Alone.back() > 0 &&
      std::isfinite(Row.Alone.front() / Row.Alone.back()))
    Row.Ratio = Row.Alone.front() / Row.Alone.back();
  for (const CandidateResult &C : R.Candidates) {
    if (!C.Valid || C.Median <= 0)
      continue;
    if (C.Kind == CandidateKind::Sequential)
      Row.Sequential = &C;
    else if (C.Kind == CandidateKind::Graph)
      Row.Graph = &C;
    else if (C.Kind == CandidateKind::Streams)
      Row.Streams = &C;
    else if (C.Kind == CandidateKind::StreamsReversed)
      Row.StreamsReversed = &C;
    else if (C.Kind == CandidateKind::Vertical && (!Row.Vertical || isUntunedVertical(C.Layout)))
      Row.Vertical = &C; // As launched where measured, else the first.
    else if (C.Kind == CandidateKind::Horizontal && isEvenSplit(C.Layout, Case.EvenSplit))
      Row.Even = &C;
    if (Case.Mode == FusionMode::Vertical && C.Kind == CandidateKind::Vertical &&
        isUntunedVertical(C.Layout))
      Row.Untuned = &C;
  }
  if (Case.Mode == FusionMode::Horizontal)
    Row.Untuned = Row.Even;
  if (Case.Choice) {
    Row.NativeBest = Case.Choice->NativeBest;
    Row.BestFused = Case.Choice->Fastest;
  }
  Row.Bound = Case.Bound;
  Row.Fuse = Case.Choice && Case.Choice->Fuse;
  Row.TunedMs =
      Row.Fuse ? Case.Choice->Fastest->Median : (Row.NativeBest ? Row.NativeBest->Median : 0);
  double Slowest = Row.Alone.empty() ? 0 : *std::max_element(Row.Alone.begin(), Row.Alone.end());
  if (Row.Sequential && Slowest > 0 && Row.Sequential->Median > Slowest)
    Row.Overlap = (Row.Sequential->Median - Row.TunedMs) / (Row.Sequential->Median - Slowest);
  return Row;
}

} // namespace

std::vector<EvaluationRow> evaluate(const std::vector<EvaluationCase> &Cases) {
  std::vector<EvaluationRow> Rows;
  for (const EvaluationCase &Case : Cases)
    if (Case.Result)
      Rows.push_back(row(Case));
  return Rows;
}

} // namespace kfuse
