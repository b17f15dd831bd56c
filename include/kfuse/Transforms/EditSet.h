//===- EditSet.h - source edits gathered from several rewrites --*- C++ -*-===//
//
// Rewrites say what to replace by AST location; the edit set maps that to the
// characters of the file (through macro arguments when it can) and refuses,
// with a diagnostic, a location that only exists inside a macro's body.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_EDITSET_H
#define KFUSE_TRANSFORMS_EDITSET_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <string>

namespace kfuse {

class Reporter;

class EditSet {
public:
  EditSet(clang::ASTUnit &Unit, Reporter &Diags) : Unit(Unit), Diags(Diags) {}

  /// Replaces the token at \p Loc; \p What names it in a diagnostic.
  bool replaceToken(clang::SourceLocation Loc, llvm::StringRef Text, llvm::StringRef What);
  /// Replaces the tokens of \p Range.
  bool replaceRange(clang::SourceRange Range, llvm::StringRef Text, llvm::StringRef What);

  /// The text of \p Range with every edit applied.
  std::string rewrittenText(clang::SourceRange Range) const;

private:
  struct Edit {
    clang::CharSourceRange Range;
    std::string Text;
  };
  bool add(clang::SourceRange Range, clang::SourceLocation At, llvm::StringRef Text,
           llvm::StringRef What);

  clang::ASTUnit &Unit;
  Reporter &Diags;
  std::map<std::pair<unsigned, unsigned>, Edit> Edits; // By file and offset.
};

} // namespace kfuse

#endif
