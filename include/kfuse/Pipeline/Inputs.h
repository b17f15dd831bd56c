//===- Inputs.h - what a pipeline reads and where --------------*- C++ -*-===//
//
// The config, the measurements and the parser options a pipeline starts
// from, each read or made once with its problems reported, and the paths
// a run reads and writes.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PIPELINE_INPUTS_H
#define KFUSE_PIPELINE_INPUTS_H

#include "kfuse/Config/Config.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Pipeline/FusionPipeline.h"
#include "kfuse/Pipeline/Pipeline.h"
#include "kfuse/Tuning/Selection.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// Finds the CUDA toolkit and turns the settings into parser options, or
/// reports why it cannot.
std::optional<ParserOptions> makeParserOptions(const ParseSettings &Settings, Reporter &Diags);

/// The config at \p Path, or nothing after reporting why not.
std::optional<Config> readConfigFile(const std::string &Path, Reporter &Diags);

/// The fusions \p Names lists ("a" or "a,b"), in the config's order, or
/// every fusion when no names are given; empty after reporting each name
/// the config lacks.
std::vector<const FusionSpec *>
selectFusions(const Config &C, const std::optional<std::string> &Names, Reporter &Diags);

/// The measurements kfuse tune's harness wrote to \p Path, or nothing after
/// reporting why they cannot be read.
std::optional<TuneResults> readTuneResults(const std::string &Path, Reporter &Diags);

/// The measurements of fusion \p Name, or null after reporting that
/// \p Results (read from \p Path) has none.
const FusionResult *findMeasurements(const TuneResults &Results, const std::string &Name,
                                     const std::string &Path, Reporter &Diags);

/// The layout of the variant a verdict to fuse chose, measured in \p ResultsPath.
FusionLayout tunedLayout(const Verdict &V, const std::string &ResultsPath);

/// \p Path made absolute, without "." and ".." components.
std::string absolutePath(const std::string &Path);

/// \p Path as spelled from directory \p Dir (both made absolute first).
std::string relativePath(const std::string &Path, const std::string &Dir);

/// The directory \p Path lies in: "." for a bare file name.
std::string directoryOf(const std::string &Path);

/// Every file a run read, absolute: the config, the measurements, the
/// sources and the headers they include, and the files the compile commands
/// came from. No output may be one of them, and a depfile lists them.
std::vector<std::string> runInputs(const std::string &ConfigPath,
                                   const std::optional<std::string> &Measurements,
                                   const SourceParser &Parser);

} // namespace kfuse

#endif
