//===- Depfile.h - what a fused file was made from, for build systems -*- C++ -*-===//
//
// A Make-syntax dependency file, as `cc -MD -MP` writes: Make, Ninja and
// CMake's DEPFILE read it to run kfuse again when a config, a kernel's
// source or any header it includes changes.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_EMISSION_DEPFILE_H
#define KFUSE_EMISSION_DEPFILE_H

#include <string>
#include <vector>

namespace kfuse {

/// "Target: Inputs..." and an empty rule per input, so that a deleted
/// header makes the target out of date instead of breaking the build.
std::string printDepfile(const std::string &Target, const std::vector<std::string> &Inputs);

} // namespace kfuse

#endif
