//===- Format.h - numbers as kfuse tune writes them ------------*- C++ -*-===//
//
// The verdicts Tuning gives and the reports Emission prints write numbers
// the same way.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_FORMAT_H
#define KFUSE_TUNING_FORMAT_H

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
