//===- Support.h - what the commands share (internal to the driver) -------===//
#ifndef KFUSE_LIB_DRIVER_SUPPORT_H
#define KFUSE_LIB_DRIVER_SUPPORT_H

#include "kfuse/Config/Config.h"
#include "kfuse/Driver/Commands.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Tuning/Selection.h"

#include "FusionPipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

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

/// How far a long step has come, on stderr: on a terminal, one line
/// rewritten for each item; elsewhere (a log, a pipe) one count at the end,
/// so that logs stay readable; nothing at all when quiet.
class Progress {
public:
  Progress(llvm::raw_ostream &OS, std::string Command, size_t Total, bool Quiet)
      : OS(OS), Command(std::move(Command)), Total(Total), Quiet(Quiet),
        Live(!Quiet && OS.is_displayed()) {}
  /// Item \p Done of the total begins.
  void step(size_t Done, llvm::StringRef Item);
  /// The step is over: \p Summary says what it did.
  void finish(llvm::StringRef Summary);

private:
  llvm::raw_ostream &OS;
  std::string Command;
  size_t Total;
  bool Quiet, Live;
  size_t Width = 0; ///< Of the line on the terminal, to clear it.
};

} // namespace kfuse

#endif
