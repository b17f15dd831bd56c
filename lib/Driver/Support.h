//===- Support.h - what the commands share (internal to the driver) -------===//
#ifndef KFUSE_LIB_DRIVER_SUPPORT_H
#define KFUSE_LIB_DRIVER_SUPPORT_H

#include "kfuse/Config/Config.h"
#include "kfuse/Driver/Commands.h"
#include "kfuse/Frontend/SourceParser.h"

#include <optional>
#include <string>

namespace kfuse {

/// Finds the CUDA toolkit and turns the settings into parser options, or
/// reports why it cannot.
std::optional<ParserOptions> makeParserOptions(const ParseSettings &Settings, Reporter &Diags);

/// The config at \p Path, or nothing after reporting why not.
std::optional<Config> readConfigFile(const std::string &Path, Reporter &Diags);

/// The fusion named \p Name, or every fusion when no name is given; empty
/// after reporting a name the config lacks.
std::vector<const FusionSpec *> selectFusions(const Config &C,
                                              const std::optional<std::string> &Name,
                                              Reporter &Diags);

/// Writes \p Text to \p Path through a temporary file in the same directory.
bool writeAtomically(const std::string &Path, const std::string &Text, Reporter &Diags);

} // namespace kfuse

#endif
