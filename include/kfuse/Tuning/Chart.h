//===- Chart.h - a PNG bar chart of one fusion's measurements ---*- C++ -*-===//
//
// Median time per candidate as horizontal bars (native launches grey, fused
// variants blue, the winner green, invalid ones left out) with a line at
// native best. Written without a graphics library: a 5x7 pixel font and a
// PNG encoder with deflate's fixed codes are enough for a chart.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_CHART_H
#define KFUSE_TUNING_CHART_H

#include "kfuse/Tuning/Selection.h"

#include <string>

namespace kfuse {

/// The PNG file's bytes.
std::string renderChartPng(const FusionResult &R, const Verdict &V);

} // namespace kfuse

#endif
