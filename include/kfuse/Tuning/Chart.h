//===- Chart.h - an SVG bar chart of one fusion's measurements --*- C++ -*-===//
//
// Median time per candidate as horizontal bars (native launches grey, fused
// variants blue, the winner green, invalid ones left out), whiskers from the
// 25th to the 75th percentile, and a dashed line at native best.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_CHART_H
#define KFUSE_TUNING_CHART_H

#include "kfuse/Tuning/Selection.h"

#include <string>

namespace kfuse {

/// The SVG file's text.
std::string renderChartSvg(const FusionResult &R, const Verdict &V);

/// The chart's file name in the report directory, which the report links.
inline std::string chartFileName(const FusionResult &R) { return R.Fusion + ".tuning.svg"; }

} // namespace kfuse

#endif
