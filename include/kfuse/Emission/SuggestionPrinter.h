//===- SuggestionPrinter.h - kfuse suggest's table and config ---*- C++ -*-===//
//
// Prints what `kfuse suggest` found: the launches and the ranked candidates
// as a table for the terminal or as Markdown, and the config `kfuse tune`
// reads, with what the source does not show marked for the user to fill.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_EMISSION_SUGGESTIONPRINTER_H
#define KFUSE_EMISSION_SUGGESTIONPRINTER_H

#include "kfuse/Tuning/Suggestions.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kfuse {

enum class TableFormat { Terminal, Markdown };

void printSuggestions(const Suggestions &S, TableFormat Format, llvm::raw_ostream &OS);

/// What the config holds of each launch.
enum class ConfigContent {
  Kernels,  ///< Where each kernel is and its block: enough for kfuse check.
  Launches, ///< And how to launch it: for kfuse tune.
};

/// The config of the candidates kfuse can fuse (with ConfigContent::Kernels:
/// of every candidate that could run side by side, to check them), best
/// first. Unknown values are written as FILL, which the config reader
/// refuses, with a comment saying what the source computes there.
std::string printSuggestedConfig(const Suggestions &S, ConfigContent Content);

} // namespace kfuse

#endif
