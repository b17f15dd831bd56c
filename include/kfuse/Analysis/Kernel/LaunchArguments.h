//===- LaunchArguments.h - does a launch spec fit its kernel? ---*- C++ -*-===//
//
// kfuse tune runs kernels it has never seen with the arguments a launch
// spec describes. Each must fit its parameter as the kernel's declaration
// has it: a buffer's elements must tile the pointee, and a scalar's type
// must be one the harness can pass by value.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_LAUNCHARGUMENTS_H
#define KFUSE_ANALYSIS_LAUNCHARGUMENTS_H

#include "kfuse/Analysis/Kernel/FusionLegality.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;

/// The element type a value of type \p T is, if the harness has one of
/// that size and kind.
std::optional<ElementType> elementTypeOf(clang::QualType T);

/// One argument of a launch spec, checked against its parameter.
struct CheckedLaunchArg {
  const LaunchArg *Spec = nullptr;
  /// Buffers: the config's element type. Scalars: the parameter's, which
  /// the value is passed as.
  ElementType Type = ElementType::I32;
};

/// \p M's launch arguments, one per parameter; or nothing after reporting,
/// at the config (\p ConfigPath), every one that does not fit. \p M's spec
/// must have a launch.
std::optional<std::vector<CheckedLaunchArg>>
checkLaunchArguments(const FusionMember &M, const std::string &ConfigPath, Reporter &Diags);

/// Kernels of \p F without a launch spec, or \p F itself when it nests a
/// vertical chain in a horizontal fusion, which kfuse tune does not
/// measure: reported at the config.
bool tunable(const Config &C, const FusionSpec &F, Reporter &Diags);

} // namespace kfuse

#endif
