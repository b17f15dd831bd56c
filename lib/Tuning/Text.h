//===- Text.h - numbers as kfuse tune's reports print them ------*- C++ -*-===//
//
// Internal to lib/Tuning: the reports, the evaluation and the why-report
// print numbers the same way.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_LIB_TUNING_TEXT_H
#define KFUSE_LIB_TUNING_TEXT_H

#include <cstdio>
#include <string>

namespace kfuse {

/// \p V with \p Digits digits after the point.
inline std::string fixed(double V, int Digits) {
  char Buffer[64];
  std::snprintf(Buffer, sizeof Buffer, "%.*f", Digits, V);
  return Buffer;
}

} // namespace kfuse

#endif
