//===- TuningReports.h - what kfuse tune writes beside its verdicts -*- C++ -*-===//
//
// Printers only: Tuning decides (decide(), evaluate(), explain()) and these
// print what it decided, each from the one value Tuning computed.
//  - tuning-report.md and tuning.yaml: every candidate and the verdicts;
//  - an SVG chart per fusion: median bars (native launches grey, fused
//    variants blue, the winner green), whiskers from the 25th to the 75th
//    percentile, a dashed line at native best;
//  - evaluation.md and the chart of speedup against time ratio (the HFuse
//    paper's Figure 7);
//  - why.md and the chart of DRAM and SM throughput.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_EMISSION_TUNINGREPORTS_H
#define KFUSE_EMISSION_TUNINGREPORTS_H

#include "kfuse/Tuning/Evaluation.h"
#include "kfuse/Tuning/Explanation.h"
#include "kfuse/Tuning/Selection.h"

#include <string>
#include <vector>

namespace kfuse {

/// A Markdown report: the device, a table per fusion and the verdicts.
std::string printReport(const TuneResults &R, const std::vector<Verdict> &Verdicts);

/// The verdicts and every candidate, as YAML.
std::string printTuningYaml(const TuneResults &R, const std::vector<Verdict> &Verdicts);

/// One fusion's chart, as SVG text.
std::string renderChartSvg(const FusionResult &R, const Verdict &V);

/// That chart's file name in the report directory, which the report links.
inline std::string chartFileName(const FusionResult &R) { return R.Fusion + ".tuning.svg"; }

/// Markdown: the device, a table of times, a table of speedups and
/// resources, and a summary line per fusion.
std::string printEvaluation(const TuneResults &R, const std::vector<EvaluationRow> &Rows);

/// The SVG of the best fused variant's speedup over native best against the
/// time ratio of the fusion's kernels, one colour per group.
std::string renderRatioChartSvg(const TuneResults &R, const std::vector<EvaluationRow> &Rows);

/// That chart's file name in the report directory, which evaluation.md links.
constexpr const char *RatioChartFileName = "speedup-vs-ratio.svg";

/// The SVG of each fusion's native best, untuned fused kernel (what `kfuse
/// fuse` builds without measurements) and tuned choice, as speedups over
/// native best: why tuning matters, which evaluation.md links.
std::string renderSummaryChartSvg(const TuneResults &R, const std::vector<EvaluationRow> &Rows);
constexpr const char *SummaryChartFileName = "summary.svg";

/// why.md: the estimate's error per fusion in one table, then a paragraph
/// per fusion.
std::string printExplanations(const TuneResults &R, const std::vector<FusionExplanation> &E);

/// The SVG of DRAM and SM throughput per fusion: the originals, the fastest
/// variant and the even split, which why.md links.
std::string renderThroughputChartSvg(const std::vector<FusionExplanation> &E);
/// Whether any profile measured the throughput that chart draws: without,
/// it is not written.
bool measuredThroughput(const std::vector<FusionExplanation> &E);
constexpr const char *ThroughputChartFileName = "throughput.svg";

} // namespace kfuse

#endif
