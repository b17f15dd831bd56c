//===- PreambleExtractor.h - what fused kernels need from a file -*- C++ -*-===//
//
// The fused file must compile on its own and link beside the original
// sources: it keeps an input file's includes, macros, types and device
// helpers, and leaves out its kernels, host functions and mutable globals
// (they would be defined twice). Helpers it keeps get internal linkage for
// the same reason, and quoted includes are re-pointed from the output's
// directory.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_PREAMBLEEXTRACTOR_H
#define KFUSE_TRANSFORMS_PREAMBLEEXTRACTOR_H

#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <string>

namespace kfuse {

struct ExtractedPreamble {
  std::string Text;
  /// Functions, variables and types kept at namespace scope, by qualified
  /// name, with where they are declared; two files must not both define one.
  std::map<std::string, clang::SourceLocation> Definitions;
};

ExtractedPreamble extractPreamble(clang::ASTUnit &Unit, const std::string &OutputDir);

} // namespace kfuse

#endif
