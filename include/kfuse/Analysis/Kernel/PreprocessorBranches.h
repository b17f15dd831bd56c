//===- PreprocessorBranches.h - #if chains inside a body --------*- C++ -*-===//
//
// Kernels branch on __CUDA_ARCH__ and feature macros inside their bodies.
// Clang parses one branch of each chain; the fused body keeps the others'
// directives and must know which branch was compiled (see BranchGuard.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_PREPROCESSORBRANCHES_H
#define KFUSE_ANALYSIS_PREPROCESSORBRANCHES_H

#include "clang/Frontend/ASTUnit.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

enum class DirectiveKind { If, Ifdef, Ifndef, Elif, Else, Endif };

/// A conditional directive: offsets of its lines in the file (without the
/// last newline) and what follows its keyword.
struct ConditionalDirective {
  unsigned Begin = 0, End = 0;
  DirectiveKind Kind = DirectiveKind::If;
  std::string Condition; ///< Continuation lines kept, a trailing // comment not.
};

struct ConditionalBranch {
  ConditionalDirective Opening;
  unsigned ContentBegin = 0, ContentEnd = 0; ///< Its lines, up to the next directive.
  bool Compiled = false;                     ///< The branch Clang parsed.
};

using ConditionalChain = std::vector<ConditionalBranch>;

/// The conditional chains of a function body that have a branch that was
/// not compiled (others need nothing), outermost first; chains inside such
/// a branch go with it.
struct BodyConditionals {
  clang::FileID File;
  std::vector<ConditionalChain> Chains;
  /// A directive whose chain begins or ends outside the body.
  std::optional<clang::SourceLocation> Unbalanced;
};

BodyConditionals findConditionals(clang::ASTUnit &Unit, clang::SourceRange Body);

} // namespace kfuse

#endif
