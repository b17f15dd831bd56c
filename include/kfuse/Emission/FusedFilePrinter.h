//===- FusedFilePrinter.h - print the fused-file model ----------*- C++ -*-===//
//
// Emission prints what the transforms produced; it decides nothing.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_EMISSION_FUSEDFILEPRINTER_H
#define KFUSE_EMISSION_FUSEDFILEPRINTER_H

#include "kfuse/Transforms/FusedFile.h"

#include <string>
#include <vector>

namespace kfuse {

/// The emitted source. Generated code is formatted; the preambles are kept
/// as the user wrote them.
std::string printFusedFile(const FusedFile &File);

/// The header declaring \p File's launchers, for callers in other
/// translation units. \p Includes are the directives for the headers that
/// declare the parameters' types, as they should be spelled from it.
std::string printLauncherHeader(const FusedFile &File, const std::string &Guard,
                                const std::vector<std::string> &Includes);

} // namespace kfuse

#endif
